// The job state machine, as the store enforces it: every job state × every event of
// JOB_TRANSITIONS, generated from the table, on a real store. An event applies exactly in the
// states its `from` lists and leads to a state its `to` lists; anywhere else the store method
// changes nothing and says so. A new state or event is covered as soon as it is in the table (a
// new event needs its store method named below, which the type checker asks for).
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import {
  canApply,
  isTerminal,
  JOB_EVENTS,
  JOB_STATE_SETS,
  JOB_TRANSITIONS,
  type JobEvent,
} from '../../src/domain/job-transitions.ts'
import { type Failure, failure } from '../../src/protocol/failures.ts'
import { type Job, JOB_STATES, type JobState } from '../../src/protocol/job.ts'
import type { Store } from '../../src/store/store.ts'
import {
  CANCEL_REQUESTABLE,
  firstStartedStore,
  jobInState,
  type JobOptions,
  type TestStore,
} from '../support/fixtures.ts'

const START = Date.parse('2026-03-01T12:00:00Z')
/** Moved before each event, so that any write shows in the job's updatedAt. */
const STEP_MS = 1_000
/** Moved past a job's expiry (the fixture's jobs expire after 60 s). */
const PAST_EXPIRY_MS = 120_000

let clock: number
let world: TestStore
beforeEach(async () => {
  clock = START
  world = await firstStartedStore(() => clock)
})
afterEach(() => world.close())

/** One way an event can go: how the job is made, and the state the event must lead to. */
interface Variant {
  name: string
  options?: JobOptions
  /** The job's time ran out before the event. */
  expired?: boolean
  /** The agent of the job's printer is revoked before the event. */
  agentRevoked?: boolean
  /** The states of `from` this branch can be reached in (all of them when absent). */
  reachableIn?: readonly JobState[]
  /** The state the event leads to; `same` for an event that leaves the state as it is. */
  expect: JobState | 'same'
  failure?: Failure
  confirmationExpected?: boolean
  /** More to check once it applied. */
  check?(store: Store, before: Job, after: Job): void
}

/** What the store method of an event says it did: whether this event applied, and the job it returned. */
interface Applied {
  applied: boolean
  returned?: Job
  /** The method writes another event too, and that one applied instead (cancel ↔ requestCancel). */
  other?: JobEvent
}

interface EventSpec {
  apply(store: Store, job: Job, variant: Variant): Applied
  variants: readonly Variant[]
}

const RETRYABLE = failure('printer.paper_out', 'Out of paper.')
const NOT_RETRYABLE = failure('render.unsupported_character', 'A character the printer cannot print.')
const fromJob = (returned: Job | undefined): Applied => ({ applied: returned !== undefined, returned })

