// The job state machine's steps on PostgreSQL (the SQLite store's: store/job-states.ts), each one statement guarded
// by the states the table of domain/job-transitions.ts lets its event apply to. Each change leaves its project's event
// in the same transaction; a fan-out's child's change, its parent's too when it changed the parent's state.
//
// A node's writes that follow from a lease it holds (a printer it drives, an agent connected to it) are fenced: the
// repository is made with the lease's number, and each of its delivery steps changes nothing once another node took
// that lease (docs/decisions.md, "Delivery across nodes").
import type { SQL } from 'bun'
import { fanOutState } from '../domain/fan-out.ts'
import { type CancelRequest, JOB_STATE_SETS, JOB_TRANSITIONS, type JobEvent } from '../domain/job-transitions.ts'
import type { Failure } from '../protocol/failures.ts'
import type { Job, JobState } from '../protocol/job.ts'
import { JOB_COLUMNS, jobOf, type JobRowOf } from '../storage/job-rows.ts'
import type { Attempt, CancelView, ExpiredJob, Fence, JobStateRepository } from '../storage/repositories.ts'
import { type Big, int } from '../storage/rows.ts'
import type { PgEvents } from './events.ts'
import type { PgFanOuts } from './jobs.ts'
import { DB_NOW, leaseHolds } from './leases.ts'
import { AGENT_AWAY, AGENT_REVOKED, EXPIRED, GUESSED_FAILURES, PRINTER_TAKEN_OVER } from '../storage/job-failures.ts'
import { PgJobStateReads } from './job-state-reads.ts'

/** The states an event applies to, as SQL (the table's states, never input). */
const list = (states: readonly string[]): string => `(${states.map((state) => `'${state}'`).join(', ')})`

/** The guard of an event: the job is in a state the event applies to. */
const from = (event: JobEvent): string => `state IN ${list(JOB_TRANSITIONS[event].from)}`

/** A change's job as it is now, and the state it was in (locked for the change first). */
type ChangedRow = JobRowOf & { was: JobState; dispatched_at?: Big; moved_note?: string | null }

/** The failure an expired job records. */

export class PgJobStates extends PgJobStateReads implements JobStateRepository {
  constructor(
    sql: SQL,
    private readonly now: () => number,
    private readonly events: PgEvents,
    private readonly parts: { fanOuts: PgFanOuts; fence: Fence | undefined },
  ) {
    super(sql)
  }

  async forCancel(id: string): Promise<CancelView | undefined> {
    const [row] = await this.sql<(JobRowOf & { cancel_requested_at: Big | null })[]>`SELECT
        ${this.sql.unsafe(JOB_COLUMNS)}, cancel_requested_at FROM jobs WHERE id = ${id}`
    return row ? { job: jobOf(row), cancelRequested: row.cancel_requested_at !== null } : undefined
  }

  async cancelNow(id: string, was: JobState): Promise<Job | undefined> {
    const [row] = await this.sql<JobRowOf[]>`UPDATE jobs SET state = 'CANCELLED', updated_at = ${this.now()}
      WHERE id = ${id} AND ${this.sql.unsafe(from('cancel'))} RETURNING ${this.sql.unsafe(JOB_COLUMNS)}`
    if (!row) return undefined
    const job = jobOf(row)
    await this.changed(was, job)
    return job
  }

  async requestCancel(id: string, request: CancelRequest): Promise<Job | undefined> {
    const now = this.now()
    const [row] = await this.sql<JobRowOf[]>`UPDATE jobs
      SET cancel_requested_at = coalesce(cancel_requested_at, ${now}), updated_at = ${now}
      WHERE id = ${id} AND ${this.sql.unsafe(from(request))} RETURNING ${this.sql.unsafe(JOB_COLUMNS)}`
    return row ? jobOf(row) : undefined
  }

