// Creating jobs: a job posted to a printer, or a fan-out of one to every printer of a destination,
// each within its project's limits and under its idempotency key, in the open transaction; the
// reads of jobs are JobReads' (job-reads.ts), and their state is JobStates' (job-states.ts).
import type { Database } from 'bun:sqlite'
import type { PrintDocument } from '../protocol/document.ts'
import type { Job } from '../protocol/job.ts'
import { type FailureCode, MAX_FAILURE_MESSAGE_LENGTH } from '../protocol/failures.ts'
import {
  type CreateFanOutOutcome,
  type CreateJobOutcome,
  createFanOut,
  createJob,
  type NewJob,
  OPEN_BYTES_PER_PROJECT,
} from '../storage/job-creation.ts'
import type { Db, JobInsert, JobRepository, NewFanOut, OpenLoad, Repositories } from '../storage/repositories.ts'
import { answeringAtOnce, runNow } from '../storage/unit.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import { BoundedMap } from '../platform/bounded-map.ts'
import { newId } from '../storage/ids.ts'
import type { Printers } from './printers.ts'
import type { JobLog } from './job-log.ts'
import type { FanOuts } from './fan-outs.ts'
import { JobReads } from './job-reads.ts'
import { JOB_COLUMNS, JOB_INSERT_SQL, type JobInsertValues, type JobRow, toJob } from './job-rows.ts'

export { JOB_COLUMNS, JOB_INSERT_SQL, type JobRow, toJob } from './job-rows.ts'
export { type JobEvent, type JobFilter, newestJobs } from './job-reads.ts'

export type { CreateFanOutOutcome, CreateJobOutcome, NewJob }

export { OPEN_BYTES_PER_PROJECT }

/**
 * New jobs' documents kept as submitted, for their first dispatch (`documentToSend`): at most this
 * many, and this many bytes as stored; the oldest go first.
 */
export const KEPT_DOCUMENTS = 256
export const KEPT_DOCUMENT_BYTES = 4 * 1024 * 1024

/** What Jobs works with: the database and its group commit, the printers, the log of changes, and the limits. */
export interface JobsOptions {
  db: Database
  commits: GroupCommit
  printers: Printers
  /** Unfinished jobs one project may have now (the entitlement limit: a setting, read at each submission). */
  openJobLimit: () => number
  now: () => number
  log: JobLog
  fanOuts: FanOuts
  /** Bytes of unfinished jobs' documents one project may have (default OPEN_BYTES_PER_PROJECT). */
  openBytesLimit?: number
}

/** Creates jobs, and reads them (job-reads.ts). */
export class Jobs extends JobReads implements JobRepository {
  private readonly uncommitted = new Set<string>()
  /** Documents of jobs made here and not yet sent, counted by their size as stored (`documentToSend`). */
  private readonly kept = new BoundedMap<string, PrintDocument>(KEPT_DOCUMENTS, KEPT_DOCUMENT_BYTES)
  private readonly byKey
  private readonly openJobs
  private readonly insertStatement
  private readonly insertDocument

  private readonly commits: GroupCommit
  private readonly printers: Printers
  private readonly now: () => number
  private readonly log: JobLog
  /** Unfinished jobs one project may have now (the entitlement limit: a setting, read at each submission). */
  private readonly openJobLimit: () => number
  /** Bytes of unfinished jobs' documents one project may have. */
  openBytesLimit: number

  constructor({ db, commits, printers, openJobLimit, now, log, fanOuts, openBytesLimit }: JobsOptions) {
    super(db, fanOuts)
    this.commits = commits
    this.printers = printers
    this.openJobLimit = openJobLimit
    this.now = now
    this.log = log
    this.openBytesLimit = openBytesLimit ?? OPEN_BYTES_PER_PROJECT
    this.byKey = db.query<JobRow, [string, string]>(
      `SELECT ${JOB_COLUMNS} FROM jobs WHERE project_id = ? AND idempotency_key = ?`,
    )
    this.openJobs = db.query<{ open_jobs: number; open_bytes: number }, [string]>(
      'SELECT open_jobs, open_bytes FROM projects WHERE id = ?',
    )
    this.insertStatement = db.query<JobRow, JobInsertValues>(JOB_INSERT_SQL)
    this.insertDocument = db.query<never, [number, string]>(
      'INSERT INTO job_documents (job_seq, document) VALUES (?, ?)',
    )
  }

  /** What the creation units (storage/job-creation.ts) call on this store, answered at once. */
  private creationDb: Db | undefined

  private get atOnce(): Db {
    this.creationDb ??= answeringAtOnce<Repositories>({ jobs: this, printers: this.printers, fanOuts: this.fanOuts })
    return this.creationDb
  }

  /**
   * Creates a PENDING job in the open transaction (storage/job-creation.ts says how); it is on disk once
   * `commits.durable()` settles, and no one outside the hub may learn of it before (a power cut could still take it
   * back). `serialised`: the document as JSON.stringify wrote it, when the caller has it already.
   */
  create(job: NewJob, serialised?: string): CreateJobOutcome {
    return this.commits.write(() => runNow(createJob(this.atOnce, job, serialised), {}))
  }

