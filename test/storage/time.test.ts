// The job list's times: the fast path writes exactly what Date#toISOString writes.
import { expect, test } from 'bun:test'
import { iso, isoOrNull } from '../../src/storage/time.ts'

test('iso() is toISOString, for every millisecond of a minute and across years, leap days and the edges', () => {
  const starts = [
    0,
    Date.UTC(1999, 11, 31, 23, 59),
    Date.UTC(2024, 1, 29, 12, 0),
    Date.UTC(2026, 10, 26, 2, 3),
    Date.UTC(9999, 11, 31, 23, 59),
  ]
  for (const start of starts)
    for (let ms = start; ms < start + 60_000; ms += 7) expect(iso(ms)).toBe(new Date(ms).toISOString())
  // Asked again, as a list asks the same times page after page: the text of the times shown lately.
  for (let round = 0; round < 2; round++)
    for (let ms = starts[3]!; ms < starts[3]! + 3_000; ms += 3) expect(iso(ms)).toBe(new Date(ms).toISOString())
  // A random spread, the caches of minutes and of times shown filled past their bounds and emptied.
  for (let i = 0; i < 5_000; i++) {
    const ms = Math.floor(Math.random() * Date.UTC(2200, 0, 1))
    expect(iso(ms)).toBe(new Date(ms).toISOString())
  }
  // Outside the four-digit years (and fractions): the runtime's own text.
  for (const ms of [-1, -62_198_755_200_001, Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1, 8.64e15, 1.5])
    expect(iso(ms)).toBe(new Date(ms).toISOString())
  expect(isoOrNull(null)).toBeNull()
  expect(isoOrNull(1_764_122_580_123)).toBe('2025-11-26T02:03:00.123Z')
})
