// The job state machine (design: architecture.md, "Job states") as a table: for each event, the
// states a job may be in for it to apply, and the states it may lead to. The store's guarded
// statements take their state lists from here, so a duplicate, late or replayed report changes
// nothing; a store of another kind (PostgreSQL) takes the same table.
import type { JobState } from '../protocol/job.ts'

/** Named sets of states. */
export const JOB_STATE_SETS = {
  /** Not yet with the agent: the printer's queue. */
  queued: ['PENDING', 'DISPATCHING'],
  /** The agent holds the job and has not said how it ended. */
  withAgent: ['DELIVERED', 'PRINTING'],
  /** An attempt is out: sent, and the agent may have it. */
  attemptOut: ['DISPATCHING', 'DELIVERED', 'PRINTING'],
  /** Cancellable by asking the agent: sent, not yet printing. */
  cancellableByAgent: ['DISPATCHING', 'DELIVERED'],
  /** The printer has it, or printed it: too late to cancel. */
  atPrinter: ['PRINTING', 'COMPLETED'],
  unfinished: ['PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING'],
  terminal: ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'],
} as const satisfies Record<string, readonly JobState[]>

const S = JOB_STATE_SETS

export interface Transition {
  readonly from: readonly JobState[]
  /** Where the job may go; a job it does not apply to stays as it is. */
  readonly to: readonly JobState[]
}

export const JOB_TRANSITIONS = {
  /** The dispatcher starts an attempt (not once the job's time ran out). */
  dispatch: { from: ['PENDING'], to: ['DISPATCHING'] },
  /** The agent confirms it stored the latest attempt; also after the hub gave that attempt up. */
  receive: { from: S.queued, to: ['DELIVERED'] },
  /** The printer took every byte of any attempt: PRINTING while a confirmation is expected. */
  submit: { from: [...S.queued, 'DELIVERED'], to: ['PRINTING', 'COMPLETED'] },
  /** The printer said it printed. */
  complete: { from: S.unfinished, to: ['COMPLETED'] },
  /**
   * The latest attempt failed. In this order: CANCELLED when an operator asked to cancel it (unless
   * it was at the printer and may have printed: then FAILED); FAILED when it cannot succeed by
   * retrying or no attempt is left; EXPIRED when its time ran out; else back to PENDING to retry.
   */
  fail: { from: S.unfinished, to: ['PENDING', 'FAILED', 'EXPIRED', 'CANCELLED'] },
  /** An operator cancels a job still waiting: at once. */
  cancel: { from: ['PENDING'], to: ['CANCELLED'] },
  /** An operator cancels a job sent to its agent: the agent is asked; the job stays in its state. */
  requestCancel: { from: S.cancellableByAgent, to: S.cancellableByAgent },
  /**
   * An application cancels a job on its way to its agent, not yet confirmed received: the agent is
   * asked, as for an operator. One the agent confirmed it holds is not the application's to cancel.
   */
  requestCancelInFlight: { from: ['DISPATCHING'], to: ['DISPATCHING'] },
  /**
   * An application cancels a job for a printer that polls the hub (CloudPRNT, Server Direct Print)
   * that the printer has not fetched: on its way to its agent, or held there while it is only
   * offered. The agent is asked, as for an operator, and decides: it stops the job unless the
   * printer fetched it meanwhile.
   */
  requestCancelUnfetched: { from: ['DISPATCHING', 'DELIVERED'], to: ['DISPATCHING', 'DELIVERED'] },
  /** The agent stopped a job whose cancellation was asked for. */
  agentCancelled: { from: S.cancellableByAgent, to: ['CANCELLED'] },
  /** An agent that never answers cancellations (a stock one) is taken at its silence. */
  cancelUnanswered: { from: S.cancellableByAgent, to: ['CANCELLED'] },
  /** The job's time ran out before it reached its agent. */
  expire: { from: S.queued, to: ['EXPIRED'] },
  /**
   * The agent that holds the job will not say how it ended: it was revoked, or it has stayed away
   * past the job's expiry. It may have printed: FAILED, for a person to decide.
   */
  agentGone: { from: S.withAgent, to: ['FAILED'] },
} as const satisfies Record<string, Transition>

export type JobEvent = keyof typeof JOB_TRANSITIONS
/** The events by which a cancellation is asked of a dispatched job's agent: an operator's, and an application's. */
export type CancelRequest = Extract<JobEvent, 'requestCancel' | 'requestCancelInFlight' | 'requestCancelUnfetched'>
export const JOB_EVENTS = Object.keys(JOB_TRANSITIONS) as JobEvent[]

/** Whether `event` applies to a job in `state`. */
export function canApply(event: JobEvent, state: JobState): boolean {
  return (JOB_TRANSITIONS[event].from as readonly JobState[]).includes(state)
}

export function isTerminal(state: JobState): boolean {
  return (S.terminal as readonly JobState[]).includes(state)
}