  /** Creates a fan-out in the open transaction (storage/job-creation.ts says how). */
  createFanOut(job: NewJob & { destination: string }, printers: readonly string[]): CreateFanOutOutcome {
    return this.commits.write(() => runNow(createFanOut(this.atOnce, job, printers), {}))
  }

  /** Logs a new job (or fan-out): its line, and its event. */
  private logNew(job: Job): void {
    this.log.changed(
      'new',
      {
        id: job.id,
        project_id: job.projectId,
        printer_id: job.printerId,
        state: 'PENDING',
        attempt_count: 0,
        last_error_code: null,
      },
      job,
    )
  }

  /** Logs a new job and remembers it is not yet on disk. */
  private created(job: Job): void {
    const { id } = job
    this.logNew(job)
    this.uncommitted.add(id)
    const committed = () => this.uncommitted.delete(id)
    this.commits.durable().then(committed, committed)
  }

  /** Creates a job and settles once it is on disk. */
  async submit(job: NewJob): Promise<CreateJobOutcome> {
    const outcome = this.create(job)
    await this.commits.durable()
    return outcome
  }

  /** True while a job created in this process is not yet on disk. */
  isUncommitted(id: string): boolean {
    return this.uncommitted.has(id)
  }

  /** A new PENDING job in the open transaction, logged (its event written) and its document kept for its dispatch. */
  insert(job: JobInsert): Job {
    const made = this.insertRow(job)
    this.created(made)
    return made
  }

  private insertRow(job: JobInsert): Job {
    const now = this.now()
    const row = this.insertStatement.get(
      newId('job'),
      job.projectId,
      job.printerId,
      job.idempotencyKey,
      job.metadata === null ? null : JSON.stringify(job.metadata),
      now + job.expiresInMs,
      job.maxAttempts,
      now,
      now,
      job.reprintOf,
      job.destinationId,
      job.fanOutId,
    )!
    this.insertDocument.run(row.seq, job.serialised)
    // Kept for the job's first dispatch. A job whose creation is rolled back leaves its entry to be
    // pushed out by newer ones (its ID is never made again).
    this.kept.set(row.id, job.document, job.bytes)
    return toJob(row)
  }

  /**
   * A new fan-out with its children, in the open transaction: the parent's event first (its state its children's),
   * then each child's.
   */
  insertFanOut(fanOut: NewFanOut, children: readonly JobInsert[]): { job: Job; children: Job[] } {
    const now = this.now()
    this.fanOuts.insertRow({
      id: fanOut.id,
      projectId: fanOut.projectId,
      destination: fanOut.destination,
      idempotencyKey: fanOut.idempotencyKey,
      metadata: fanOut.metadata === null ? null : JSON.stringify(fanOut.metadata),
      expiresAt: now + fanOut.expiresInMs,
      maxAttempts: fanOut.maxAttempts,
      createdAt: now,
    })
    const made = children.map((child) => this.insertRow(child))
    const job = this.fanOuts.get(fanOut.id)!
    this.logNew(job)
    for (const child of made) this.created(child)
    return { job, children: made }
  }

  /** The project's unfinished jobs and their bytes, with its limits. */
  openLoad(projectId: string): OpenLoad {
    const open = this.openJobs.get(projectId)
    return {
      jobs: open?.open_jobs ?? 0,
      bytes: open?.open_bytes ?? 0,
      jobLimit: this.openJobLimit(),
      bytesLimit: this.openBytesLimit,
    }
  }

  /** The job (or fan-out) a project made with `idempotencyKey`, as it is now. */
  byIdempotencyKey(projectId: string, idempotencyKey: string): Job | undefined {
    const row = this.byKey.get(projectId, idempotencyKey)
    return row ? toJob(row) : this.fanOuts.byIdempotencyKey(projectId, idempotencyKey)
  }

  /**
   * The job's document for sending it: as submitted the first time, if this process made the job
   * (it is then forgotten), and as stored otherwise. Either serialises to the same text (a
   * document is plain JSON: JSON.stringify of it and of its stored text parsed are the same), so
   * an attempt sent again is byte-identical. Read-only: the object may be the submission's.
   */
  documentToSend(id: string): PrintDocument | undefined {
    return this.kept.take(id) ?? this.document(id)
  }

  /**
   * A note in the job's timeline at its state now (attempt 0), with a code of the failure family
   * and a message: something people should know that changes no state (a section the printer's
   * model leaves out). In the open transaction.
   */
  note(id: string, code: FailureCode, message: string): void {
    this.db.run(
      `INSERT INTO job_events (job_seq, at, state, attempt, error_code,
        error_message) SELECT seq, ?, state, 0, ?, ? FROM jobs WHERE id = ?`,
      [this.now(), code, message.slice(0, MAX_FAILURE_MESSAGE_LENGTH), id],
    )
  }
}
