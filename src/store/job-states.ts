// The job state machine of domain/job-transitions.ts, written where the state is stored: each event
// is one guarded statement whose list of states comes from the table, so duplicate, late and
// replayed reports change nothing. This is the only writer of a job's state. Every change goes
// into the group commit, and none waits for the disk. Dispatch and receipt are deferred: a crash
// may take them back, and they are learned again (a job still DISPATCHING is sent again, and its
// agent answers it as the same job).
import type { Database } from 'bun:sqlite'
import { canApply, type CancelRequest, isTerminal, JOB_STATE_SETS, JOB_TRANSITIONS, type JobEvent } from '../domain/job-transitions.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import type { Job, JobState } from '../protocol/job.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import type { JobLog } from './job-log.ts'
import { type JobRow, JOB_COLUMNS, toJob } from './jobs.ts'
import { stateIn } from './sql.ts'
import { bound } from '../sqlite/bound.ts'

/** The guard of an event: the job is in a state the event applies to. */
const from = (event: JobEvent): string => stateIn(JOB_TRANSITIONS[event].from)
const { queued, withAgent, attemptOut, cancellableByAgent } = JOB_STATE_SETS

/**
 * The head of a printer's queue, along the queue's partial index: named, because without the
 * database's statistics the planner prefers the index of all the printer's jobs, and then walks
 * every finished job of the printer before the first waiting one (a dispatch cost that grew with
 * the history: 70 % of the hub's time at 60,000 jobs).
 */
export const QUEUE_HEAD_SQL = `SELECT id, state, not_before, expires_at FROM jobs INDEXED BY jobs_queue WHERE printer_id = ${bound()} AND ${stateIn(queued)} ORDER BY seq LIMIT 1`

/**
 * The jobs held by agents that are revoked, or away (not connected, and not seen since
 * `$awaySince`): from those agents to their printers (removed ones too) to the jobs along the
 * index of jobs with an agent, so that the jobs of connected agents are never read, however many.
 */
export const GONE_AGENTS_JOBS_SQL = `SELECT j.id, j.state, a.revoked_at IS NOT NULL AS revoked, j.expires_at <= $now AS expired
  FROM agents a CROSS JOIN printers p CROSS JOIN jobs j INDEXED BY jobs_with_agent
  WHERE (a.revoked_at IS NOT NULL OR (a.id NOT IN (SELECT value FROM json_each($connected)) AND coalesce(a.last_seen_at, 0) <= $awaySince))
    AND p.agent_id = a.id AND j.printer_id = p.id AND j.${stateIn(withAgent)}`

/** A job waiting at the head of its printer's queue, with what dispatching it needs. */
export interface QueueHead {
  id: string
  state: 'PENDING' | 'DISPATCHING'
  notBefore: number | null
  expiresAt: number
}

export interface Attempt {
  job: Job
  attempt: number
  dispatchedAt: number
  /** What its ticket says of its move to another printer of its destination (null: it did not move). */
  movedNote: string | null
}

/** A held job's columns; its time is its dispatch's, or its creation's when its row has none (the column came in a later migration). */
const HELD_COLUMNS = 'id, seq, attempt_count AS attempt, coalesce(dispatched_at, created_at) AS dispatchedAt'

/** A job its agent holds (DELIVERED or PRINTING): its number orders a printer's jobs. */
export interface HeldJob {
  id: string
  seq: number
  attempt: number
  dispatchedAt: number
}

export type CancelOutcome =
  | { kind: 'cancelled'; job: Job }
  | { kind: 'requested'; job: Job }
  | { kind: 'too_late'; job: Job }
  | { kind: 'finished'; job: Job }
  | { kind: 'unknown' }

/** Reports name an attempt the dispatcher started: the first is 1 (a job never sent has none). */
const isAttempt = (attempt: number): boolean => Number.isSafeInteger(attempt) && attempt >= 1

const AGENT_REVOKED = failure('job.recovery_uncertain', 'The agent that had this job was revoked before it said how the job ended; it may have printed. Check the printer and reprint if needed.')
const AGENT_AWAY = failure('job.recovery_uncertain', 'The agent that had this job went away and has not come back since the job expired; it may have printed. Check the printer and reprint if needed.')

/** The failure an expired job records. */
const EXPIRED = failure('job.expired', 'The job expired before it reached the printer.')

export class JobStates {
  private readonly head
  private readonly start
  private readonly received
  private readonly submitted
  private readonly completed
  private readonly failed
  private readonly cancelledByAgent
  private readonly stateNow