  /**
   * Claims the head of a printer's queue, in one statement: PENDING and due, the oldest of the printer's jobs not yet
   * with its agent. A head locked by another transaction is skipped, never passed: a later job of the printer is
   * not claimed while an earlier one waits. One DISPATCHING job per printer is the database's rule too (a partial
   * unique index), whatever a node believes.
   */
  async claim(printerId: string): Promise<Attempt | undefined> {
    const now = this.now()
    const queued = list(JOB_STATE_SETS.queued)
    let row: ChangedRow | undefined
    try {
      ;[row] = await this.fenced<ChangedRow>(
        `UPDATE jobs SET state = 'DISPATCHING', attempt_count = attempt_count + 1, dispatched_at = $4,
           not_before = NULL, updated_at = $4
         FROM (SELECT id AS oid, state AS was FROM jobs WHERE printer_id = $1 AND state IN ${queued}
               ORDER BY seq LIMIT 1 FOR NO KEY UPDATE SKIP LOCKED) o
         WHERE jobs.id = o.oid AND ${from('dispatch')} AND expires_at > $4
           AND (not_before IS NULL OR not_before <= $4)
           AND NOT EXISTS (SELECT 1 FROM jobs e WHERE e.printer_id = $1 AND e.state IN ${queued} AND e.seq < jobs.seq)
           AND $FENCE
         RETURNING o.was, ${JOB_COLUMNS}, dispatched_at, moved_note`,
        [printerId, now],
      )
    } catch (error) {
      // Another DISPATCHING job of the printer (the lane's index): nothing to claim now.
      if ((error as { errno?: string }).errno === '23505') return undefined
      throw error
    }
    if (!row) return undefined
    const job = jobOf(row)
    await this.changed(row.was, job)
    return { job, attempt: row.attempt_count, dispatchedAt: int(row.dispatched_at!), movedNote: row.moved_note ?? null }
  }

  async markReceived(id: string, attempt: number, receivedAt: number): Promise<Job | undefined> {
    // A late receipt of the latest attempt still counts, even after that attempt was given up.
    return this.step(
      id,
      {
        set: `state = 'DELIVERED', received_at = $5, updated_at = $6`,
        where: `attempt_count = $4 AND ${from('receive')}`,
      },
      [attempt, receivedAt, this.now()],
    )
  }

  async markSubmitted(
    id: string,
    attempt: number,
    submittedAt: number,
    confirmationExpected: boolean,
  ): Promise<Job | undefined> {
    // A submission of any attempt means the ticket went to the printer.
    return this.step(
      id,
      {
        set: `state = $5, submitted_at = $6, received_at = coalesce(received_at, $6), updated_at = $7`,
        where: `attempt_count >= $4 AND ${from('submit')}`,
      },
      [attempt, confirmationExpected ? 'PRINTING' : 'COMPLETED', submittedAt, this.now()],
    )
  }

  async markCompleted(
    id: string,
    attempt: number,
    completedAt: number,
    submittedAt = completedAt,
  ): Promise<Job | undefined> {
    // The time the bytes reached the printer, unless the job is PRINTING (its submission said when).
    return this.step(
      id,
      {
        set: `state = 'COMPLETED', submitted_at = CASE WHEN state = 'PRINTING' THEN submitted_at ELSE $5 END,
         received_at = coalesce(received_at, $5), updated_at = $6`,
        where: `attempt_count >= $4 AND ${from('complete')}`,
      },
      [attempt, submittedAt, this.now()],
    )
  }

  /** As the SQLite store's `failed` statement (store/job-state-statements.ts), in the same order of outcomes. */
  async failAttempt(id: string, attempt: number, failure: Failure, backoffMs: number): Promise<Job | undefined> {
    // What this side guessed (the agent went away, or did not answer in time) never fails an attempt whose intent to
    // print was recorded: it may have printed, and the node taking its printer over says so. The job's row is locked
    // first, in a statement of its own: an intent being recorded holds it until its commit, and the next statement
    // reads what committed (one statement would read the intents as they were when it began).
    if ((GUESSED_FAILURES as readonly string[]).includes(failure.code)) {
      await this.sql`SELECT 1 FROM jobs WHERE id = ${id} FOR NO KEY UPDATE`
      const [intended] = await this.sql`SELECT 1 FROM print_intents WHERE job_id = ${id} AND attempt = ${attempt}`
      if (intended) return undefined
    }
    const now = this.now()
    const cancelled = `cancel_requested_at IS NOT NULL AND ($6::boolean OR state <> 'PRINTING')`
    return this.step(
      id,
      {
        set: `state = CASE WHEN ${cancelled} THEN 'CANCELLED'
                        WHEN NOT $6::boolean OR attempt_count >= max_attempts THEN 'FAILED'
                        WHEN expires_at <= $5 THEN 'EXPIRED'
                        ELSE 'PENDING' END,
         attempt_count = CASE WHEN NOT $6::boolean AND NOT (${cancelled}) THEN max_attempts ELSE attempt_count END,
         last_error_code = $7, last_error_message = $8, not_before = $9, updated_at = $5`,
        where: `attempt_count = $4 AND ${from('fail')}`,
      },
      [attempt, now, failure.retryable, failure.code, failure.message, now + backoffMs],
    )
  }

