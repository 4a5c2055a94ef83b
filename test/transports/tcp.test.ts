// The network transport against real sockets: printers that are not there, that answer their
// status, that never answer, and cancellation.
import { describe, expect, test } from 'bun:test'
import { readLinkStatus, submitOverLink } from '../../src/transports/printer-link.ts'
import type { StatusSupport } from '../../src/transports/submission.ts'
import { tcpChannel } from '../../src/transports/tcp.ts'
import { SubmitError } from '../../src/transports/submit-error.ts'
import { freePort } from '../support/ports.ts'
import { waitFor } from '../support/wait.ts'

const submitToTcp = (host: string, port: number, bytes: Uint8Array, signal: AbortSignal, support: StatusSupport) => submitOverLink(tcpChannel(host, port), `${host}:${port}`, bytes, signal, support)
const readTcpStatus = (host: string, port: number) => readLinkStatus(tcpChannel(host, port), `${host}:${port}`)

const NO_STATUS = { realtime: false, processIdResponse: false }
const FULL_STATUS = { realtime: true, processIdResponse: true }
const job = Uint8Array.of(0x1b, 0x40, 0x41, 0x0a)

async function refusal(work: Promise<unknown>): Promise<SubmitError> {
  try {
    await work
  } catch (error) {
    expect(error).toBeInstanceOf(SubmitError)
    return error as SubmitError
  }
  throw new Error('the job went through')
}

/** A printer that answers `DLE EOT n` with `status[n]` (nothing when absent) and keeps what else it gets. */
function printer(status: Record<number, number>) {
  const received: number[] = []
  const listener = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      data(socket, bytes) {
        for (let i = 0; i < bytes.length; i++) {
          if (bytes[i] === 0x10 && bytes[i + 1] === 0x04) {
            const answer = status[bytes[i + 2]!]
            if (answer !== undefined) socket.write(Uint8Array.of(answer))
            i += 2
          } else received.push(bytes[i]!)
        }
      },
    },
  })
  return { port: listener.port, received, stop: () => listener.stop(true) }
}

describe('tcp transport', () => {
  test('nothing listening: printer.unreachable, retryable', async () => {
    const error = await refusal(submitToTcp('127.0.0.1', freePort(), job, new AbortController().signal, NO_STATUS))
    expect(error).toMatchObject({ code: 'printer.unreachable', retryable: true })
  })

  test('a printer with its cover open gets no byte of the job', async () => {
    // Offline (bit 3 of DLE EOT 1), because the cover is open (bit 2 of DLE EOT 2).
    const p = printer({ 1: 0x1a, 2: 0x16, 4: 0x12 })
    try {
      const error = await refusal(submitToTcp('127.0.0.1', p.port, job, new AbortController().signal, FULL_STATUS))
      expect(error.code).toBe('printer.cover_open')
      expect(p.received).toEqual([])
    } finally {
      p.stop()
    }
  })

  test('out of paper, or in error: no byte of the job either', async () => {
    for (const [status, code] of [
      [{ 1: 0x1a, 2: 0x32, 4: 0x7e }, 'printer.paper_out'],
      [{ 1: 0x1a, 2: 0x52, 4: 0x12 }, 'printer.error'],
      [{ 1: 0x1a, 2: 0x12, 4: 0x12 }, 'printer.offline'],
    ] as const) {
      const p = printer(status)
      try {
        const error = await refusal(submitToTcp('127.0.0.1', p.port, job, new AbortController().signal, FULL_STATUS))
        expect([code, error.code, error.retryable]).toEqual([code, code, true])
        expect(p.received).toEqual([])
      } finally {
        p.stop()
      }
    }
  })

  test('a write-only link gets the job and no questions', async () => {
    const p = printer({})
    try {
      expect(await submitToTcp('127.0.0.1', p.port, job, new AbortController().signal, NO_STATUS)).toEqual({})
      await waitFor(() => p.received.length === job.length)
      expect(p.received).toEqual(Array.from(job))
    } finally {
      p.stop()
    }
  })

  test('idle status: online, paper low, paper out, cover open, unreachable; a printer that never answers is unknown and not asked again', async () => {
    const ok = printer({ 1: 0x12, 2: 0x12, 4: 0x12 })
    const out = printer({ 1: 0x1a, 2: 0x32, 4: 0x7e })
    const low = printer({ 1: 0x12, 2: 0x12, 4: 0x1e })
    const cover = printer({ 1: 0x1a, 2: 0x16, 4: 0x12 })
    let connections = 0
    const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { open: () => void connections++, data() {} } })
    try {
      expect(await readTcpStatus('127.0.0.1', ok.port)).toBe('online')
      expect(await readTcpStatus('127.0.0.1', out.port)).toBe('paper_out')
      expect(await readTcpStatus('127.0.0.1', low.port)).toBe('paper_low')
      expect(await readTcpStatus('127.0.0.1', cover.port)).toBe('cover_open')
      expect(await readTcpStatus('127.0.0.1', freePort())).toBe('offline')
      expect(await readTcpStatus('127.0.0.1', silent.port)).toBe('unknown')
      expect(await readTcpStatus('127.0.0.1', silent.port)).toBe('unknown')
      expect(connections).toBe(1)
    } finally {
      ok.stop()
      out.stop()
      low.stop()
      cover.stop()
      silent.stop(true)
    }
  })

  test('cancelled before connecting: nothing is sent', async () => {
    const p = printer({ 1: 0x12, 2: 0x12, 4: 0x12 })
    try {
      const controller = new AbortController()
      controller.abort()
      const error = await refusal(submitToTcp('127.0.0.1', p.port, job, controller.signal, FULL_STATUS))
      expect(error.code).toBe('cancelled')
      expect(p.received).toEqual([])
    } finally {
      p.stop()
    }
  })
})
