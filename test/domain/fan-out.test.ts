// The fan-out's summary rule: the parent's state from its children's, every combination of two
// children's states checked against the rule as the design states it, and what the parent says
// of its children (error, attempts, times).
import { describe, expect, test } from 'bun:test'
import { type FanOutChild, fanOutState, summariseFanOut } from '../../src/domain/fan-out.ts'
import { JOB_STATES, type JobState } from '../../src/protocol/job.ts'

const UNFINISHED: JobState[] = ['PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING']

/** The rule as written in docs/destinations.md, stated plainly. */
function expected(states: JobState[]): JobState {
  const unfinished = UNFINISHED.filter((state) => states.includes(state))
  if (unfinished.length > 0) return unfinished[0]!
  if (states.every((state) => state === 'COMPLETED')) return 'COMPLETED'
  for (const worst of ['FAILED', 'EXPIRED', 'CANCELLED'] as const) if (states.includes(worst)) return worst
  throw new Error('unreachable')
}

const child = (printer: string, state: JobState, more: Partial<FanOutChild> = {}): FanOutChild => ({
  printer,
  state,
  attemptCount: 0,
  lastErrorCode: null,
  lastErrorMessage: null,
  receivedAt: null,
  submittedAt: null,
  updatedAt: 1_000,
  ...more,
})

describe('a fan-out summarised', () => {
  test('every pair and triple of states gives the state the rule says', () => {
    for (const a of JOB_STATES)
      for (const b of JOB_STATES) {
        expect({ states: [a, b], state: fanOutState([a, b]) }).toEqual({ states: [a, b], state: expected([a, b]) })
        for (const c of JOB_STATES) expect(fanOutState([a, b, c])).toBe(expected([a, b, c]))
      }
    for (const state of JOB_STATES) expect(fanOutState([state])).toBe(state)
  })

  test(
    'its error is the first child in its state with one, named by its ' +
      'printer; a fan-out that printed somewhere says where',
    () => {
      const failed = summariseFanOut(
        [
          child('kitchen', 'COMPLETED'),
          child('bar', 'FAILED', {
            lastErrorCode: 'printer.paper_out',
            lastErrorMessage: 'out of paper',
            attemptCount: 3,
          }),
        ],
        0,
      )
      expect(failed).toMatchObject({
        state: 'FAILED',
        lastErrorCode: 'printer.paper_out',
        lastErrorMessage: 'printed at kitchen; bar: out of paper',
        attemptCount: 3,
      })
      const cancelled = summariseFanOut([child('kitchen', 'COMPLETED'), child('bar', 'CANCELLED')], 0)
      expect(cancelled).toMatchObject({
        state: 'CANCELLED',
        lastErrorCode: null,
        lastErrorMessage: 'printed at kitchen; cancelled at bar',
      })
      const waiting = summariseFanOut(
        [
          child('kitchen', 'PENDING', { lastErrorCode: 'printer.offline', lastErrorMessage: 'offline' }),
          child('bar', 'PENDING'),
        ],
        0,
      )
      expect(waiting).toMatchObject({
        state: 'PENDING',
        lastErrorCode: 'printer.offline',
        lastErrorMessage: 'kitchen: offline',
      })
      expect(summariseFanOut([child('kitchen', 'COMPLETED'), child('bar', 'COMPLETED')], 0)).toMatchObject({
        state: 'COMPLETED',
        lastErrorCode: null,
        lastErrorMessage: null,
      })
    },
  )

  test('received and submitted once every child was, at the last one; updated at the latest change', () => {
    const partly = summariseFanOut(
      [
        child('kitchen', 'COMPLETED', { receivedAt: 10, submittedAt: 20, updatedAt: 20 }),
        child('bar', 'DELIVERED', { receivedAt: 15, updatedAt: 15 }),
      ],
      5,
    )
    expect(partly).toMatchObject({ state: 'DELIVERED', receivedAt: 15, submittedAt: null, updatedAt: 20 })
    const all = summariseFanOut(
      [
        child('kitchen', 'COMPLETED', { receivedAt: 10, submittedAt: 20, updatedAt: 20 }),
        child('bar', 'COMPLETED', { receivedAt: 15, submittedAt: 30, updatedAt: 31 }),
      ],
      5,
    )
    expect(all).toMatchObject({ receivedAt: 15, submittedAt: 30, updatedAt: 31 })
  })
})
