// The guarded statements of the job state machine's events (job-states.ts), prepared once: each
// changes a job only from a state its event applies to (the table of domain/job-transitions.ts),
// and returns the job as it is then, or nothing when the event did not apply.
import type { Database } from 'bun:sqlite'
import { JOB_TRANSITIONS, type JobEvent } from '../domain/job-transitions.ts'
import type { JobState } from '../protocol/job.ts'
import { JOB_COLUMNS, type JobRow } from './job-rows.ts'
import { stateIn } from './sql.ts'

/** The guard of an event: the job is in a state the event applies to. */
export const from = (event: JobEvent): string => stateIn(JOB_TRANSITIONS[event].from)

/**
 * Of a failure (the `failed` statement): the job ends CANCELLED, as an operator asked, unless it was at the printer and
 * the failure says it may have printed.
 */
const CANCELLED_ON_FAILURE = `cancel_requested_at IS NOT NULL AND ($retryable OR state <> 'PRINTING')`

export type GuardedStatements = ReturnType<typeof guardedStatements>

export function guardedStatements(db: Database) {
  return {
    /** A job's state now (read for the log line of a change). */
    stateNow: db.query<{ state: JobState }, [string]>('SELECT state FROM jobs WHERE id = ?'),
    start: db.query<JobRow & { dispatched_at: number; moved_note: string | null }, [number, number, string]>(
      `UPDATE jobs SET state = 'DISPATCHING', attempt_count = attempt_count + 1, dispatched_at = ?1, not_before = NULL,
         updated_at = ?2
       WHERE id = ?3 AND ${from('dispatch')} AND expires_at > ?1 RETURNING ${JOB_COLUMNS}, dispatched_at, moved_note`,
    ),
    // A late receipt of the latest attempt still counts, even after that attempt was given up.
    received: db.query<JobRow, [number, number, string, number]>(
      `UPDATE jobs SET state = 'DELIVERED', received_at = ?1, updated_at = ?2
       WHERE id = ?3 AND attempt_count = ?4 AND ${from('receive')} RETURNING ${JOB_COLUMNS}`,
    ),
    // A submission of any attempt means the ticket went to the printer.
    submitted: db.query<JobRow, [string, number, number, string, number]>(
      `UPDATE jobs SET state = ?1, submitted_at = ?2, received_at = coalesce(received_at, ?2), updated_at = ?3
       WHERE id = ?4 AND attempt_count >= ?5 AND ${from('submit')} RETURNING ${JOB_COLUMNS}`,
    ),
    // ?1: when the bytes reached the printer, unless the job is PRINTING (its submission was
    // reported, and said when). A time from an earlier attempt that failed after it is not this one's.
    completed: db.query<JobRow, [number, number, string, number]>(
      `UPDATE jobs SET state = 'COMPLETED', submitted_at = CASE WHEN state = 'PRINTING' THEN submitted_at ELSE ?1 END,
         received_at = coalesce(received_at, ?1), updated_at = ?2
       WHERE id = ?3 AND attempt_count >= ?4 AND ${from('complete')} RETURNING ${JOB_COLUMNS}`,
    ),
    // Only the latest attempt can fail; also after the hub gave it up (PENDING), since the agent's
    // word is better than the hub's guess, and while PRINTING (the printer ran out of paper, or
    // never confirmed). In this order: a job an operator asked to cancel ends CANCELLED (it is not
    // tried again), unless it was at the printer and the failure says it may have printed: that
    // is said as it is, FAILED. Otherwise one that cannot succeed by retrying, or has no attempt
    // left, ends FAILED (forfeiting the attempts left); one whose time ran out EXPIRED; the rest
    // waits for its next attempt.
    failed: db.query<
      JobRow,
      { now: number; notBefore: number; code: string; message: string; retryable: number; id: string; attempt: number }
    >(
      `UPDATE jobs SET
         state = CASE WHEN ${CANCELLED_ON_FAILURE} THEN 'CANCELLED'
                      WHEN NOT $retryable OR attempt_count >= max_attempts THEN 'FAILED'
                      WHEN expires_at <= $now THEN 'EXPIRED'
                      ELSE 'PENDING' END,
         attempt_count = CASE WHEN NOT $retryable AND NOT (${CANCELLED_ON_FAILURE}) THEN max_attempts
                              ELSE attempt_count END,
         last_error_code = $code, last_error_message = $message, not_before = $notBefore, updated_at = $now
       WHERE id = $id AND attempt_count = $attempt AND ${from('fail')} RETURNING ${JOB_COLUMNS}`,
    ),
    cancelledByAgent: db.query<JobRow, [number, string]>(
      `UPDATE jobs SET state = 'CANCELLED', updated_at = ?1
       WHERE id = ?2 AND cancel_requested_at IS NOT NULL AND ${from('agentCancelled')} RETURNING ${JOB_COLUMNS}`,
    ),
  }
}