/** Each event's store method, and the branches the event can take. */
const EVENTS = {
  dispatch: {
    apply: (store, job) => fromJob(store.jobStates.startAttempt(job.id)?.job),
    variants: [
      {
        name: 'a new attempt',
        expect: 'DISPATCHING',
        check: (_, before, after) => expect(after.attemptCount).toBe(before.attemptCount + 1),
      },
    ],
  },
  receive: {
    apply: (store, job) => fromJob(store.jobStates.markReceived(job.id, job.attemptCount, clock)),
    // A PENDING job that is received was given up by the hub first: a late receipt of its attempt.
    variants: [
      {
        name: 'the latest attempt',
        options: { attemptsGivenUp: 1 },
        expect: 'DELIVERED',
        check: (_, __, after) => expect(after.receivedAt).toBe(new Date(clock).toISOString()),
      },
    ],
  },
  submit: {
    apply: (store, job, variant) =>
      fromJob(store.jobStates.markSubmitted(job.id, job.attemptCount, clock, variant.confirmationExpected!)),
    variants: [
      {
        name: 'the printer is to confirm',
        confirmationExpected: true,
        options: { attemptsGivenUp: 1 },
        expect: 'PRINTING',
      },
      {
        name: 'the link cannot confirm',
        confirmationExpected: false,
        options: { attemptsGivenUp: 1 },
        expect: 'COMPLETED',
      },
    ],
  },
  complete: {
    apply: (store, job) => fromJob(store.jobStates.markCompleted(job.id, job.attemptCount, clock)),
    variants: [{ name: 'printed', options: { attemptsGivenUp: 1 }, expect: 'COMPLETED' }],
  },
  fail: {
    apply: (store, job, variant) =>
      fromJob(store.jobStates.failAttempt(job.id, job.attemptCount, variant.failure!, 500)),
    variants: [
      {
        name: 'retryable with attempts left: retried',
        failure: RETRYABLE,
        options: { attemptsGivenUp: 1 },
        expect: 'PENDING',
        check: (_, __, after) => expect(after.lastErrorCode).toBe(RETRYABLE.code),
      },
      {
        name: 'not retryable: FAILED, forfeiting the attempts left',
        failure: NOT_RETRYABLE,
        options: { attemptsGivenUp: 1 },
        expect: 'FAILED',
        check: (_, __, after) =>
          expect(after).toMatchObject({ attemptCount: after.maxAttempts, lastErrorCode: NOT_RETRYABLE.code }),
      },
      // A PENDING job always has an attempt left: the give-up that used the last one failed it.
      {
        name: 'the last attempt: FAILED',
        failure: RETRYABLE,
        options: { maxAttempts: 1 },
        reachableIn: JOB_STATE_SETS.attemptOut,
        expect: 'FAILED',
      },
      {
        name: 'the time ran out: EXPIRED',
        failure: RETRYABLE,
        options: { attemptsGivenUp: 1 },
        expired: true,
        expect: 'EXPIRED',
      },
      // A cancellation is pending only while an attempt is out; asked of a PENDING job, it cancels it at once.
      {
        name: 'an operator asked to cancel: CANCELLED, not tried again',
        failure: RETRYABLE,
        options: { cancelRequested: true },
        reachableIn: CANCEL_REQUESTABLE,
        expect: 'CANCELLED',
      },
      {
        name: 'an operator asked to cancel, before the printer: CANCELLED',
        failure: NOT_RETRYABLE,
        options: { cancelRequested: true },
        reachableIn: JOB_STATE_SETS.cancellableByAgent,
        expect: 'CANCELLED',
      },
      // The cancellation came too late and the printer may have printed it: said as it is.
      {
        name: 'an operator asked to cancel, but it may have printed: FAILED',
        failure: failure('printer.unconfirmed', 'It may have printed.'),
        options: { cancelRequested: true },
        reachableIn: ['PRINTING'],
        expect: 'FAILED',
        check: (_, __, after) => expect(after.lastErrorCode).toBe('printer.unconfirmed'),
      },
    ],
  },
  cancel: {
    apply: (store, job) => {
      const outcome = store.jobStates.cancel(job.id)
      return outcome.kind === 'cancelled'
        ? { applied: true, returned: outcome.job }
        : { applied: false, other: outcome.kind === 'requested' ? 'requestCancel' : undefined }
    },
    variants: [{ name: 'at once', expect: 'CANCELLED' }],
  },
  requestCancel: {
    apply: (store, job) => {
      const outcome = store.jobStates.cancel(job.id)
      return outcome.kind === 'requested'
        ? { applied: true, returned: outcome.job }
        : { applied: false, other: outcome.kind === 'cancelled' ? 'cancel' : undefined }
    },
    variants: [
      {
        name: 'the agent is asked',
        expect: 'same',
        check: (store, before) =>
          expect(store.jobStates.cancelRequests()).toEqual([
            { id: before.id, printerId: before.printerId, attempt: before.attemptCount, requestedAt: clock },
          ]),
      },
    ],
  },
  requestCancelInFlight: {
    apply: (store, job) => {
      const outcome = store.jobStates.cancel(job.id, 'requestCancelInFlight')
      return outcome.kind === 'requested'
        ? { applied: true, returned: outcome.job }
        : { applied: false, other: outcome.kind === 'cancelled' ? 'cancel' : undefined }
    },
    variants: [
      {
        name: 'an application asks, the agent is asked',
        expect: 'same',
        check: (store, before) =>
          expect(store.jobStates.cancelRequests()).toEqual([
            { id: before.id, printerId: before.printerId, attempt: before.attemptCount, requestedAt: clock },
          ]),
      },
    ],
  },
  requestCancelUnfetched: {
    apply: (store, job) => {
      const outcome = store.jobStates.cancel(job.id, 'requestCancelUnfetched')
      return outcome.kind === 'requested'
        ? { applied: true, returned: outcome.job }
        : { applied: false, other: outcome.kind === 'cancelled' ? 'cancel' : undefined }
    },
    variants: [
      {
        name: 'an application asks for a job its printer has not fetched, the agent is asked',
        expect: 'same',
        check: (store, before) =>
          expect(store.jobStates.cancelRequests()).toEqual([
            { id: before.id, printerId: before.printerId, attempt: before.attemptCount, requestedAt: clock },
          ]),
      },
    ],
  },
  agentCancelled: {
    apply: (store, job) => fromJob(store.jobStates.markCancelled(job.id)),
    variants: [{ name: 'after the operator asked', options: { cancelRequested: true }, expect: 'CANCELLED' }],
  },
  cancelUnanswered: {
    apply: (store, job) => fromJob(store.jobStates.cancelUnanswered(job.id, clock)),
    variants: [{ name: 'the agent stayed silent', options: { cancelRequested: true }, expect: 'CANCELLED' }],
  },
  expire: {
    apply: (store, job) => {
      const expired = store.jobStates.expire(100)
      return {
        applied: expired.some((e) => e.id === job.id),
        returned: expired.some((e) => e.id === job.id) ? store.jobs.get(job.id) : undefined,
      }
    },
    variants: [
      {
        name: 'its time ran out',
        expired: true,
        expect: 'EXPIRED',
        check: (_, __, after) => expect(after.lastErrorCode).toBe('job.expired'),
      },
    ],
  },
  agentGone: {
    apply: (store, job, variant) => {
      if (variant.agentRevoked) store.agents.revoke(store.printers.get(job.printerId)!.agentId)
      // No agent connected, none seen since now.
      const given = store.jobStates.giveUpOnGoneAgents([], clock).find((g) => g.id === job.id)
      return { applied: given !== undefined, returned: given }
    },
    variants: [
      {
        name: 'its agent was revoked',
        agentRevoked: true,
        expect: 'FAILED',
        check: (_, __, after) =>
          expect(after).toMatchObject({ lastErrorCode: 'job.recovery_uncertain', attemptCount: after.maxAttempts }),
      },
      {
        name: 'its agent stayed away past its expiry',
        expired: true,
        expect: 'FAILED',
        check: (_, __, after) =>
          expect(after).toMatchObject({ lastErrorCode: 'job.recovery_uncertain', attemptCount: after.maxAttempts }),
      },
    ],
  },
} as const satisfies Record<JobEvent, EventSpec>

