// What the dispatcher and the built-in agent read of jobs' states: the head of each printer's queue,
// the attempt out, the jobs an agent holds, and the cancellations asked for. JobStates
// (job-states.ts), the only writer of a job's state, reads them through this.
import type { Database } from 'bun:sqlite'
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import { bound } from '../sqlite/bound.ts'
import { JOB_COLUMNS, type JobRow, toJob } from './job-rows.ts'
import { stateIn } from './sql.ts'
import type { Attempt, QueueHead } from '../storage/job-repositories.ts'

export type { Attempt, QueueHead }

const { queued, withAgent, attemptOut, cancellableByAgent } = JOB_STATE_SETS

/**
 * The head of a printer's queue, along the queue's partial index: named, because without the
 * database's statistics the planner prefers the index of all the printer's jobs, and then walks
 * every finished job of the printer before the first waiting one (a dispatch cost that grew with
 * the history: 70 % of the hub's time at 60,000 jobs).
 */
export const QUEUE_HEAD_SQL = `SELECT id, state, not_before, expires_at FROM jobs INDEXED BY jobs_queue
  WHERE printer_id = ${bound()} AND ${stateIn(queued)} ORDER BY
  seq LIMIT 1`

/**
 * A held job's columns; its time is its dispatch's, or its creation's when its row has none (the column came in a later
 * migration).
 */
const HELD_COLUMNS = 'id, seq, attempt_count AS attempt, coalesce(dispatched_at, created_at) AS dispatchedAt'

/** A job its agent holds (DELIVERED or PRINTING): its number orders a printer's jobs. */
export interface HeldJob {
  id: string
  seq: number
  attempt: number
  dispatchedAt: number
}

export class JobStateReads {
  private readonly head

  constructor(protected readonly db: Database) {
    this.head = db.query<
      { id: string; state: QueueHead['state']; not_before: number | null; expires_at: number },
      [string]
    >(QUEUE_HEAD_SQL)
  }

  /** The oldest job of a printer not yet with its agent: the only one that may be dispatched. */
  queueHead(printerId: string): QueueHead | undefined {
    const row = this.head.get(printerId)
    return row ? { id: row.id, state: row.state, notBefore: row.not_before, expiresAt: row.expires_at } : undefined
  }

  /** The latest attempt of a job still with its agent, to send again exactly as before. */
  currentAttempt(id: string): Attempt | undefined {
    const row = this.db
      .query<JobRow & { dispatched_at: number; moved_note: string | null }, [string]>(
        `SELECT ${JOB_COLUMNS}, dispatched_at, moved_note FROM jobs WHERE id = ? AND ${stateIn(attemptOut)}`,
      )
      .get(id)
    return row
      ? { job: toJob(row), attempt: row.attempt_count, dispatchedAt: row.dispatched_at, movedNote: row.moved_note }
      : undefined
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
      .query<{ n: number }, [string, number]>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM jobs INDEXED BY jobs_with_agent
          WHERE printer_id = ${bound()} AND ${stateIn(withAgent)} LIMIT ?)`,
      )
      .get(printerId, atMost)!.n
  }

  /** The number of the newest job a printer's agent holds. */
  newestHeld(printerId: string): number | undefined {
    return this.db
      .query<{ seq: number }, [string]>(
        `SELECT seq FROM jobs INDEXED BY jobs_with_agent WHERE printer_id =
          ${bound()} AND ${stateIn(withAgent)} ORDER BY seq DESC LIMIT 1`,
      )
      .get(printerId)?.seq
  }

  /** A job its agent holds, with its printer. */
  held(id: string): (HeldJob & { printerId: string }) | undefined {
    return (
      this.db
        .query<HeldJob & { printerId: string }, [string]>(
          `SELECT ${HELD_COLUMNS}, printer_id AS printerId FROM jobs WHERE id = ? AND ${stateIn(withAgent)}`,
        )
        .get(id) ?? undefined
    )
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

  /** The printers that have jobs not yet with their agent (to wake their queues at start). */
  printersWithQueuedJobs(): string[] {
    return this.db
      .query<{ printer_id: string }, []>(`SELECT DISTINCT printer_id FROM jobs WHERE ${stateIn(queued)}`)
      .all()
      .map((r) => r.printer_id)
  }
}
