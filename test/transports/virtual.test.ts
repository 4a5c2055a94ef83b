// Virtual printers keep what they printed for the preview, bounded by count per printer and by
// bytes for all of them, so a hub printing to them for months stays the same size.
import { describe, expect, test } from 'bun:test'
import type { Connection } from '../../src/domain/connection-uri.ts'
import { VIRTUAL_KEEP, VirtualPrinters } from '../../src/transports/virtual.ts'

const paper = { model: 'generic-escpos', width: 80 } as never
const printer = (name: string): Extract<Connection, { kind: 'virtual' }> => ({
  kind: 'virtual',
  name,
  mode: 'ok',
  delayMs: 0,
})
const job = (size: number, fill: number) => new Uint8Array(size).fill(fill)
const submit = (virtuals: VirtualPrinters, name: string, bytes: Uint8Array) =>
  virtuals.submit(printer(name), bytes, new AbortController().signal, paper)

describe('virtual printers keep a bounded history', () => {
  test('the newest jobs of each printer, at most the count per printer', async () => {
    const virtuals = new VirtualPrinters({ jobsPerPrinter: 3, bytes: 1_000_000 })
    for (let n = 1; n <= 5; n++) expect(await submit(virtuals, 'bar', job(10, n))).toEqual({ ok: true })
    await submit(virtuals, 'kitchen', job(10, 9))
    expect(virtuals.printed('bar').map((output) => output.bytes[0])).toEqual([3, 4, 5])
    expect(virtuals.printed('kitchen').map((output) => output.bytes[0])).toEqual([9])
    expect(virtuals.keptBytes).toBe(40)
  })

  test('the bytes of all printers together: the oldest job of any printer goes first', async () => {
    const virtuals = new VirtualPrinters({ jobsPerPrinter: 100, bytes: 1_000 })
    await submit(virtuals, 'bar', job(400, 1))
    await submit(virtuals, 'kitchen', job(400, 2))
    await submit(virtuals, 'bar', job(400, 3))
    expect(virtuals.printed('bar').map((output) => output.bytes[0])).toEqual([3])
    expect(virtuals.printed('kitchen').map((output) => output.bytes[0])).toEqual([2])
    expect(virtuals.keptBytes).toBe(800)
  })

  test('a job bigger than the whole budget is printed and not kept', async () => {
    const virtuals = new VirtualPrinters({ jobsPerPrinter: 100, bytes: 100 })
    expect(await submit(virtuals, 'bar', job(101, 1))).toEqual({ ok: true })
    expect(virtuals.printed('bar')).toEqual([])
    expect(virtuals.keptBytes).toBe(0)
  })

  test('by default: 100 jobs per printer and 16 MiB in all, whatever is sent', async () => {
    const virtuals = new VirtualPrinters()
    for (let n = 0; n < 150; n++) await submit(virtuals, `printer-${n % 3}`, job(256 * 1024, n % 256))
    expect(virtuals.keptBytes).toBeLessThanOrEqual(VIRTUAL_KEEP.bytes)
    expect(virtuals.keptBytes).toBe(64 * 256 * 1024)
    for (const name of ['printer-0', 'printer-1', 'printer-2'])
      expect(virtuals.printed(name).length).toBeLessThanOrEqual(VIRTUAL_KEEP.jobsPerPrinter)
  })
})
