// Reading jobs: one by its ID and what it is linked to (its document, its reprints, its move), pages
// and searches of a project's jobs, a job's timeline, and the counts the dashboard shows. Jobs
// (jobs.ts), which creates them, reads them through this.
import type { Database } from 'bun:sqlite'
import type { PrintDocument } from '../protocol/document.ts'
import type { Job, JobState } from '../protocol/job.ts'
import { JOB_LIST_LIMIT } from '../protocol/limits.ts'
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import { bound } from '../sqlite/bound.ts'
import type { FanOuts } from './fan-outs.ts'
import { type JobPage, jobPage, type JobQuery, jobSearch } from './job-pages.ts'
import { JOB_COLUMNS, type JobRow, toJob } from './job-rows.ts'
import { stateIn } from './sql.ts'
import { iso } from '../storage/time.ts'
import type { JobEvent, JobFilter } from '../domain/job-queries.ts'

export type { JobEvent, JobFilter }

/** The newest jobs of a project, newest first, optionally of one state: the job list's page. */
export function newestJobs(db: Database, projectId: string, state?: JobState): Job[] {
  return jobPage(db, state ? { projectId, state } : { projectId }, JOB_LIST_LIMIT).jobs
}

export class JobReads {
  constructor(
    protected readonly db: Database,
    protected readonly fanOuts: FanOuts,
  ) {}

  get(id: string): Job | undefined {
    const row = this.db.query<JobRow, [string]>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`).get(id)
    return row ? toJob(row) : undefined
  }

  /** The job a reprint was made from; null for a job that is not a reprint (undefined: no such job). */
  reprintOf(id: string): string | null | undefined {
    return this.db.query<{ reprint_of: string | null }, [string]>('SELECT reprint_of FROM jobs WHERE id = ?').get(id)
      ?.reprint_of
  }

  /** Whether retention deleted the project's job of this ID (remembered for a while: services/housekeeping.ts). */
  wasPruned(projectId: string, id: string): boolean {
    return (
      this.db
        .query<{ one: number }, [string, string]>('SELECT 1 AS one FROM pruned_jobs WHERE id = ? AND project_id = ?')
        .get(id, projectId) !== null
    )
  }

  /** What the job's ticket says of its move to another printer of its destination; null when it did not move. */
  movedNote(id: string): string | null {
    return (
      this.db.query<{ moved_note: string | null }, [string]>('SELECT moved_note FROM jobs WHERE id = ?').get(id)
        ?.moved_note ?? null
    )
  }

  /** The reprints made of a job, oldest first. */
  reprintsOf(id: string): string[] {
    return this.db
      .query<{ id: string }, [string]>(
        `SELECT id FROM jobs INDEXED BY jobs_reprints WHERE reprint_of = ${bound()} ORDER BY seq`,
      )
      .all(id)
      .map((row) => row.id)
  }

  /** The printer record a job was created for. */
  printerOf(id: string): string | undefined {
    return this.db.query<{ printer_id: string }, [string]>('SELECT printer_id FROM jobs WHERE id = ?').get(id)
      ?.printer_id
  }

  document(id: string): PrintDocument | undefined {
    const row = this.db
      .query<{ document: string }, [string]>(
        `SELECT d.document FROM jobs j JOIN job_documents d ON d.job_seq = j.seq WHERE j.id = ${bound()}`,
      )
      .get(id)
    return row ? (JSON.parse(row.document) as PrintDocument) : undefined
  }

  /** The newest jobs of a project, newest first, optionally of one state. */
  newest(projectId: string, state?: JobState): Job[] {
    return newestJobs(this.db, projectId, state)
  }

  /**
   * A page of the project's jobs matching `query`, or of its fan-out parents (`fanOut`), newest first (see
   * job-pages.ts).
   */
  page(query: JobQuery, limit: number): JobPage {
    if (!query.fanOut) return jobPage(this.db, query, limit)
    // A parent's printerId is the destination's name.
    const { fanOut: _, printerId, ...parents } = query
    return this.fanOuts.page({ ...parents, ...(printerId !== undefined ? { destination: printerId } : {}) }, limit)
  }

  /** Jobs matching `filter`, newest first, at most `limit`. */
  find(filter: JobFilter, limit: number): Job[] {
    const { sql, values } = jobSearch(filter, limit)
    return this.db
      .query<JobRow, (string | number)[]>(sql)
      .all(...values)
      .map(toJob)
  }

  /** Every state the job went through, oldest first. */
  timeline(id: string): JobEvent[] {
    return this.db
      .query<
        { at: number; state: JobState; attempt: number; error_code: string | null; error_message: string | null },
        [string]
      >(
        `SELECT e.at, e.state, e.attempt, e.error_code, e.error_message FROM
          job_events e JOIN jobs j ON j.seq = e.job_seq WHERE j.id = ${bound()}
          ORDER BY e.at, e.rowid`,
      )
      .all(id)
      .map((row) => ({
        at: iso(row.at),
        state: row.state,
        attempt: row.attempt,
        errorCode: row.error_code,
        errorMessage: row.error_message,
      }))
  }

  /** How many jobs created since `since` are in each state. */
  countByState(since: number): Partial<Record<JobState, number>> {
    const rows = this.db
      .query<{ state: JobState; n: number }, [number]>(
        'SELECT state, count(*) AS n FROM jobs WHERE created_at >= ? GROUP BY state',
      )
      .all(since)
    return Object.fromEntries(rows.map((row) => [row.state, row.n]))
  }

  /** Jobs of each printer not yet with its agent (its queue). */
  queueLengths(): Map<string, number> {
    const rows = this.db
      .query<{ printer_id: string; n: number }, []>(
        `SELECT printer_id, count(*) AS n FROM jobs WHERE ${stateIn(JOB_STATE_SETS.queued)} GROUP BY printer_id`,
      )
      .all()
    return new Map(rows.map((row) => [row.printer_id, row.n]))
  }

  /** Jobs each printer's agent holds (DELIVERED or PRINTING), by printer record ID. */
  withAgentCounts(): Map<string, number> {
    const rows = this.db
      .query<{ printer_id: string; n: number }, []>(
        `SELECT printer_id, count(*) AS n FROM jobs WHERE ${stateIn(JOB_STATE_SETS.withAgent)} GROUP BY printer_id`,
      )
      .all()
    return new Map(rows.map((row) => [row.printer_id, row.n]))
  }

  /** The newest job of a printer that printed, for its last receipt. */
  lastCompleted(printerId: string): Job | undefined {
    const row = this.db
      .query<JobRow, [string]>(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE printer_id = ${bound()} AND state
          = 'COMPLETED' ORDER BY seq DESC LIMIT 1`,
      )
      .get(printerId)
    return row ? toJob(row) : undefined
  }
}