/**
 * The options a variant asks for, as far as `state` can have them (only some states can have a cancellation pending).
 */
function optionsIn(state: JobState, variant: Variant): JobOptions {
  const { cancelRequested, attemptsGivenUp, maxAttempts } = variant.options ?? {}
  return {
    cancelRequested: cancelRequested && CANCEL_REQUESTABLE.includes(state),
    // An expired job is made already due: it cannot have been dispatched.
    attemptsGivenUp: state === 'EXPIRED' ? 0 : attemptsGivenUp,
    // A job can be given up only while it has attempts left.
    maxAttempts:
      maxAttempts !== undefined && attemptsGivenUp !== undefined
        ? Math.max(maxAttempts, attemptsGivenUp + 1)
        : maxAttempts,
  }
}

/** A job in `state`, then the clock moved (past its expiry when the variant says so). */
function prepare(state: JobState, variant: Variant): Job {
  const job = jobInState(world.store, world, state, optionsIn(state, variant))
  expect(job.state).toBe(state)
  clock += STEP_MS + (variant.expired ? PAST_EXPIRY_MS : 0)
  return job
}

const spec = (event: JobEvent): EventSpec => EVENTS[event]

describe('the table itself', () => {
  test('every event has its store method here', () => {
    expect(Object.keys(EVENTS).sort()).toEqual([...JOB_EVENTS].sort())
  })

  test('every job state is unfinished xor terminal, and the table names only job states', () => {
    for (const state of JOB_STATES) {
      const unfinished = (JOB_STATE_SETS.unfinished as readonly JobState[]).includes(state)
      expect([state, unfinished !== isTerminal(state)]).toEqual([state, true])
    }
    for (const set of Object.values(JOB_STATE_SETS)) for (const state of set) expect(JOB_STATES).toContain(state)
    for (const event of JOB_EVENTS)
      for (const state of [...JOB_TRANSITIONS[event].from, ...JOB_TRANSITIONS[event].to])
        expect(JOB_STATES).toContain(state)
  })

  test('no event leads out of a terminal state', () => {
    for (const event of JOB_EVENTS) expect([event, JOB_TRANSITIONS[event].from.filter(isTerminal)]).toEqual([event, []])
  })

  test('every unfinished state can still end: some event leads from it to a terminal state', () => {
    for (const state of JOB_STATE_SETS.unfinished) {
      expect([
        state,
        JOB_EVENTS.some((event) => canApply(event, state) && JOB_TRANSITIONS[event].to.some(isTerminal)),
      ]).toEqual([state, true])
    }
  })

  test('every branch named here is a state the event may lead to', () => {
    for (const event of JOB_EVENTS) {
      for (const variant of spec(event).variants)
        if (variant.expect !== 'same')
          expect([event, JOB_TRANSITIONS[event].to]).toEqual([event, expect.arrayContaining([variant.expect])])
    }
  })
})

