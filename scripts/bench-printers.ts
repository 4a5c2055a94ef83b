// Printers in the bench: submit-to-first-byte at the printer emulator over TCP (through a running
// hub, with the status check before each job and the printer's confirmation after it), and how
// much of a serial line's rate the serial transport keeps busy (at the emulator's paced line).
import { PrinterEmulator } from '../src/emulator/emulator.ts'
import { findProfile } from '../src/profiles/catalog.ts'
import type { PrintDocument } from '../src/protocol/document.ts'
import { parseConnectionUri } from '../src/transports/connection-uri.ts'
import { DeviceFinder } from '../src/transports/devices.ts'
import { submit } from '../src/transports/submit.ts'
import { VirtualPrinters } from '../src/transports/virtual.ts'
import { type LatencySummary, summarize } from './bench-load.ts'

export const EMULATOR_PROFILE = 'epson-tm-t20iii'
const STEADY = { ratePerSecond: 20, warmupJobs: 20, jobs: 200 } as const
const SERIAL = { baud: 115200, bytes: 46_080 } as const

export function startEmulator(): PrinterEmulator {
  return PrinterEmulator.listen({ hostname: '127.0.0.1', port: 0, profile: findProfile(EMULATOR_PROFILE)!, width: 80 })
}

const documentOf = (index: number): PrintDocument => ({
  width: 80,
  sections: [{ type: 'text', value: `bench job ${index}` }, { type: 'row', left: '2 x Flat white', right: '7.00' }, { type: 'qr', value: `https://example.com/r/${index}` }, { type: 'cut' }],
})

/** Jobs posted at a steady rate; the time from each POST to its first byte at the emulator. */
export async function emulatorFirstByte(api: { url: string; projectId: string; apiKey: string }, printerId: string, emulator: PrinterEmulator): Promise<{ firstByteMs: LatencySummary; jobs: number; missing: number }> {
  const total = STEADY.warmupJobs + STEADY.jobs
  const sentAt: number[] = []
  const posts: Promise<Response>[] = []
  const start = performance.now()
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / STEADY.ratePerSecond
    const wait = due - performance.now()
    if (wait > 0) await Bun.sleep(wait)
    sentAt[i] = performance.now()
    posts.push(
      fetch(`${api.url}/v1/projects/${api.projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ printerId, idempotencyKey: `bench-emulator-${start}-${i}`, document: documentOf(i) }),
      }),
    )
  }
  await Promise.all(posts)
  const deadline = performance.now() + 30_000
  while (emulator.receipts.length < total && performance.now() < deadline) await Bun.sleep(50)
  const firstByteAt = new Map<number, number>()
  for (const receipt of emulator.receipts) {
    const index = /bench job (\d+)/.exec(receipt.preview.text[0] ?? '')?.[1]
    if (index !== undefined && !firstByteAt.has(Number(index))) firstByteAt.set(Number(index), receipt.firstByteAt)
  }
  const values: number[] = []
  for (let i = STEADY.warmupJobs; i < total; i++) {
    const at = firstByteAt.get(i)
    if (at !== undefined) values.push(at - sentAt[i]!)
  }
  return { firstByteMs: summarize(Float64Array.from(values)), jobs: values.length, missing: STEADY.jobs - values.length }
}

/** One large job to a serial printer at 115,200 baud: the share of the line rate it was sent at. */
export async function serialThroughput(): Promise<{ baud: number; bytes: number; seconds: number; share: number; lost: number }> {
  const emulator = PrinterEmulator.serial({ profile: findProfile('generic-80mm')!, width: 80, baud: SERIAL.baud, flow: 'rtscts' })
  try {
    const line = 'Line of a long receipt, 48 characters wide.....\n'
    const bytes = new TextEncoder().encode(line.repeat(Math.ceil(SERIAL.bytes / line.length)).slice(0, SERIAL.bytes))
    const parsed = parseConnectionUri(`serial://${emulator.serialPath}?baud=${SERIAL.baud}&flow=rtscts`)
    if (!parsed.ok) throw new Error(parsed.message)
    await submit(parsed.connection, bytes, new AbortController().signal, { virtuals: new VirtualPrinters(), devices: new DeviceFinder() }, { profile: 'generic-80mm', width: 80 })
    const deadline = performance.now() + 30_000
    while (emulator.receipts.length === 0 && performance.now() < deadline) await Bun.sleep(20)
    const receipt = emulator.receipts[0]
    if (!receipt || receipt.bytes.length !== bytes.length) throw new Error('the serial job did not arrive whole')
    // The line carries a byte in 10 bit times (start, 8 data, stop).
    const seconds = (receipt.lastByteAt - receipt.firstByteAt) / 1000
    const lineSeconds = ((bytes.length - 1) * 10) / SERIAL.baud
    return { baud: SERIAL.baud, bytes: bytes.length, seconds: Number(seconds.toFixed(3)), share: Number((lineSeconds / seconds).toFixed(4)), lost: receipt.lost }
  } finally {
    emulator.stop()
  }
}
