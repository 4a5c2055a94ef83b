// The network transport against real sockets: printers that are not there, that answer their
// status, that confirm printing or hang up before, that never answer, and cancellation. Every
// outcome is a value.
import { describe, expect, test } from 'bun:test'
import { createServer, type Socket } from 'node:net'
import { readLinkStatus, submitOverLink } from '../../src/transports/printer-link.ts'
import type { StatusSupport } from '../../src/transports/submission.ts'
import { tcpChannel } from '../../src/transports/tcp.ts'
import { freePort } from '../support/ports.ts'
import { waitFor } from '../support/wait.ts'

const submitToTcp = (
  host: string,
  port: number,
  bytes: Uint8Array,
  { signal, support }: { signal: AbortSignal; support: StatusSupport },
) => submitOverLink({ open: tcpChannel(host, port), where: `${host}:${port}` }, bytes, signal, support)
const readTcpStatus = (host: string, port: number) => readLinkStatus(tcpChannel(host, port), `${host}:${port}`)

const NO_STATUS = { realtime: false, processIdResponse: false }
const FULL_STATUS = { realtime: true, processIdResponse: true }
const job = Uint8Array.of(0x1b, 0x40, 0x41, 0x0a)

/**
 * A printer that answers `DLE EOT n` with `status[n]` (nothing when absent) and keeps what else it
 * gets; asked for the process ID response (`GS ( H` fn 48), it sends it, or hangs up.
 */
function printer(status: Record<number, number>, processId: 'answer' | 'hang up' = 'answer') {
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
          } else if (bytes[i] === 0x1d && bytes[i + 1] === 0x28 && bytes[i + 2] === 0x48) {
            if (processId === 'hang up') return void socket.end()
            socket.write(Uint8Array.of(0x37, 0x22, ...bytes.subarray(i + 7, i + 11), 0x00))
            i += 10
          } else received.push(bytes[i]!)
        }
      },
    },
  })
  return { port: listener.port, received, stop: () => listener.stop(true) }
}

describe('tcp transport', () => {
  test('nothing listening: printer.unreachable, retryable', async () => {
    const outcome = await submitToTcp('127.0.0.1', freePort(), job, {
      signal: new AbortController().signal,
      support: NO_STATUS,
    })
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'printer.unreachable', retryable: true } })
  })

  test('a printer with its cover open gets no byte of the job', async () => {
    // Offline (bit 3 of DLE EOT 1), because the cover is open (bit 2 of DLE EOT 2).
    const p = printer({ 1: 0x1a, 2: 0x16, 4: 0x12 })
    try {
      const outcome = await submitToTcp('127.0.0.1', p.port, job, {
        signal: new AbortController().signal,
        support: FULL_STATUS,
      })
      expect(outcome).toEqual({
        ok: false,
        failure: {
          code: 'printer.cover_open',
          message: `The printer at 127.0.0.1:${p.port} has its cover open.`,
          retryable: true,
        },
      })
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
        const outcome = await submitToTcp('127.0.0.1', p.port, job, {
          signal: new AbortController().signal,
          support: FULL_STATUS,
        })
        expect(outcome).toMatchObject({ ok: false, failure: { code, retryable: true } })
        expect(p.received).toEqual([])
      } finally {
        p.stop()
      }
    }
  })

  test('a write-only link gets the job and no questions', async () => {
    const p = printer({})
    try {
      expect(
        await submitToTcp('127.0.0.1', p.port, job, { signal: new AbortController().signal, support: NO_STATUS }),
      ).toEqual({ ok: true })
      await waitFor(() => p.received.length === job.length)
      expect(p.received).toEqual(Array.from(job))
    } finally {
      p.stop()
    }
  })

  test(
    'idle status: online, paper low, paper out, cover open, unreachable; a ' +
      'printer that never answers is unknown and not asked again',
    async () => {
      const ok = printer({ 1: 0x12, 2: 0x12, 4: 0x12 })
      const out = printer({ 1: 0x1a, 2: 0x32, 4: 0x7e })
      const low = printer({ 1: 0x12, 2: 0x12, 4: 0x1e })
      const cover = printer({ 1: 0x1a, 2: 0x16, 4: 0x12 })
      let connections = 0
      const silent = Bun.listen({
        hostname: '127.0.0.1',
        port: 0,
        socket: { open: () => void connections++, data() {} },
      })
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
    },
  )

  test('cancelled before connecting: nothing is sent', async () => {
    const p = printer({ 1: 0x12, 2: 0x12, 4: 0x12 })
    try {
      const controller = new AbortController()
      controller.abort()
      expect(await submitToTcp('127.0.0.1', p.port, job, { signal: controller.signal, support: FULL_STATUS })).toEqual({
        ok: false,
        cancelled: true,
      })
      expect(p.received).toEqual([])
    } finally {
      p.stop()
    }
  })

  test('cancelled while the printer holds the job back: the write is cut off, the connection closed', async () => {
    // A printer that takes no byte: the job waits in the socket's buffers.
    const held: Socket[] = []
    let received = 0
    let closed = 0
    const server = createServer((socket) => {
      socket.pause()
      socket.on('data', (data) => void (received += data.length))
      socket.on('close', () => void closed++)
      held.push(socket)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    try {
      const controller = new AbortController()
      const size = 64 * 1024 * 1024
      const submitting = submitToTcp('127.0.0.1', port, new Uint8Array(size), {
        signal: controller.signal,
        support: NO_STATUS,
      })
      await waitFor(() => held.length === 1)
      await Bun.sleep(50)
      controller.abort()
      expect(await submitting).toEqual({ ok: false, cancelled: true })
      // The printer reads again: what was in flight arrives, then the end of the connection, not the rest.
      held[0]!.resume()
      await waitFor(() => closed === 1)
      expect(received).toBeLessThan(size)
    } finally {
      for (const socket of held) socket.destroy()
      server.close()
    }
  })
})

describe('the printer confirms printing', () => {
  test('status, the job, then the process ID response: printed', async () => {
    const p = printer({ 1: 0x12, 2: 0x12, 4: 0x12 })
    try {
      const outcome = await submitToTcp('127.0.0.1', p.port, job, {
        signal: new AbortController().signal,
        support: FULL_STATUS,
      })
      if (!outcome.ok) throw new Error('the job was not sent')
      expect(await outcome.printed).toEqual({ ok: true })
      expect(p.received).toEqual(Array.from(job))
    } finally {
      p.stop()
    }
  })

  test('a printer that hangs up before confirming: printer.unconfirmed, as a value, not retried', async () => {
    const p = printer({ 1: 0x12, 2: 0x12, 4: 0x12 }, 'hang up')
    try {
      const outcome = await submitToTcp('127.0.0.1', p.port, job, {
        signal: new AbortController().signal,
        support: FULL_STATUS,
      })
      if (!outcome.ok) throw new Error('the job was not sent')
      expect(await outcome.printed).toEqual({
        ok: false,
        failure: {
          code: 'printer.unconfirmed',
          message:
            `The printer at 127.0.0.1:${p.port} took the job, then the connection ` +
            `ended before it confirmed printing it; it may have printed.`,
          retryable: false,
        },
      })
    } finally {
      p.stop()
    }
  })
})