  async markCancelled(id: string): Promise<Job | undefined> {
    return this.step(
      id,
      {
        set: `state = 'CANCELLED', updated_at = $4`,
        where: `cancel_requested_at IS NOT NULL AND ${from('agentCancelled')}`,
      },
      [this.now()],
    )
  }

  async cancelUnanswered(id: string, requestedBefore: number): Promise<Job | undefined> {
    return this.step(
      id,
      {
        set: `state = 'CANCELLED', updated_at = $4`,
        where: `cancel_requested_at <= $5 AND ${from('cancelUnanswered')}`,
      },
      [this.now(), requestedBefore],
    )
  }

  /** PENDING or DISPATCHING jobs whose time ran out become EXPIRED, at most `limit`, locked ones left for later. */
  async expire(limit: number): Promise<ExpiredJob[]> {
    const now = this.now()
    const rows = await this.sql<ChangedRow[]>`UPDATE jobs SET state = 'EXPIRED', last_error_code = ${EXPIRED.code},
        last_error_message = ${EXPIRED.message}, updated_at = ${now}
      FROM (SELECT id AS oid, state AS was FROM jobs WHERE ${this.sql.unsafe(from('expire'))} AND expires_at <= ${now}
            ORDER BY expires_at LIMIT ${limit} FOR NO KEY UPDATE SKIP LOCKED) o
      WHERE jobs.id = o.oid RETURNING o.was, ${this.sql.unsafe(JOB_COLUMNS)}`
    const expired: ExpiredJob[] = []
    for (const row of rows) {
      await this.changed(row.was, jobOf(row))
      expired.push({
        id: row.id,
        printerId: row.printer_id,
        state: row.was as ExpiredJob['state'],
        attempt: row.attempt_count,
      })
    }
    return expired
  }

  /**
   * Jobs an agent holds that it will never report on end FAILED `job.recovery_uncertain` (they may have printed): all
   * those of a revoked agent; those of an agent connected to no node (no live lease `agent:ID`, nor `printer:ID` for
   * the built-in agent's, by the database's clock) and not seen since `awaySince`, once their time ran out. At most
   * `limit`, locked ones left for later.
   */
  async giveUpOnGoneAgents(awaySince: number, limit: number): Promise<Job[]> {
    const now = this.now()
    const rows = await this.sql<ChangedRow[]>`UPDATE jobs SET state = 'FAILED', attempt_count = max_attempts,
        last_error_code = ${AGENT_REVOKED.code},
        last_error_message = CASE WHEN o.revoked THEN ${AGENT_REVOKED.message} ELSE ${AGENT_AWAY.message} END,
        updated_at = ${now}
      FROM (SELECT j.id AS oid, j.state AS was, a.revoked_at IS NOT NULL AS revoked
            FROM agents a JOIN printers p ON p.agent_id = a.id JOIN jobs j ON j.printer_id = p.id
            WHERE j.${this.sql.unsafe(from('agentGone'))} AND (a.revoked_at IS NOT NULL OR (
              NOT EXISTS (SELECT 1 FROM leases l WHERE l.resource IN ('agent:' || a.id, 'printer:' || p.id)
                AND l.expires_at > ${this.sql.unsafe(DB_NOW)})
              AND coalesce(a.last_seen_at, 0) <= ${awaySince} AND j.expires_at <= ${now}))
            LIMIT ${limit} FOR NO KEY UPDATE OF j SKIP LOCKED) o
      WHERE jobs.id = o.oid RETURNING o.was, ${this.sql.unsafe(JOB_COLUMNS)}`
    return this.allChanged(rows)
  }

