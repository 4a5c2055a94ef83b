// The job state machine of domain/job-transitions.ts, written where the state is stored: each event
// is one guarded statement whose list of states comes from the table, so duplicate, late and
// replayed reports change nothing. This is the only writer of a job's state. Every change goes
// into the group commit, and none waits for the disk. Dispatch and receipt are deferred: a crash
// may take them back, and they are learned again (a job still DISPATCHING is sent again, and its
// agent answers it as the same job).
import type { Database } from 'bun:sqlite'
import { type CancelRequest, JOB_STATE_SETS } from '../domain/job-transitions.ts'
import type { Failure } from '../protocol/failures.ts'
import type { Job, JobState } from '../protocol/job.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import type { JobLog } from './job-log.ts'
import { type JobRow, JOB_COLUMNS, toJob } from './job-rows.ts'
import { type Attempt, JobStateReads } from './job-state-reads.ts'
import { from, type GuardedStatements, guardedStatements } from './job-state-statements.ts'
import { cancelJob } from '../storage/job-cancel.ts'
import type { CancelView, Db, JobStateRepository, Repositories } from '../storage/repositories.ts'
import { answeringAtOnce, runNow } from '../storage/unit.ts'
import { AGENT_AWAY, AGENT_REVOKED, EXPIRED } from '../storage/job-failures.ts'
import { stateIn } from './sql.ts'
import type { CancelOutcome } from '../domain/job-queries.ts'

export type { CancelOutcome }

export { type HeldJob, QUEUE_HEAD_SQL } from './job-state-reads.ts'

/**
 * The jobs held by agents that are revoked, or away (not connected, and not seen since
 * `$awaySince`): from those agents to their printers (removed ones too) to the jobs along the
 * index of jobs with an agent, so that the jobs of connected agents are never read, however many.
 */
export const GONE_AGENTS_JOBS_SQL = `SELECT j.id, j.state, a.revoked_at IS NOT NULL AS revoked,
    j.expires_at <= $now AS expired
  FROM agents a CROSS JOIN printers p CROSS JOIN jobs j INDEXED BY jobs_with_agent
  WHERE (a.revoked_at IS NOT NULL
      OR (a.id NOT IN (SELECT value FROM json_each($connected)) AND coalesce(a.last_seen_at, 0) <= $awaySince))
    AND p.agent_id = a.id AND j.printer_id = p.id AND j.${stateIn(JOB_STATE_SETS.withAgent)}`

/** Reports name an attempt the dispatcher started: the first is 1 (a job never sent has none). */
const isAttempt = (attempt: number): boolean => Number.isSafeInteger(attempt) && attempt >= 1

export class JobStates extends JobStateReads implements JobStateRepository {
  private readonly sql: GuardedStatements

  constructor(
    db: Database,
    private readonly commits: GroupCommit,
    private readonly now: () => number,
    private readonly log: JobLog,
  ) {
    super(db)
    this.sql = guardedStatements(db)
  }

  /**
   * Runs a guarded statement on job `id` (inside the open transaction) and logs the change it made,
   * with the state the job was in before; when nothing is logged, that state is not even read.
   */
  private change<R extends JobRow>(id: string, update: () => R | null, attempt?: number): R | null {
    if (!this.log.enabled) return update()
    const before = this.sql.stateNow.get(id)?.state
    const row = update()
    // A failure that forfeits the attempts left counts them all; the line names the one that failed.
    if (row && before)
      this.log.changed(before, attempt === undefined ? row : { ...row, attempt_count: attempt }, toJob(row))
    return row
  }

  /** PENDING → DISPATCHING: a new attempt starts. Undefined when the job is no longer PENDING, or expired. */
  startAttempt(id: string): Attempt | undefined {
    const now = this.now()
    const row = this.commits.defer(() => this.change(id, () => this.sql.start.get(now, now, id)))
    return row
      ? { job: toJob(row), attempt: row.attempt_count, dispatchedAt: row.dispatched_at, movedNote: row.moved_note }
      : undefined
  }