  constructor(
    private readonly db: Database,
    private readonly commits: GroupCommit,
    private readonly now: () => number,
    private readonly log: JobLog,
  ) {
    this.stateNow = db.query<{ state: JobState }, [string]>('SELECT state FROM jobs WHERE id = ?')
    this.head = db.query<{ id: string; state: QueueHead['state']; not_before: number | null; expires_at: number }, [string]>(QUEUE_HEAD_SQL)
    this.start = db.query<JobRow & { dispatched_at: number; moved_note: string | null }, [number, number, string]>(
      `UPDATE jobs SET state = 'DISPATCHING', attempt_count = attempt_count + 1, dispatched_at = ?1, not_before = NULL, updated_at = ?2
       WHERE id = ?3 AND ${from('dispatch')} AND expires_at > ?1 RETURNING ${JOB_COLUMNS}, dispatched_at, moved_note`,
    )
    // A late receipt of the latest attempt still counts, even after that attempt was given up.
    this.received = db.query<JobRow, [number, number, string, number]>(
      `UPDATE jobs SET state = 'DELIVERED', received_at = ?1, updated_at = ?2
       WHERE id = ?3 AND attempt_count = ?4 AND ${from('receive')} RETURNING ${JOB_COLUMNS}`,
    )
    // A submission of any attempt means the ticket went to the printer.
    this.submitted = db.query<JobRow, [string, number, number, string, number]>(
      `UPDATE jobs SET state = ?1, submitted_at = ?2, received_at = coalesce(received_at, ?2), updated_at = ?3
       WHERE id = ?4 AND attempt_count >= ?5 AND ${from('submit')} RETURNING ${JOB_COLUMNS}`,
    )
    // ?1: when the bytes reached the printer, unless the job is PRINTING (its submission was
    // reported, and said when). A time from an earlier attempt that failed after it is not this one's.
    this.completed = db.query<JobRow, [number, number, string, number]>(
      `UPDATE jobs SET state = 'COMPLETED', submitted_at = CASE WHEN state = 'PRINTING' THEN submitted_at ELSE ?1 END, received_at = coalesce(received_at, ?1), updated_at = ?2
       WHERE id = ?3 AND attempt_count >= ?4 AND ${from('complete')} RETURNING ${JOB_COLUMNS}`,
    )
    // Only the latest attempt can fail; also after the hub gave it up (PENDING), since the agent's
    // word is better than the hub's guess, and while PRINTING (the printer ran out of paper, or
    // never confirmed). In this order: a job an operator asked to cancel ends CANCELLED (it is not
    // tried again), unless it was at the printer and the failure says it may have printed: that
    // is said as it is, FAILED. Otherwise one that cannot succeed by retrying, or has no attempt
    // left, ends FAILED (forfeiting the attempts left); one whose time ran out EXPIRED; the rest
    // waits for its next attempt.
    const cancelled = `cancel_requested_at IS NOT NULL AND ($retryable OR state <> 'PRINTING')`
    this.failed = db.query<JobRow, { now: number; notBefore: number; code: string; message: string; retryable: number; id: string; attempt: number }>(
      `UPDATE jobs SET
         state = CASE WHEN ${cancelled} THEN 'CANCELLED'
                      WHEN NOT $retryable OR attempt_count >= max_attempts THEN 'FAILED'
                      WHEN expires_at <= $now THEN 'EXPIRED'
                      ELSE 'PENDING' END,
         attempt_count = CASE WHEN NOT $retryable AND NOT (${cancelled}) THEN max_attempts ELSE attempt_count END,
         last_error_code = $code, last_error_message = $message, not_before = $notBefore, updated_at = $now
       WHERE id = $id AND attempt_count = $attempt AND ${from('fail')} RETURNING ${JOB_COLUMNS}`,
    )
    this.cancelledByAgent = db.query<JobRow, [number, string]>(
      `UPDATE jobs SET state = 'CANCELLED', updated_at = ?1
       WHERE id = ?2 AND cancel_requested_at IS NOT NULL AND ${from('agentCancelled')} RETURNING ${JOB_COLUMNS}`,
    )
  }

  /**
   * Runs a guarded statement on job `id` (inside the open transaction) and logs the change it made,
   * with the state the job was in before; when nothing is logged, that state is not even read.
   */
  private change<R extends JobRow>(id: string, update: () => R | null, attempt?: number): R | null {
    if (!this.log.enabled) return update()
    const before = this.stateNow.get(id)?.state
    const row = update()
    // A failure that forfeits the attempts left counts them all; the line names the one that failed.
    if (row && before) this.log.changed(before, attempt === undefined ? row : { ...row, attempt_count: attempt }, toJob(row))
    return row
  }

  /** The oldest job of a printer not yet with its agent: the only one that may be dispatched. */
  queueHead(printerId: string): QueueHead | undefined {
    const row = this.head.get(printerId)
    return row ? { id: row.id, state: row.state, notBefore: row.not_before, expiresAt: row.expires_at } : undefined
  }

