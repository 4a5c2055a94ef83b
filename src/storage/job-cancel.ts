// Cancelling a job, written once for both stores: a PENDING job at once; a dispatched one marked and its agent asked
// (it ends CANCELLED unless the agent says it already submitted it), when the request applies to its state; else too
// late or finished. The states each step applies to are the table's (domain/job-transitions.ts).
import type { CancelOutcome } from '../domain/job-queries.ts'
import { canApply, type CancelRequest, isTerminal, JOB_STATE_SETS } from '../domain/job-transitions.ts'
import type { JobState } from '../protocol/job.ts'
import type { Db } from './repositories.ts'
import type { Unit } from './unit.ts'

/**
 * The cancellation `request` of job `id`: an operator's (`requestCancel`) applies to any job not yet printing; an
 * application's to a job its agent has not confirmed it holds (`requestCancelInFlight`), or, for a printer that
 * polls, one the printer has not fetched (`requestCancelUnfetched`).
 */
export function* cancelJob(db: Db, id: string, request: CancelRequest = 'requestCancel'): Unit<CancelOutcome> {
  const found = yield* db.jobStates.forCancel(id)
  if (!found) return { kind: 'unknown' }
  const { job, cancelRequested } = found
  if (canApply('cancel', job.state)) {
    const done = yield* db.jobStates.cancelNow(id, job.state)
    if (done) return { kind: 'cancelled', job: done }
  }
  // Asked before and still open (the agent confirmed receipt since): the same request, still waited on.
  if (cancelRequested && canApply('requestCancel', job.state)) return { kind: 'requested', job }
  if (canApply(request, job.state)) {
    const marked = yield* db.jobStates.requestCancel(id, request)
    if (marked) return { kind: 'requested', job: marked }
  }
  // With the agent (an application's cancel, unless its printer polls and has not fetched it), at the printer or
  // printed: too late; else finished.
  const tooLate = !isTerminal(job.state) || (JOB_STATE_SETS.atPrinter as readonly JobState[]).includes(job.state)
  return { kind: tooLate ? 'too_late' : 'finished', job }
}
