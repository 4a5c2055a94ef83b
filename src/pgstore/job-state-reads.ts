// What delivery reads of jobs' states on PostgreSQL (the SQLite store's: store/job-state-reads.ts): the head of each
// printer's queue, the attempt out, the jobs an agent holds, and the cancellations asked for. PgJobStates
// (job-states.ts), the writer of a job's state, reads them through this.
import type { SQL } from 'bun'
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import { JOB_COLUMNS, jobOf, type JobRowOf } from '../storage/job-rows.ts'
import type { Attempt, CancelAsked, QueueHead } from '../storage/repositories.ts'
import { type Big, int } from '../storage/rows.ts'

const { queued, withAgent, attemptOut, cancellableByAgent } = JOB_STATE_SETS

export class PgJobStateReads {
  constructor(protected readonly sql: SQL) {}

  async queueHead(printerId: string): Promise<QueueHead | undefined> {
    const [row] = await this.sql<{ id: string; state: QueueHead['state']; not_before: Big | null; expires_at: Big }[]>`
      SELECT id, state, not_before, expires_at FROM jobs
      WHERE printer_id = ${printerId} AND state IN ${this.sql(queued)} ORDER BY seq LIMIT 1`
    return row
      ? {
          id: row.id,
          state: row.state,
          notBefore: row.not_before === null ? null : int(row.not_before),
          expiresAt: int(row.expires_at),
        }
      : undefined
  }

  async currentAttempt(id: string): Promise<Attempt | undefined> {
    const [row] = await this.sql<(JobRowOf & { dispatched_at: Big; moved_note: string | null })[]>`
      SELECT ${this.sql.unsafe(JOB_COLUMNS)}, dispatched_at, moved_note FROM jobs
      WHERE id = ${id} AND state IN ${this.sql(attemptOut)}`
    return row
      ? { job: jobOf(row), attempt: row.attempt_count, dispatchedAt: int(row.dispatched_at), movedNote: row.moved_note }
      : undefined
  }

  async heldCount(printerId: string, atMost: number): Promise<number> {
    const [row] = await this.sql<{ n: Big }[]>`SELECT count(*) AS n FROM (SELECT 1 FROM jobs
      WHERE printer_id = ${printerId} AND state IN ${this.sql(withAgent)} LIMIT ${atMost}) held`
    return int(row!.n)
  }

  async withAgent(printerId: string, limit: number): Promise<string[]> {
    const rows = await this.sql<{ id: string }[]>`SELECT id FROM jobs
      WHERE printer_id = ${printerId} AND state IN ${this.sql(withAgent)} ORDER BY seq LIMIT ${limit}`
    return rows.map((row) => row.id)
  }

  async cancelRequests(): Promise<CancelAsked[]> {
    const rows = await this.sql<
      { id: string; printer_id: string; attempt_count: number; cancel_requested_at: Big }[]
    >`SELECT id, printer_id, attempt_count, cancel_requested_at FROM jobs
      WHERE cancel_requested_at IS NOT NULL AND state IN ${this.sql(cancellableByAgent)} ORDER BY cancel_requested_at`
    return rows.map((row) => ({
      id: row.id,
      printerId: row.printer_id,
      attempt: row.attempt_count,
      requestedAt: int(row.cancel_requested_at),
    }))
  }

  async printersWithQueuedJobs(): Promise<string[]> {
    const rows = await this.sql<{ printer_id: string }[]>`SELECT DISTINCT printer_id FROM jobs
      WHERE state IN ${this.sql(queued)}`
    return rows.map((row) => row.printer_id)
  }
}