for (const event of JOB_EVENTS) {
  const { from, to } = JOB_TRANSITIONS[event] as { from: readonly JobState[]; to: readonly JobState[] }
  describe(`${event}: ${from.join(', ')} → ${to.join(', ')}`, () => {
    for (const state of JOB_STATES) {
      const applies = canApply(event, state)
      for (const variant of spec(event).variants) {
        // A branch the state cannot take is still checked where the event does not apply: the state alone decides.
        if (applies && variant.reachableIn && !variant.reachableIn.includes(state)) continue
        if (applies) {
          test(`${state}, ${variant.name}: → ${variant.expect === 'same' ? state : variant.expect}`, () => {
            const before = prepare(state, variant)
            const result = spec(event).apply(world.store, before, variant)
            const after = world.store.jobs.get(before.id)!
            expect(result.applied).toBe(true)
            expect(result.returned).toEqual(after)
            expect(to).toContain(after.state)
            expect(after.state).toBe(variant.expect === 'same' ? state : variant.expect)
            expect(after.updatedAt).toBe(new Date(clock).toISOString())
            variant.check?.(world.store, before, after)
          })
        } else {
          test(`${state}, ${variant.name}: refused, nothing changes`, () => {
            const before = prepare(state, variant)
            const result = spec(event).apply(world.store, before, variant)
            const after = world.store.jobs.get(before.id)!
            expect(result.applied).toBe(false)
            expect(result.returned).toBeUndefined()
            const other = result.other
            if (other !== undefined) {
              // One store method writes both: the other event applied, as its own cases check.
              expect(canApply(other, state)).toBe(true)
              expect(JOB_TRANSITIONS[other].to as readonly JobState[]).toContain(after.state)
              expect(after.attemptCount).toBe(before.attemptCount)
            } else {
              expect(after).toEqual(before)
            }
          })
        }
      }
    }
  })
}

