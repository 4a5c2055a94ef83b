// The system clock's jumps as records keep them (domain/clock.ts): age limits across a jump, and the words for one.
import { expect, test } from 'bun:test'
import { cutoffBeforeJump, jumpDistance, recordedJump } from '../../src/domain/clock.ts'

const DAY = 86_400_000
const JUMP_AT = Date.parse('2027-12-07T20:00:00Z')

test('a jump forward: until the age limit has passed the jump, older timestamps count as younger by the jump', () => {
  const jump = { at: JUMP_AT, byMs: 365 * DAY }
  // A week after the jump, with a 30-day limit: what was written before the jump is judged on its own clock.
  expect(cutoffBeforeJump(JUMP_AT + 7 * DAY - 30 * DAY, jump)).toBe(JUMP_AT - 23 * DAY - 365 * DAY)
  // 31 days after: everything from before the jump is older than 30 days on any clock.
  expect(cutoffBeforeJump(JUMP_AT + DAY, jump)).toBe(JUMP_AT + DAY)
})

test('a jump back, or none: the cutoff as it was (older timestamps kept longer by the jump, never for ever)', () => {
  expect(cutoffBeforeJump(JUMP_AT - DAY, { at: JUMP_AT, byMs: -DAY })).toBe(JUMP_AT - DAY)
  expect(cutoffBeforeJump(JUMP_AT - DAY, undefined)).toBe(JUMP_AT - DAY)
})

test('the kept jump is read back, and anything else is none', () => {
  expect(recordedJump(JSON.stringify({ at: 1, byMs: 2 }))).toEqual({ at: 1, byMs: 2 })
  for (const value of [undefined, '', 'not json', '{"at":"1","byMs":2}', 'null'])
    expect(recordedJump(value)).toBe(undefined)
})

test('the distance in words', () => {
  expect(jumpDistance(365 * DAY)).toBe('forward by 365 days')
  expect(jumpDistance(-(DAY + 3 * 3_600_000))).toBe('back by 1 day 3 h')
  expect(jumpDistance(-(3 * 3_600_000 + 20 * 60_000))).toBe('back by 3 h 20 min')
  expect(jumpDistance(12_000)).toBe('forward by 12 s')
  // Measured across a look, a jump is a few milliseconds off its round figure.
  expect(jumpDistance(-(366 * DAY - 3))).toBe('back by 366 days')
  expect(jumpDistance(2 * 3_600_000)).toBe('forward by 2 h')
})