  /**
   * The built-in agent's intent to print attempt `attempt` of job `id`, recorded under its printer's lease (this
   * repository's fence) before the attempt's first byte: the job received, if its receipt is not recorded yet, and the
   * intent written. Whether it was: not once another node took the printer, nor for an attempt that is no longer the
   * job's latest or no longer with its agent (the agent then does not print it).
   */
  async recordIntent(id: string, attempt: number): Promise<boolean> {
    const now = this.now()
    await this.markReceived(id, attempt, now)
    const rows = await this.fenced(
      `INSERT INTO print_intents (job_id, attempt, recorded_at)
       SELECT id, attempt_count, $5 FROM jobs WHERE id = $1 AND attempt_count = $4 AND state = 'DELIVERED' AND $FENCE
       FOR SHARE OF jobs
       ON CONFLICT (job_id) DO UPDATE SET attempt = excluded.attempt, recorded_at = excluded.recorded_at
       RETURNING job_id`,
      [id, attempt, now],
    )
    return rows.length === 1
  }

  /**
   * A printer of the built-in agent this node took over (under its lease: this repository's fence), before it drives
   * it: the jobs whose latest attempt's intent to print was recorded, and whose end was never told, end FAILED
   * `job.recovery_uncertain` (they may have printed). The others its last node held never reached the printer: they are
   * sent again.
   */
  async takeOverPrinter(printerId: string): Promise<Job[]> {
    const rows = await this.fenced<ChangedRow>(
      `UPDATE jobs SET state = 'FAILED', attempt_count = max_attempts, last_error_code = $4, last_error_message = $5,
         updated_at = $6
       FROM (SELECT j.id AS oid, j.state AS was FROM jobs j
             JOIN print_intents i ON i.job_id = j.id AND i.attempt = j.attempt_count
             WHERE j.printer_id = $1 AND j.${from('agentGone')} ORDER BY j.seq FOR NO KEY UPDATE OF j) o
       WHERE jobs.id = o.oid AND $FENCE RETURNING o.was, ${JOB_COLUMNS}`,
      [printerId, PRINTER_TAKEN_OVER.code, PRINTER_TAKEN_OVER.message, this.now()],
    )
    return this.allChanged(rows)
  }

  /**
   * A guarded step of job `id`: `change` is `SET … WHERE …` of the jobs table, its values from `$4` (`$1` is the job,
   * `$2` and `$3` the fence). The job as it is now, its event written; undefined when the step did not apply.
   */
  private async step(
    id: string,
    change: { set: string; where: string },
    values: readonly unknown[],
  ): Promise<Job | undefined> {
    const [row] = await this.fenced<ChangedRow>(
      `UPDATE jobs SET ${change.set}
       FROM (SELECT id AS oid, state AS was FROM jobs WHERE id = $1 FOR NO KEY UPDATE) o
       WHERE jobs.id = o.oid AND ${change.where} AND $FENCE
       RETURNING o.was, ${JOB_COLUMNS}`,
      [id, ...values],
    )
    if (!row) return undefined
    const job = jobOf(row)
    await this.changed(row.was, job)
    return job
  }

  /**
   * Runs a statement whose `$FENCE` is the lease condition: true without a fence, else the lease still has the
   * repository's number. Its first value is `$1`, the fence's are `$2` and `$3`, the others from `$4`.
   */
  private fenced<Row>(text: string, [head, ...rest]: readonly unknown[]): Promise<Row[]> {
    const fence = this.parts.fence
    const condition = `($2::text IS NULL OR ${leaseHolds('$2', '$3')})`
    return this.sql.unsafe(text.replace('$FENCE', condition), [
      head,
      fence?.resource ?? null,
      fence?.fence ?? null,
      ...rest,
    ]) as Promise<Row[]>
  }

  /** Jobs changed by one statement, as they are now, each with its event (and its fan-out's). */
  private async allChanged(rows: readonly ChangedRow[]): Promise<Job[]> {
    const jobs: Job[] = []
    for (const row of rows) {
      const job = jobOf(row)
      await this.changed(row.was, job)
      jobs.push(job)
    }
    return jobs
  }

  /** A job went from `was` to the state it is in now: its event, and its fan-out's when that changed state. */
  private async changed(was: JobState, job: Job): Promise<void> {
    await this.events.jobChanged(was, job)
    const parentId = await this.parts.fanOuts.parentOf(job.id)
    if (parentId === null) return
    const children = await this.parts.fanOuts.children(parentId)
    const previous = fanOutState(children.map((child) => (child.id === job.id ? was : child.state)))
    const parent = await this.parts.fanOuts.get(parentId)
    if (parent && parent.state !== previous) await this.events.jobChanged(previous, parent)
  }
}
