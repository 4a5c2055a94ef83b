// The printer's language over any channel, with a printer in memory that answers as an Epson one
// does: once every byte of a job is out, a cancellation can no longer stop it, so the job is never
// called cancelled while the printer prints it.
import { describe, expect, test } from 'bun:test'
import type { ChannelEvents, OpenChannel } from '../../src/transports/channel.ts'
import { readyOverLink, submitOverLink } from '../../src/transports/printer-link.ts'

const JOB = new TextEncoder().encode('Table 12\n')
const GS = 0x1d
const DLE = 0x10

/**
 * A printer that is online with paper, answers status requests and process ID requests, and calls
 * `onJob` when the job's bytes arrive; `onAnswered` runs right after each process ID response is
 * read: first one to an earlier job's request, then this job's.
 */
function memoryPrinter(onJob: () => void, onAnswered: (whose: 'earlier' | 'own') => void = () => {}) {
  const written: Uint8Array[] = []
  const open: OpenChannel = async (events: ChannelEvents) => ({
    ok: true,
    channel: {
      // As every channel does: a write asked for after its signal aborted is not made.
      async write(bytes: Uint8Array, signal: AbortSignal) {
        if (signal.aborted) return { ok: false as const, cancelled: true as const }
        written.push(bytes)
        if (bytes[0] === DLE)
          queueMicrotask(() => events.data(Uint8Array.from({ length: bytes.length / 3 }, () => 0x12)))
        else if (bytes[0] === GS && bytes[1] === 0x28 && bytes[2] === 0x48) {
          queueMicrotask(() => {
            // An answer to an earlier job's request first: it is not this job's.
            events.data(Uint8Array.of(0x37, 0x22, 0x30, 0x30, 0x30, 0x30, 0x00))
            onAnswered('earlier')
            events.data(Uint8Array.of(0x37, 0x22, ...bytes.subarray(7, 11), 0x00))
            onAnswered('own')
          })
        } else onJob()
        return undefined
      },
      close() {},
      destroy() {},
    },
  })
  return { open, written }
}

describe('printer link', () => {
  test(
    'a cancellation that comes right after the last byte of the job does not ' + 'stop it: the printer confirms it',
    async () => {
      const cancel = new AbortController()
      const printer = memoryPrinter(() => cancel.abort())
      const outcome = await submitOverLink({ open: printer.open, where: 'memory' }, JOB, cancel.signal, {
        realtime: true,
        processIdResponse: true,
      })
      expect(cancel.signal.aborted).toBe(true)
      expect(outcome.ok).toBe(true)
      expect(await (outcome as { printed: Promise<unknown> }).printed).toEqual({ ok: true })
      // Status, the job, then the process ID request that asks for the confirmation.
      expect(printer.written.map((bytes) => bytes[0])).toEqual([DLE, JOB[0], GS])
    },
  )

  test('a cancellation before the job goes out stops it: not a byte of it is written', async () => {
    const cancel = new AbortController()
    cancel.abort()
    const printer = memoryPrinter(() => {})
    const outcome = await submitOverLink({ open: printer.open, where: 'memory' }, JOB, cancel.signal, {
      realtime: true,
      processIdResponse: true,
    })
    expect(outcome).toEqual({ ok: false, cancelled: true })
    expect(printer.written.some((bytes) => bytes[0] === JOB[0])).toBe(false)
  })

  test(
    "the job's printed mark is made as the printer's confirmation is read, " + 'once, before the outcome settles',
    async () => {
      const marks: string[] = []
      const printer = memoryPrinter(
        () => {},
        (whose) => marks.push(`read ${whose}`),
      )
      const ready = await readyOverLink(printer.open, 'memory', new AbortController().signal, {
        realtime: true,
        processIdResponse: true,
      })
      if (!ready.ok) throw new Error('the memory printer was not ready')
      const outcome = await ready.printer.send(JOB, new AbortController().signal, () => marks.push('marked'))
      if (!outcome.ok || !outcome.printed) throw new Error('the job was not sent with a confirmation to wait for')
      const printed = outcome.printed.then((result) => marks.push(`settled ${JSON.stringify(result)}`))
      await printed
      // The earlier job's answer marked nothing; this job's was marked as it was read, then the outcome settled.
      expect(marks).toEqual(['read earlier', 'marked', 'read own', 'settled {"ok":true}'])
    },
  )
})
