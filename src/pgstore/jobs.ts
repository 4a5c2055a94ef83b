// Jobs and fan-outs on PostgreSQL: the same rows and records as the SQLite store's (store/jobs.ts, fan-outs.ts), each
// new job with its document and its project's event in the change's transaction (the triggers of schema.ts keep its
// timeline, its metadata and its project's counters). Idempotency is the database's: one job per key (a unique
// constraint), whichever node is asked.
import type { SQL } from 'bun'
import type { PrintDocument } from '../protocol/document.ts'
import { type FailureCode, MAX_FAILURE_MESSAGE_LENGTH } from '../protocol/failures.ts'
import type { Job, JobState } from '../protocol/job.ts'
import type { JobEvent, JobFilter, JobPage, JobQuery, ParentQuery } from '../domain/job-queries.ts'
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import { JOB_LIST_LIMIT } from '../protocol/limits.ts'
import * as pages from '../storage/job-pages.ts'
import { FAN_OUT_COLUMNS } from '../storage/job-pages.ts'
import { POSTGRES_PAGES, readAwaiting, runStatement } from './job-pages.ts'
import { newId } from '../storage/ids.ts'
import {
  type FanOutChildRow,
  fanOutJobOf,
  type FanOutRowOf,
  JOB_COLUMNS,
  jobOf,
  type JobRowOf,
} from '../storage/job-rows.ts'
import type { FanOutRepository, JobInsert, JobRepository, NewFanOut, OpenLoad } from '../storage/repositories.ts'
import { type Big, int, time } from '../storage/rows.ts'
import type { PgEvents } from './events.ts'

/** The limits of a project's unfinished jobs, as the node's settings say them. */
export interface JobLimits {
  openJobs: () => number
  openBytes: number
}

/** The repositories a job's writes and reads go on to: its project's events, the fan-outs. */
export interface JobNeighbours {
  events: PgEvents
  fanOuts: PgFanOuts
}