  /** The head of the printer's queue, when it is PENDING and due, started (the claim of a cluster's node). */
  claim(printerId: string): Attempt | undefined {
    const head = this.queueHead(printerId)
    if (head?.state !== 'PENDING' || (head.notBefore !== null && head.notBefore > this.now())) return undefined
    return this.startAttempt(head.id)
  }

  markReceived(id: string, attempt: number, receivedAt: number): Job | undefined {
    if (!isAttempt(attempt)) return undefined
    const row = this.commits.defer(() =>
      this.change(id, () => this.sql.received.get(receivedAt, this.now(), id, attempt)),
    )
    return row ? toJob(row) : undefined
  }

  /** The printer backend took every byte: PRINTING while a confirmation is expected, else COMPLETED. */
  markSubmitted(id: string, attempt: number, submittedAt: number, confirmationExpected: boolean): Job | undefined {
    if (!isAttempt(attempt)) return undefined
    const row = this.commits.write(() =>
      this.change(id, () =>
        this.sql.submitted.get(confirmationExpected ? 'PRINTING' : 'COMPLETED', submittedAt, this.now(), id, attempt),
      ),
    )
    return row ? toJob(row) : undefined
  }

  /** The printer printed the job (the report says when it took the bytes, else that moment is the completion's). */
  markCompleted(id: string, attempt: number, completedAt: number, submittedAt = completedAt): Job | undefined {
    if (!isAttempt(attempt)) return undefined
    const row = this.commits.write(() =>
      this.change(id, () => this.sql.completed.get(submittedAt, this.now(), id, attempt)),
    )
    return row ? toJob(row) : undefined
  }

  /** The current attempt failed: back to PENDING after `backoffMs`, or FAILED, EXPIRED or CANCELLED. */
  failAttempt(id: string, attempt: number, failure: Failure, backoffMs: number): Job | undefined {
    if (!isAttempt(attempt)) return undefined
    const now = this.now()
    const row = this.commits.write(() =>
      this.change(
        id,
        () =>
          this.sql.failed.get({
            now,
            notBefore: now + backoffMs,
            code: failure.code,
            message: failure.message,
            retryable: failure.retryable ? 1 : 0,
            id,
            attempt,
          }),
        attempt,
      ),
    )
    return row ? toJob(row) : undefined
  }

  /** The agent stopped a job whose cancellation was asked for. */
  markCancelled(id: string): Job | undefined {
    const row = this.commits.write(() => this.change(id, () => this.sql.cancelledByAgent.get(this.now(), id)))
    return row ? toJob(row) : undefined
  }

  /**
   * A cancellation (storage/job-cancel.ts says how): a PENDING job at once; a dispatched one is marked, and the agent
   * is asked, when `request` applies to its state.
   */
  cancel(id: string, request: CancelRequest = 'requestCancel'): CancelOutcome {
    this.atOnce ??= answeringAtOnce<Repositories>({ jobStates: this })
    const db = this.atOnce
    return this.commits.write(() => runNow(cancelJob(db, id, request), {}))
  }

  /** The store's steps, answered at once, as the cancellation unit calls them. */
  private atOnce: Db | undefined

  forCancel(id: string): CancelView | undefined {
    const row = this.db
      .query<JobRow & { cancel_requested_at: number | null }, [string]>(
        `SELECT ${JOB_COLUMNS}, cancel_requested_at FROM jobs WHERE id = ?`,
      )
      .get(id)
    return row ? { job: toJob(row), cancelRequested: row.cancel_requested_at !== null } : undefined
  }

  cancelNow(id: string, was: JobState): Job | undefined {
    const done = this.db
      .query<JobRow, [number, string]>(
        `UPDATE jobs SET state = 'CANCELLED', updated_at = ?1 WHERE id = ?2 AND
          ${from('cancel')} RETURNING ${JOB_COLUMNS}`,
      )
      .get(this.now(), id)
    if (!done) return undefined
    this.log.changed(was, done, toJob(done))
    return toJob(done)
  }

