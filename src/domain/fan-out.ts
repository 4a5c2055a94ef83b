// A fan-out (a job posted to a destination of mode "all"): one child job per printer, each with its
// own state, and a parent that is never dispatched and says what its children are, as one job:
//   - while any child is unfinished, the parent is in the least advanced of their states (PENDING
//     before DISPATCHING before DELIVERED before PRINTING): the order is not done yet;
//   - COMPLETED once every child is COMPLETED: it printed everywhere;
//   - otherwise, once every child is finished, the worst outcome among them: FAILED before EXPIRED
//     before CANCELLED (a child that printed does not make it COMPLETED; its message says where it
//     printed).
// The same rule for every store: it reads the children, this decides.
import type { JobState } from '../protocol/job.ts'

/** What the summary reads of each child, in the destination's order of printers. */
export interface FanOutChild {
  /** How people know its printer (its project-local ID). */
  printer: string
  state: JobState
  attemptCount: number
  lastErrorCode: string | null
  lastErrorMessage: string | null
  receivedAt: number | null
  submittedAt: number | null
  updatedAt: number
}

/**
 * The parent as its children make it: the same fields as a child's. Its attempts are the most any
 * child made; it was received (and submitted) when the last child was, null until every child was.
 */
export type FanOutSummary = Omit<FanOutChild, 'printer'>

/**
 * Unfinished states, least advanced first; then finished ones, worst first (COMPLETED last): a parent is in the first
 * any child is in.
 */
export const FAN_OUT_STATE_ORDER: readonly JobState[] = [
  'PENDING',
  'DISPATCHING',
  'DELIVERED',
  'PRINTING',
  'FAILED',
  'EXPIRED',
  'CANCELLED',
  'COMPLETED',
]

/** The parent's state: the first of FAN_OUT_STATE_ORDER that any child is in. */
export function fanOutState(states: readonly JobState[]): JobState {
  let best = FAN_OUT_STATE_ORDER.length - 1
  for (const state of states) best = Math.min(best, FAN_OUT_STATE_ORDER.indexOf(state))
  return FAN_OUT_STATE_ORDER[best]!
}

const lastOf = (values: readonly (number | null)[]): number | null =>
  values.some((value) => value === null) ? null : Math.max(...(values as number[]))

/** The parent as its children make it (at least one child). */
export function summariseFanOut(children: readonly FanOutChild[], createdAt: number): FanOutSummary {
  const state = fanOutState(children.map((child) => child.state))
  // The error is the first child's (in the destination's order) that is in the parent's state.
  const deciding = children.find((child) => child.state === state && child.lastErrorCode !== null)
  const printedAt = children.filter((child) => child.state === 'COMPLETED').map((child) => child.printer)
  let lastErrorMessage = deciding ? `${deciding.printer}: ${deciding.lastErrorMessage ?? deciding.lastErrorCode}` : null
  if (
    state !== 'COMPLETED' &&
    printedAt.length > 0 &&
    (state === 'FAILED' || state === 'EXPIRED' || state === 'CANCELLED')
  ) {
    const elsewhere = `${state.toLowerCase()} at ${children
      .filter((child) => child.state !== 'COMPLETED')
      .map((child) => child.printer)
      .join(', ')}`
    lastErrorMessage = `printed at ${printedAt.join(', ')}; ${lastErrorMessage ?? elsewhere}`
  }
  return {
    state,
    attemptCount: Math.max(0, ...children.map((child) => child.attemptCount)),
    lastErrorCode: deciding?.lastErrorCode ?? null,
    lastErrorMessage,
    receivedAt: lastOf(children.map((child) => child.receivedAt)),
    submittedAt: lastOf(children.map((child) => child.submittedAt)),
    updatedAt: Math.max(createdAt, ...children.map((child) => child.updatedAt)),
  }
}