export class PgJobs implements JobRepository {
  private readonly events: PgEvents
  private readonly fanOuts: PgFanOuts

  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
    private readonly limits: JobLimits,
    { events, fanOuts }: JobNeighbours,
  ) {
    this.events = events
    this.fanOuts = fanOuts
  }

  async byIdempotencyKey(projectId: string, idempotencyKey: string): Promise<Job | undefined> {
    const [row] = await this.sql<JobRowOf[]>`SELECT ${this.sql.unsafe(JOB_COLUMNS)} FROM jobs
      WHERE project_id = ${projectId} AND idempotency_key = ${idempotencyKey}`
    return row ? jobOf(row) : this.fanOuts.byIdempotencyKey(projectId, idempotencyKey)
  }

  async openLoad(projectId: string): Promise<OpenLoad> {
    // Locked to the change's end: a project's new jobs are checked against its limits one at a time, and their
    // events written in the order they commit (events.ts).
    const [row] = await this.sql<{ open_jobs: Big; open_bytes: Big }[]>`SELECT open_jobs, open_bytes FROM projects
      WHERE id = ${projectId} FOR NO KEY UPDATE`
    return {
      jobs: row ? int(row.open_jobs) : 0,
      bytes: row ? int(row.open_bytes) : 0,
      jobLimit: this.limits.openJobs(),
      bytesLimit: this.limits.openBytes,
    }
  }

  async insert(job: JobInsert): Promise<Job> {
    const made = await insertJobRow(this.sql, this.now(), job)
    await this.events.jobChanged('new', made)
    return made
  }

  async get(id: string): Promise<Job | undefined> {
    const [row] = await this.sql<JobRowOf[]>`SELECT ${this.sql.unsafe(JOB_COLUMNS)} FROM jobs WHERE id = ${id}`
    return row ? jobOf(row) : undefined
  }

  async document(id: string): Promise<PrintDocument | undefined> {
    const [row] = await this.sql<{ document: string }[]>`SELECT d.document FROM jobs j
      JOIN job_documents d ON d.job_seq = j.seq WHERE j.id = ${id}`
    return row ? (JSON.parse(row.document) as PrintDocument) : undefined
  }

  async note(id: string, code: FailureCode, message: string): Promise<void> {
    await this.sql`INSERT INTO job_events (job_seq, at, state, attempt, error_code, error_message)
      SELECT seq, ${this.now()}, state, 0, ${code}, ${message.slice(0, MAX_FAILURE_MESSAGE_LENGTH)}
      FROM jobs WHERE id = ${id}`
  }

  async newest(projectId: string, state?: JobState): Promise<Job[]> {
    return (await this.page(state ? { projectId, state } : { projectId }, JOB_LIST_LIMIT)).jobs
  }

  async page(query: JobQuery, limit: number): Promise<JobPage> {
    if (query.fanOut) {
      // A parent's printerId is the destination's name.
      const { fanOut: _, printerId, ...parents } = query
      return this.fanOuts.page({ ...parents, ...(printerId !== undefined ? { destination: printerId } : {}) }, limit)
    }
    const { rows, next } = await readAwaiting(pages.jobPage(POSTGRES_PAGES, query, limit), this.sql)
    return { jobs: rows.map(jobOf), next }
  }

  async find(filter: JobFilter, limit: number): Promise<Job[]> {
    const rows = await runStatement<JobRowOf>(pages.jobSearch(POSTGRES_PAGES, filter, limit), this.sql)
    return rows.map(jobOf)
  }

  async timeline(id: string): Promise<JobEvent[]> {
    const rows = await this.sql<
      { at: Big; state: JobState; attempt: number; error_code: string | null; error_message: string | null }[]
    >`SELECT e.at, e.state, e.attempt, e.error_code, e.error_message FROM job_events e
      JOIN jobs j ON j.seq = e.job_seq WHERE j.id = ${id} ORDER BY e.at, e.seq`
    return rows.map((row) => ({
      at: time(row.at),
      state: row.state,
      attempt: row.attempt,
      errorCode: row.error_code,
      errorMessage: row.error_message,
    }))
  }

  async reprintOf(id: string): Promise<string | null | undefined> {
    const [row] = await this.sql<{ reprint_of: string | null }[]>`SELECT reprint_of FROM jobs WHERE id = ${id}`
    return row?.reprint_of
  }

  async reprintsOf(id: string): Promise<string[]> {
    const rows = await this.sql<{ id: string }[]>`SELECT id FROM jobs WHERE reprint_of = ${id} ORDER BY seq`
    return rows.map((row) => row.id)
  }

  async wasPruned(projectId: string, id: string): Promise<boolean> {
    const rows = await this.sql`SELECT 1 FROM pruned_jobs WHERE id = ${id} AND project_id = ${projectId}`
    return rows.length > 0
  }

  async lastCompleted(printerId: string): Promise<Job | undefined> {
    const [row] = await this.sql<JobRowOf[]>`SELECT ${this.sql.unsafe(JOB_COLUMNS)} FROM jobs
      WHERE printer_id = ${printerId} AND state = 'COMPLETED' ORDER BY seq DESC LIMIT 1`
    return row ? jobOf(row) : undefined
  }

  async countByState(since: number): Promise<Partial<Record<JobState, number>>> {
    const rows = await this.sql<{ state: JobState; n: Big }[]>`SELECT state, count(*) AS n FROM jobs
      WHERE created_at >= ${since} GROUP BY state`
    return Object.fromEntries(rows.map((row) => [row.state, int(row.n)]))
  }

  queueLengths(): Promise<Map<string, number>> {
    return this.countsIn(JOB_STATE_SETS.queued)
  }

  withAgentCounts(): Promise<Map<string, number>> {
    return this.countsIn(JOB_STATE_SETS.withAgent)
  }

  /** Jobs in one of `states`, by printer record ID. */
  private async countsIn(states: readonly JobState[]): Promise<Map<string, number>> {
    const rows = await this.sql<{ printer_id: string; n: Big }[]>`SELECT printer_id, count(*) AS n FROM jobs
      WHERE state IN ${this.sql(states as JobState[])} GROUP BY printer_id`
    return new Map(rows.map((row) => [row.printer_id, int(row.n)]))
  }
}

