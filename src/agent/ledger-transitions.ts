// The agent's job state machine (OpenPrinter v1 section 7.3, with printhub's `submitted` while the
// printer has yet to confirm) as a table: for each event, the states it applies to and the state it
// leads to. The ledger decides whether an event applies; its callers only name the event.

export type LedgerState = 'received' | 'submitting' | 'submitted' | 'completed' | 'failed' | 'cancelled'

export const LEDGER_TRANSITIONS = {
  /** The record of intent, before a byte goes to the printer. */
  claim: { from: ['received'], to: 'submitting' },
  /**
   * After a crash of the process, a claim whose job was never handed to its transport (it has no
   * hand-over mark, hand-over-marks.ts): the job waits again as if it had never been started.
   */
  resume: { from: ['submitting'], to: 'received' },
  /** The printer took every byte and is to confirm it printed them. */
  submit: { from: ['submitting'], to: 'submitted' },
  /** Printed: the printer said so, or took every byte on a link that cannot tell. */
  complete: { from: ['submitting', 'submitted'], to: 'completed' },
  fail: { from: ['received', 'submitting', 'submitted'], to: 'failed' },
  /** Stopped before it printed: not yet started, or its write could still be stopped. */
  cancel: { from: ['received', 'submitting'], to: 'cancelled' },
} as const satisfies Record<string, { from: readonly LedgerState[]; to: LedgerState }>

export type LedgerEvent = keyof typeof LEDGER_TRANSITIONS
/** The events an agent reports to its hub (the others are its own bookkeeping around the printer). */
export type ReportedLedgerEvent = Exclude<LedgerEvent, 'claim' | 'resume'>

/** Named sets of states. */
export const LEDGER_STATE_SETS = {
  /** A printer's queue on the agent: stored, or being written (the next waits for it). */
  queued: ['received', 'submitting'],
  /** Stored and not started. */
  waiting: ['received'],
  /** Stored and not finished: waiting, being written, or awaiting the printer's word. */
  unfinished: ['received', 'submitting', 'submitted'],
  /** Between the record of intent and the record of the result: a crash here may have printed. */
  interrupted: ['submitting', 'submitted'],
  /** States a job never leaves; its payload is dropped. */
  finished: ['completed', 'failed', 'cancelled'],
} as const satisfies Record<string, readonly LedgerState[]>

/** `state IN (...)` for a set of states, always from the tables above (never from input). */
export function ledgerStateIn(states: readonly LedgerState[]): string {
  return `state IN (${states.map((state) => `'${state}'`).join(', ')})`
}