  requestCancel(id: string, request: CancelRequest): Job | undefined {
    const marked = this.db
      .query<JobRow & { first: number }, [number, string]>(
        `UPDATE jobs SET cancel_requested_at = coalesce(cancel_requested_at, ?1),
          updated_at = ?1 WHERE id = ?2 AND ${from(request)} RETURNING
          ${JOB_COLUMNS}, cancel_requested_at = ?1 AS first`,
      )
      .get(this.now(), id)
    if (!marked) return undefined
    if (marked.first) this.log.noted(marked, 'cancellation requested; the agent is asked to stop it')
    return toJob(marked)
  }

  /** Settles a cancellation the agent never answered (a stock agent has no answer to give). */
  cancelUnanswered(id: string, requestedBefore: number): Job | undefined {
    const row = this.commits.write(() =>
      this.change(id, () =>
        this.db
          .query<JobRow, [number, string, number]>(
            `UPDATE jobs SET state = 'CANCELLED', updated_at = ?1
             WHERE id = ?2 AND cancel_requested_at <= ?3 AND ${from('cancelUnanswered')} RETURNING ${JOB_COLUMNS}`,
          )
          .get(this.now(), id, requestedBefore),
      ),
    )
    return row ? toJob(row) : undefined
  }

  /**
   * PENDING or DISPATCHING jobs whose time ran out become EXPIRED, at most `limit` of them (each
   * call holds the event loop); returns them as they were.
   */
  expire(limit: number): { id: string; printerId: string; state: 'PENDING' | 'DISPATCHING'; attempt: number }[] {
    const now = this.now()
    const due = this.db
      .query<
        { id: string; project_id: string; printer_id: string; state: 'PENDING' | 'DISPATCHING'; attempt_count: number },
        [number, number]
      >(
        `SELECT id, project_id, printer_id, state, attempt_count FROM jobs WHERE
          ${from('expire')} AND expires_at <= ? ORDER BY expires_at LIMIT ?`,
      )
      .all(now, limit)
    // Looked for twice a second: the write lock is taken only when something is due.
    if (due.length === 0) return []
    const update = this.db.query<never, [string, string, number, string]>(
      `UPDATE jobs SET state = 'EXPIRED', last_error_code = ?1,
        last_error_message = ?2, updated_at = ?3 WHERE id = ?4 AND
        ${from('expire')}`,
    )
    const expired = this.commits.write(() =>
      due.filter((job) => update.run(EXPIRED.code, EXPIRED.message, now, job.id).changes === 1),
    )
    for (const job of expired) this.log.changed(job.state, { ...job, state: 'EXPIRED', last_error_code: EXPIRED.code })
    return expired.map((j) => ({ id: j.id, printerId: j.printer_id, state: j.state, attempt: j.attempt_count }))
  }

  /**
   * Jobs an agent holds that it will never report on: its agent was revoked, or has not been
   * connected since `awaySince` (and is not in `connected`) while the job's time ran out. They end
   * FAILED `job.recovery_uncertain` (they may have printed); returned as they are now.
   */
  giveUpOnGoneAgents(connected: readonly string[], awaySince: number): Job[] {
    const now = this.now()
    const held = this.db
      .query<
        { id: string; state: JobState; revoked: number; expired: number },
        { now: number; connected: string; awaySince: number }
      >(GONE_AGENTS_JOBS_SQL)
      .all({ now, connected: JSON.stringify(connected), awaySince })
    // The write lock is taken only when one is due.
    const due = held.filter((job) => job.revoked || job.expired)
    if (due.length === 0) return []
    const give = this.db.query<JobRow, [string, string, number, string]>(
      `UPDATE jobs SET state = 'FAILED', attempt_count = max_attempts, last_error_code = ?1, last_error_message = ?2,
         updated_at = ?3
       WHERE id = ?4 AND ${from('agentGone')} RETURNING ${JOB_COLUMNS}`,
    )
    const given = this.commits.write(() =>
      due.flatMap((job) => {
        const reason = job.revoked ? AGENT_REVOKED : AGENT_AWAY
        const row = give.get(reason.code, reason.message, now, job.id)
        return row ? [{ from: job.state, row }] : []
      }),
    )
    const jobs = given.map(({ row }) => toJob(row))
    for (const [i, { from, row }] of given.entries()) this.log.changed(from, row, jobs[i])
    return jobs
  }
}
