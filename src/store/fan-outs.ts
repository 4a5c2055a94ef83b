// Fan-outs: the parents of jobs posted to a destination of mode "all" (one child job per printer).
// A parent row holds what the application sent that is not a document (its idempotency key, its
// metadata, its expiry); its state is read from its children and summarised by the domain's rule
// (domain/fan-out.ts), so it is never stored twice nor out of step. Jobs creates them (jobs.ts).
import type { Database } from 'bun:sqlite'
import type { Job, JobState } from '../protocol/job.ts'
import { fanOutState } from '../domain/fan-out.ts'
import { fanOutJobOf, type FanOutRowOf } from '../storage/job-rows.ts'
import type { FanOutRepository, JobInsert, NewFanOut } from '../storage/repositories.ts'
import { type JobRow, JOB_COLUMNS, toJob } from './job-rows.ts'
import { fanOutRows, type JobPage, type ParentQuery } from './job-pages.ts'
import { bound } from '../sqlite/bound.ts'

interface FanOutRow extends FanOutRowOf {
  seq: number
  metadata: string | null
  expires_at: number
  created_at: number
}

/** A child as the summary reads it: its row and its printer's project-local ID. */
type ChildRow = JobRow & { printer: string }

/** A fan-out's row as written. */
export interface FanOutRowValues {
  id: string
  projectId: string
  /** The destination's name, as posted. */
  destination: string
  idempotencyKey: string
  metadata: string | null
  expiresAt: number
  maxAttempts: number
  createdAt: number
}

export class FanOuts implements FanOutRepository {
  /** Whether the hub has any: until it does, nothing on a job's path looks for one. */
  private any: boolean
  private readonly byKeyQuery
  private readonly byIdQuery
  private readonly childrenQuery
  private readonly parentQuery

  constructor(
    private readonly db: Database,
    /** Writes a fan-out with its children (the jobs' repository does: jobs.ts). */
    private readonly insertWithChildren: FanOutRepository['insert'],
  ) {
    this.any = db.query<{ one: number }, []>('SELECT 1 AS one FROM fan_outs LIMIT 1').get() !== null
    this.byKeyQuery = db.query<FanOutRow, [string, string]>(
      'SELECT * FROM fan_outs WHERE project_id = ? AND idempotency_key = ?',
    )
    this.byIdQuery = db.query<FanOutRow, [string]>('SELECT * FROM fan_outs WHERE id = ?')
    this.childrenQuery = db.query<ChildRow, [string]>(
      `SELECT ${JOB_COLUMNS}, (SELECT remote_id FROM printers p WHERE p.id = jobs.printer_id) AS printer
       FROM jobs INDEXED BY jobs_of_fan_outs WHERE fan_out_id = ${bound()} ORDER BY seq`,
    )
    this.parentQuery = db.query<{ fan_out_id: string | null }, [string]>('SELECT fan_out_id FROM jobs WHERE id = ?')
  }

  /** A parent's position in the newest-first order (for the page after it); undefined when `id` is none. */
  position(id: string): number | undefined {
    return this.any ? (this.byIdQuery.get(id)?.seq ?? undefined) : undefined
  }

  /** Whether the hub has (or had, since it started) any fan-out. */
  get exist(): boolean {
    return this.any
  }

  /** Inserts a parent, in the open transaction (its children are inserted after it). */
  /** A new fan-out with its children (no checks: the unit that calls it made them). */
  insert(fanOut: NewFanOut, children: readonly JobInsert[]): { job: Job; children: Job[] } {
    return this.insertWithChildren(fanOut, children) as { job: Job; children: Job[] }
  }

  /** The parent's row (Jobs.insertFanOut writes it with its children). */
  insertRow(fanOut: FanOutRowValues): void {
    this.db.run(
      `INSERT INTO fan_outs (id, project_id, destination, idempotency_key,
        metadata, expires_at, max_attempts, created_at) VALUES (?, ?, ?, ?,
        ?, ?, ?, ?)`,
      [
        fanOut.id,
        fanOut.projectId,
        fanOut.destination,
        fanOut.idempotencyKey,
        fanOut.metadata,
        fanOut.expiresAt,
        fanOut.maxAttempts,
        fanOut.createdAt,
      ],
    )
    this.any = true
  }

  /** The project's fan-out made with `idempotencyKey`, as a job as it is now. */
  byIdempotencyKey(projectId: string, idempotencyKey: string): Job | undefined {
    if (!this.any) return undefined
    const row = this.byKeyQuery.get(projectId, idempotencyKey)
    return row ? this.project(row) : undefined
  }

  /** A fan-out as a job (its state its children's, summarised); undefined when `id` is none. */
  get(id: string): Job | undefined {
    if (!this.any) return undefined
    const row = this.byIdQuery.get(id)
    return row ? this.project(row) : undefined
  }

  /** A page of the parents matching `query`, newest first, as jobs (job-pages.ts). */
  page(query: ParentQuery, limit: number, window?: number): JobPage {
    if (!this.any) return { jobs: [], next: null }
    const { rows, next } = fanOutRows<FanOutRow>(this.db, query, limit, window)
    return { jobs: rows.map((row) => this.project(row)), next }
  }

  /** Its children, in the destination's order of printers. */
  children(id: string): Job[] {
    return this.childrenQuery.all(id).map(toJob)
  }

  /** The fan-out a job is a child of; null when it is none's. */
  parentOf(jobId: string): string | null {
    if (!this.any) return null
    return this.parentQuery.get(jobId)?.fan_out_id ?? null
  }

  /**
   * When a child's change from `from` changed its parent's state: the parent as it is now and the
   * state it was in before (its event). Undefined when the job is no child, or its parent's state
   * stayed as it was.
   */
  changedBy(childId: string, from: JobState): { parent: Job; previous: JobState } | undefined {
    const parentId = this.parentOf(childId)
    const row = parentId === null ? null : this.byIdQuery.get(parentId)
    if (!row) return undefined
    const children = this.childrenQuery.all(row.id)
    const previous = fanOutState(children.map((child) => (child.id === childId ? from : child.state)))
    const parent = this.project(row, children)
    return parent.state === previous ? undefined : { parent, previous }
  }

  private project(row: FanOutRow, children = this.childrenQuery.all(row.id)): Job {
    return fanOutJobOf(row, children)
  }
}
