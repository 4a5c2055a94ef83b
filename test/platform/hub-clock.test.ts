// The hub's clock (platform/hub-clock.ts) with both clocks in the test's hands. The hub under a moved wall clock
// (libfaketime) is test/delivery/clock-jumps.test.ts.
import { expect, test } from 'bun:test'
import { CLOCK_JUMP_MS, HubClock } from '../../src/platform/hub-clock.ts'

function clocks() {
  const at = { wall: Date.parse('2026-12-07T20:00:00Z'), monotonic: 1_000 }
  const clock = new HubClock({ wall: () => at.wall, monotonic: () => at.monotonic })
  const pass = (ms: number) => {
    at.wall += ms
    at.monotonic += ms
  }
  return { at, clock, pass }
}

test('the hub time moves with the monotonic clock, not with the wall clock set', () => {
  const { at, clock, pass } = clocks()
  const start = clock.now()
  pass(60_000)
  expect(clock.now()).toBe(start + 60_000)
  at.wall += 365 * 86_400_000
  expect(clock.now()).toBe(start + 60_000)
  pass(1_000)
  expect(clock.now()).toBe(start + 61_000)
})

test('a look finds a jump either way, once it is beyond the bound, and the hub time follows only when told', () => {
  const { at, clock, pass } = clocks()
  const start = clock.now()
  at.wall += 365 * 86_400_000
  const jump = clock.look()
  expect(jump).toEqual({ from: start, to: start + 365 * 86_400_000, byMs: 365 * 86_400_000 })
  expect(clock.now()).toBe(start)
  clock.follow()
  expect(clock.now()).toBe(start + 365 * 86_400_000)
  expect(clock.look()).toBeUndefined()
  pass(10_000)
  at.wall -= 86_400_000
  expect(clock.look()?.byMs).toBe(-86_400_000)
})

test('a wall clock slewed within the bound is followed quietly', () => {
  const { at, clock, pass } = clocks()
  pass(1_000)
  at.wall += CLOCK_JUMP_MS
  expect(clock.look()).toBeUndefined()
  expect(clock.now()).toBe(at.wall)
  at.wall += CLOCK_JUMP_MS + 1
  expect(clock.look()?.byMs).toBe(CLOCK_JUMP_MS + 1)
})