/** Writes a PENDING job's row and its document; the job as read back. */
async function insertJobRow(sql: SQL, now: number, job: JobInsert): Promise<Job> {
  const metadata = job.metadata === null ? null : JSON.stringify(job.metadata)
  const [row] = await sql<JobRowOf[]>`INSERT INTO jobs (id, project_id, printer_id, idempotency_key, state, metadata,
      expires_at, max_attempts, created_at, updated_at, reprint_of, destination_id, fan_out_id)
    VALUES (${newId('job')}, ${job.projectId}, ${job.printerId}, ${job.idempotencyKey}, 'PENDING',
      ${metadata}::text::jsonb, ${now + job.expiresInMs}, ${job.maxAttempts}, ${now}, ${now}, ${job.reprintOf},
      ${job.destinationId}, ${job.fanOutId})
    RETURNING ${sql.unsafe(JOB_COLUMNS)}`
  await sql`INSERT INTO job_documents (job_seq, document) VALUES (${row!.seq}, ${job.serialised})`
  return jobOf(row!)
}

export class PgFanOuts implements FanOutRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
    private readonly events: PgEvents,
  ) {}

  async insert(fanOut: NewFanOut, children: readonly JobInsert[]): Promise<{ job: Job; children: Job[] }> {
    const now = this.now()
    const metadata = fanOut.metadata === null ? null : JSON.stringify(fanOut.metadata)
    await this.sql`INSERT INTO fan_outs
        (id, project_id, destination, idempotency_key, metadata, expires_at, max_attempts, created_at)
      VALUES (${fanOut.id}, ${fanOut.projectId}, ${fanOut.destination}, ${fanOut.idempotencyKey},
        ${metadata}::text::jsonb, ${now + fanOut.expiresInMs}, ${fanOut.maxAttempts}, ${now})`
    const made: Job[] = []
    for (const child of children) made.push(await insertJobRow(this.sql, now, child))
    const job = (await this.get(fanOut.id))!
    // The parent's event first, then each child's, as the SQLite store writes them.
    await this.events.jobChanged('new', job)
    for (const child of made) await this.events.jobChanged('new', child)
    return { job, children: made }
  }

  private async rows(id: string): Promise<FanOutChildRow[]> {
    return this.sql<FanOutChildRow[]>`SELECT ${this.sql.unsafe(JOB_COLUMNS)},
        (SELECT remote_id FROM printers p WHERE p.id = jobs.printer_id) AS printer
      FROM jobs WHERE fan_out_id = ${id} ORDER BY seq`
  }

  async byIdempotencyKey(projectId: string, idempotencyKey: string): Promise<Job | undefined> {
    const [row] = await this.sql<FanOutRowOf[]>`SELECT ${this.sql.unsafe(FAN_OUT_COLUMNS)} FROM fan_outs
      WHERE project_id = ${projectId} AND idempotency_key = ${idempotencyKey}`
    return row ? fanOutJobOf(row, await this.rows(row.id)) : undefined
  }

  async get(id: string): Promise<Job | undefined> {
    const [row] = await this.sql<FanOutRowOf[]>`SELECT ${this.sql.unsafe(FAN_OUT_COLUMNS)} FROM fan_outs
      WHERE id = ${id}`
    return row ? fanOutJobOf(row, await this.rows(row.id)) : undefined
  }

  async children(id: string): Promise<Job[]> {
    return (await this.rows(id)).map(jobOf)
  }

  async page(query: ParentQuery, limit: number): Promise<JobPage> {
    const { rows, next } = await readAwaiting(pages.fanOutRows(POSTGRES_PAGES, query, limit), this.sql)
    const jobs: Job[] = []
    for (const row of rows) jobs.push(fanOutJobOf(row, await this.rows(row.id)))
    return { jobs, next }
  }

  async position(id: string): Promise<number | undefined> {
    const [row] = await this.sql<{ seq: Big }[]>`SELECT seq FROM fan_outs WHERE id = ${id}`
    return row ? int(row.seq) : undefined
  }

  async parentOf(jobId: string): Promise<string | null> {
    const [row] = await this.sql<{ fan_out_id: string | null }[]>`SELECT fan_out_id FROM jobs WHERE id = ${jobId}`
    return row?.fan_out_id ?? null
  }
}
