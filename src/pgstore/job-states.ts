// The job state machine's steps on PostgreSQL (the SQLite store's: store/job-states.ts), each one statement guarded
// by the states the table of domain/job-transitions.ts lets its event apply to. Each change leaves its project's event
// in the same transaction; a fan-out's child's change, its parent's too when it changed the parent's state.
import type { SQL } from 'bun'
import { fanOutState } from '../domain/fan-out.ts'
import { type CancelRequest, JOB_TRANSITIONS, type JobEvent } from '../domain/job-transitions.ts'
import type { Job, JobState } from '../protocol/job.ts'
import { JOB_COLUMNS, jobOf, type JobRowOf } from '../storage/job-rows.ts'
import type { CancelView, JobStateRepository } from '../storage/repositories.ts'
import type { Big } from '../storage/rows.ts'
import type { PgEvents } from './events.ts'
import type { PgFanOuts } from './jobs.ts'

/** The guard of an event: the job is in a state the event applies to (the table's states, never input). */
const from = (event: JobEvent): string =>
  `state IN (${JOB_TRANSITIONS[event].from.map((state) => `'${state}'`).join(', ')})`

export class PgJobStates implements JobStateRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
    private readonly events: PgEvents,
    private readonly fanOuts: PgFanOuts,
  ) {}

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

  /** A job went from `was` to the state it is in now: its event, and its fan-out's when that changed state. */
  private async changed(was: JobState, job: Job): Promise<void> {
    await this.events.jobChanged(was, job)
    const parentId = await this.fanOuts.parentOf(job.id)
    if (parentId === null) return
    const children = await this.fanOuts.children(parentId)
    const previous = fanOutState(children.map((child) => (child.id === job.id ? was : child.state)))
    const parent = await this.fanOuts.get(parentId)
    if (parent && parent.state !== previous) await this.events.jobChanged(previous, parent)
  }
}