  /** PENDING → DISPATCHING: a new attempt starts. Undefined when the job is no longer PENDING, or expired. */
  startAttempt(id: string): Attempt | undefined {
    const now = this.now()
    const row = this.commits.defer(() => this.change(id, () => this.start.get(now, now, id)))
    return row ? { job: toJob(row), attempt: row.attempt_count, dispatchedAt: row.dispatched_at, movedNote: row.moved_note } : undefined
  }

  /** The latest attempt of a job still with its agent, to send again exactly as before. */
  currentAttempt(id: string): Attempt | undefined {
    const row = this.db
      .query<JobRow & { dispatched_at: number; moved_note: string | null }, [string]>(`SELECT ${JOB_COLUMNS}, dispatched_at, moved_note FROM jobs WHERE id = ? AND ${stateIn(attemptOut)}`)
      .get(id)
    return row ? { job: toJob(row), attempt: row.attempt_count, dispatchedAt: row.dispatched_at, movedNote: row.moved_note } : undefined
  }

  /** The oldest jobs (at most `limit`) a printer's agent holds and has not reported finished. */
  withAgent(printerId: string, limit: number): string[] {
    return this.heldPage(printerId, 0, Number.MAX_SAFE_INTEGER, limit).map((held) => held.id)
  }

  /** The jobs a printer's agent holds, oldest first, numbered after `after` up to `upTo`: at most `limit`. */
  heldPage(printerId: string, after: number, upTo: number, limit: number): HeldJob[] {
    return this.db
      .query<HeldJob, [string, number, number, number]>(
        `SELECT ${HELD_COLUMNS} FROM jobs INDEXED BY jobs_with_agent
         WHERE printer_id = ${bound()} AND ${stateIn(withAgent)} AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
      )
      .all(printerId, after, upTo, limit)
  }

  /** How many jobs a printer's agent holds, counted up to `atMost` (a read that stops there). */
  heldCount(printerId: string, atMost: number): number {
    return this.db
      .query<{ n: number }, [string, number]>(`SELECT count(*) AS n FROM (SELECT 1 FROM jobs INDEXED BY jobs_with_agent WHERE printer_id = ${bound()} AND ${stateIn(withAgent)} LIMIT ?)`)
      .get(printerId, atMost)!.n
  }

  /** The number of the newest job a printer's agent holds. */
  newestHeld(printerId: string): number | undefined {
    return this.db.query<{ seq: number }, [string]>(`SELECT seq FROM jobs INDEXED BY jobs_with_agent WHERE printer_id = ${bound()} AND ${stateIn(withAgent)} ORDER BY seq DESC LIMIT 1`).get(printerId)?.seq
  }

  /** A job its agent holds, with its printer. */
  held(id: string): (HeldJob & { printerId: string }) | undefined {
    return this.db
      .query<HeldJob & { printerId: string }, [string]>(`SELECT ${HELD_COLUMNS}, printer_id AS printerId FROM jobs WHERE id = ? AND ${stateIn(withAgent)}`)
      .get(id) ?? undefined
  }

  markReceived(id: string, attempt: number, receivedAt: number): Job | undefined {
    if (!isAttempt(attempt)) return undefined
    const row = this.commits.defer(() => this.change(id, () => this.received.get(receivedAt, this.now(), id, attempt)))
    return row ? toJob(row) : undefined
  }

  /** The printer backend took every byte: PRINTING while a confirmation is expected, else COMPLETED. */
  markSubmitted(id: string, attempt: number, submittedAt: number, confirmationExpected: boolean): Job | undefined {
    if (!isAttempt(attempt)) return undefined
    const row = this.commits.write(() => this.change(id, () => this.submitted.get(confirmationExpected ? 'PRINTING' : 'COMPLETED', submittedAt, this.now(), id, attempt)))
    return row ? toJob(row) : undefined
  }

  /** The printer printed the job (the report says when it took the bytes, else that moment is the completion's). */
  markCompleted(id: string, attempt: number, completedAt: number, submittedAt = completedAt): Job | undefined {
    if (!isAttempt(attempt)) return undefined
    const row = this.commits.write(() => this.change(id, () => this.completed.get(submittedAt, this.now(), id, attempt)))
    return row ? toJob(row) : undefined
  }

  /** The current attempt failed: back to PENDING after `backoffMs`, or FAILED, EXPIRED or CANCELLED. */
  failAttempt(id: string, attempt: number, failure: Failure, backoffMs: number): Job | undefined {
    if (!isAttempt(attempt)) return undefined
    const now = this.now()
    const row = this.commits.write(() =>
      this.change(id, () =>
        this.failed.get({
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
    const row = this.commits.write(() => this.change(id, () => this.cancelledByAgent.get(this.now(), id)))
    return row ? toJob(row) : undefined
  }

  /**
   * A cancellation: a PENDING job at once; a dispatched one is marked, and the agent is asked (the
   * job ends CANCELLED unless the agent reports it already submitted it), when `request` applies
   * to its state: an operator's (`requestCancel`) to any job not yet printing; an application's to
   * a job its agent has not confirmed it holds (`requestCancelInFlight`), or for a printer that
   * polls, one the printer has not fetched (`requestCancelUnfetched`).
   */
  cancel(id: string, request: CancelRequest = 'requestCancel'): CancelOutcome {
    return this.commits.write((): CancelOutcome => {
        const row = this.db.query<JobRow & { cancel_requested_at: number | null }, [string]>(`SELECT ${JOB_COLUMNS}, cancel_requested_at FROM jobs WHERE id = ?`).get(id)
        if (!row) return { kind: 'unknown' }
        const now = this.now()
        if (canApply('cancel', row.state)) {
          const done = this.db.query<JobRow, [number, string]>(`UPDATE jobs SET state = 'CANCELLED', updated_at = ?1 WHERE id = ?2 AND ${from('cancel')} RETURNING ${JOB_COLUMNS}`).get(now, id)!
          this.log.changed(row.state, done, toJob(done))
          return { kind: 'cancelled', job: toJob(done) }
        }
        // Asked before and still open (the agent confirmed receipt since): the same request, still waited on.
        if (row.cancel_requested_at !== null && canApply('requestCancel', row.state)) return { kind: 'requested', job: toJob(row) }
        if (canApply(request, row.state)) {
          const marked = this.db
            .query<JobRow, [number, string]>(`UPDATE jobs SET cancel_requested_at = coalesce(cancel_requested_at, ?1), updated_at = ?1 WHERE id = ?2 AND ${from(request)} RETURNING ${JOB_COLUMNS}`)
            .get(now, id)!
          if (row.cancel_requested_at === null) this.log.noted(marked, 'cancellation requested; the agent is asked to stop it')
          return { kind: 'requested', job: toJob(marked) }
        }
        // With the agent (an application's cancel, unless its printer polls and has not fetched it), at the printer or printed: too late; else finished.
        const tooLate = !isTerminal(row.state) || (JOB_STATE_SETS.atPrinter as readonly JobState[]).includes(row.state)
        return { kind: tooLate ? 'too_late' : 'finished', job: toJob(row) }
      })
  }

  /** Dispatched jobs whose cancellation was asked for and not yet settled, with their attempt. */
  cancelRequests(): { id: string; printerId: string; attempt: number; requestedAt: number }[] {
    return this.db
      .query<{ id: string; printer_id: string; attempt_count: number; cancel_requested_at: number }, []>(
        `SELECT id, printer_id, attempt_count, cancel_requested_at FROM jobs
         WHERE cancel_requested_at IS NOT NULL AND ${stateIn(cancellableByAgent)} ORDER BY cancel_requested_at`,
      )
      .all()
      .map((r) => ({ id: r.id, printerId: r.printer_id, attempt: r.attempt_count, requestedAt: r.cancel_requested_at }))
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
      .query<{ id: string; project_id: string; printer_id: string; state: 'PENDING' | 'DISPATCHING'; attempt_count: number }, [number, number]>(
        `SELECT id, project_id, printer_id, state, attempt_count FROM jobs WHERE ${from('expire')} AND expires_at <= ? ORDER BY expires_at LIMIT ?`,
      )
      .all(now, limit)
    // Looked for twice a second: the write lock is taken only when something is due.
    if (due.length === 0) return []
    const update = this.db.query<never, [string, string, number, string]>(
      `UPDATE jobs SET state = 'EXPIRED', last_error_code = ?1, last_error_message = ?2, updated_at = ?3 WHERE id = ?4 AND ${from('expire')}`,
    )
    const expired = this.commits.write(() => due.filter((job) => update.run(EXPIRED.code, EXPIRED.message, now, job.id).changes === 1))
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
      .query<{ id: string; state: JobState; revoked: number; expired: number }, { now: number; connected: string; awaySince: number }>(GONE_AGENTS_JOBS_SQL)
      .all({ now, connected: JSON.stringify(connected), awaySince })
    // The write lock is taken only when one is due.
    const due = held.filter((job) => job.revoked || job.expired)
    if (due.length === 0) return []
    const give = this.db.query<JobRow, [string, string, number, string]>(
      `UPDATE jobs SET state = 'FAILED', attempt_count = max_attempts, last_error_code = ?1, last_error_message = ?2, updated_at = ?3
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

  /** The printers that have jobs not yet with their agent (to wake their queues at start). */
  printersWithQueuedJobs(): string[] {
    return this.db.query<{ printer_id: string }, []>(`SELECT DISTINCT printer_id FROM jobs WHERE ${stateIn(queued)}`).all().map((r) => r.printer_id)
  }
}