test('reports always name an attempt the dispatcher started: attempt 0 changes nothing', () => {
  const never = jobInState(world.store, world, 'PENDING')
  expect(world.store.jobStates.markReceived(never.id, 0, clock)).toBeUndefined()
  expect(world.store.jobStates.markSubmitted(never.id, 0, clock, false)).toBeUndefined()
  expect(world.store.jobStates.markCompleted(never.id, 0, clock)).toBeUndefined()
  expect(world.store.jobStates.failAttempt(never.id, 0, RETRYABLE, 0)).toBeUndefined()
  expect(world.store.jobs.get(never.id)).toEqual(never)
})

test(
  'a completion that also says when the job was submitted: that moment is ' + 'kept, not overwritten by a later one',
  () => {
    const delivered = jobInState(world.store, world, 'DELIVERED')
    const submittedAt = clock + 100
    const completed = world.store.jobStates.markCompleted(
      delivered.id,
      delivered.attemptCount,
      clock + 300,
      submittedAt,
    )!
    expect(completed).toMatchObject({
      state: 'COMPLETED',
      submittedAt: new Date(submittedAt).toISOString(),
      receivedAt: delivered.receivedAt,
    })
    // A job reported submitted before keeps that moment; a replayed completion changes nothing.
    const printing = jobInState(world.store, world, 'PRINTING')
    expect(
      world.store.jobStates.markCompleted(printing.id, printing.attemptCount, clock + 500, clock + 400)!.submittedAt,
    ).toBe(printing.submittedAt)
    expect(
      world.store.jobStates.markCompleted(delivered.id, delivered.attemptCount, clock + 900, clock + 800),
    ).toBeUndefined()
  },
)

test("a retried job's completion says when its own bytes went, not the failed attempt's", () => {
  const states = world.store.jobStates
  const first = jobInState(world.store, world, 'PRINTING')
  const firstSubmittedAt = first.submittedAt
  clock += STEP_MS
  // The printer ran out of paper after it took the bytes: PENDING, to try again.
  expect(states.failAttempt(first.id, first.attemptCount, RETRYABLE, 0)!.state).toBe('PENDING')
  clock += STEP_MS
  const second = states.startAttempt(first.id)!
  expect(states.markReceived(first.id, second.attempt, clock)!.state).toBe('DELIVERED')
  clock += STEP_MS
  const done = states.markCompleted(first.id, second.attempt, clock + 20, clock + 10)!
  expect(done).toMatchObject({
    state: 'COMPLETED',
    submittedAt: new Date(clock + 10).toISOString(),
    receivedAt: new Date(clock - STEP_MS).toISOString(),
  })
  expect(done.submittedAt).not.toBe(firstSubmittedAt)
})

describe('jobs whose agent is gone', () => {
  test('held past their expiry, they are given up only when the agent is neither connected nor back since', () => {
    const held = jobInState(world.store, world, 'DELIVERED')
    const agentId = world.store.printers.get(held.printerId)!.agentId
    clock += STEP_MS
    // Not expired yet: the agent may still report, whatever it is doing.
    expect(world.store.jobStates.giveUpOnGoneAgents([], clock)).toEqual([])
    clock += PAST_EXPIRY_MS
    // Expired, but its agent is connected (it will report), or was seen after the moment asked about.
    expect(world.store.jobStates.giveUpOnGoneAgents([agentId], clock)).toEqual([])
    world.store.agents.seen(agentId)
    expect(world.store.jobStates.giveUpOnGoneAgents([], clock - 1)).toEqual([])
    expect(world.store.jobs.get(held.id)!.state).toBe('DELIVERED')
    // Away since then: given up.
    expect(
      world.store.jobStates.giveUpOnGoneAgents([], clock).map((job) => [job.id, job.state, job.lastErrorCode]),
    ).toEqual([[held.id, 'FAILED', 'job.recovery_uncertain']])
  })
})
