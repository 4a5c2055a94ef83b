// Creating jobs: a job posted to a printer, or a fan-out of one to every printer of a destination,
// each within its project's limits and under its idempotency key, in the open transaction; the
// reads of jobs are JobReads' (job-reads.ts), and their state is JobStates' (job-states.ts).
import type { Database } from 'bun:sqlite'
import type { PrintDocument } from '../protocol/document.ts'
import type { Job } from '../protocol/job.ts'
import { type FailureCode, MAX_FAILURE_MESSAGE_LENGTH } from '../protocol/failures.ts'
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

export interface NewJob {
  projectId: string
  /** The printer as the application named it: its record ID or its project-local remote ID. */
  printerId: string
  idempotencyKey: string
  document: PrintDocument
  metadata: Record<string, string> | null
  expiresInMs: number
  maxAttempts: number
  /** The job this one reprints. */
  reprintOf?: string | null
  /** The destination it was posted to (its printer may change while it waits). */
  destinationId?: string | null
  /** The fan-out it is one printer's job of. */
  fanOutId?: string | null
}

export type CreateJobOutcome =
  | { kind: 'created'; job: Job }
  | { kind: 'duplicate'; job: Job }
  | { kind: 'unknown_printer' }
  /** The project is at its limit of unfinished jobs, or of their documents' bytes. */
  | { kind: 'entitlement_limit'; limited: 'jobs' | 'bytes'; open: number; limit: number }

/** A fan-out made: the parent as a job, and its children, one per printer in the destination's order. */
export type CreateFanOutOutcome =
  | Exclude<CreateJobOutcome, { kind: 'created' }>
  | { kind: 'created'; job: Job; children: Job[] }

/**
 * Bytes of documents of one project's unfinished jobs, at most (256 MiB): however many jobs its
 * limit allows (10,000 of up to 2 MiB each), one project cannot fill the disk with jobs that
 * retention may not delete, and leave the other projects none.
 */
export const OPEN_BYTES_PER_PROJECT = 256 * 1024 * 1024

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
export class Jobs extends JobReads {
  private readonly uncommitted = new Set<string>()
  /** Documents of jobs made here and not yet sent, counted by their size as stored (`documentToSend`). */
  private readonly kept = new BoundedMap<string, PrintDocument>(KEPT_DOCUMENTS, KEPT_DOCUMENT_BYTES)
  private readonly byKey
  private readonly openJobs
  private readonly insert
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
    this.insert = db.query<JobRow, JobInsertValues>(JOB_INSERT_SQL)
    this.insertDocument = db.query<never, [number, string]>(
      'INSERT INTO job_documents (job_seq, document) VALUES (?, ?)',
    )
  }

  /**
   * Creates a PENDING job in the open transaction; it is on disk once `commits.durable()` settles,
   * and no one outside the hub may learn of it before (a power cut could still take it back). A
   * known idempotency key returns its job as it is now, whatever else the submission says (even if
   * its printer was removed since); otherwise the printer must exist and the project must be under
   * its limit of unfinished jobs. The checks and the insert are one atomic step. `serialised`: the
   * document as JSON.stringify wrote it, when the caller has it already.
   */
  create(job: NewJob, serialised?: string): CreateJobOutcome {
    const outcome = this.commits.write(() => this.insertJob(job, serialised))
    if (outcome.kind === 'created') this.created(outcome.job)
    return outcome
  }

  /** Logs a new job and remembers it is not yet on disk. */
  private created(job: Job): void {
    const { id } = job
    this.log.changed(
      'new',
      {
        id,
        project_id: job.projectId,
        printer_id: job.printerId,
        state: 'PENDING',
        attempt_count: 0,
        last_error_code: null,
      },
      job,
    )
    this.uncommitted.add(id)
    const committed = () => this.uncommitted.delete(id)
    this.commits.durable().then(committed, committed)
  }

  /**
   * Creates a fan-out (in the open transaction, as `create`): its parent under the application's
   * idempotency key, and one PENDING child per printer in `printers` (record IDs; removed ones are
   * left out), each with the whole document. The project's limits are checked for all the children
   * at once: they are made all or none.
   */
  createFanOut(job: NewJob & { destination: string }, printers: readonly string[]): CreateFanOutOutcome {
    const outcome = this.commits.write((): CreateFanOutOutcome => {
      const known = this.byIdempotencyKey(job.projectId, job.idempotencyKey)
      if (known) return { kind: 'duplicate', job: known }
      const present = printers.filter((id) => this.printers.resolve(job.projectId, id))
      if (present.length === 0) return { kind: 'unknown_printer' }
      // Every child stores the same document: serialised once.
      const document = JSON.stringify(job.document)
      const room = this.roomFor(job.projectId, present.length, Buffer.byteLength(document) * present.length)
      if (room) return room
      const id = newId('job')
      const now = this.now()
      this.fanOuts.insert({
        id,
        projectId: job.projectId,
        destination: job.destination,
        idempotencyKey: job.idempotencyKey,
        metadata: job.metadata === null ? null : JSON.stringify(job.metadata),
        expiresAt: now + job.expiresInMs,
        maxAttempts: job.maxAttempts,
        createdAt: now,
      })
      const children = present.map((printerId) => {
        // A child's key is its parent's ID and its printer's: no application's submission has it.
        const child = this.insertJob(
          { ...job, printerId, idempotencyKey: `${id}/${printerId}`, fanOutId: id },
          document,
        )
        if (child.kind !== 'created') throw new Error(`a fan-out's child was not made: ${child.kind}`)
        return child.job
      })
      return { kind: 'created', job: this.fanOuts.get(id)!, children }
    })
    if (outcome.kind === 'created') {
      this.log.changed(
        'new',
        {
          id: outcome.job.id,
          project_id: outcome.job.projectId,
          printer_id: outcome.job.printerId,
          state: 'PENDING',
          attempt_count: 0,
          last_error_code: null,
        },
        outcome.job,
      )
      outcome.children.forEach((child) => this.created(child))
    }
    return outcome
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

  /** `document`: the job's document as stored, when the caller serialised it already. */
  private insertJob(job: NewJob, serialised?: string): CreateJobOutcome {
    const existing = this.byIdempotencyKey(job.projectId, job.idempotencyKey)
    if (existing) return { kind: 'duplicate', job: existing }
    const printer = this.printers.resolve(job.projectId, job.printerId)
    if (!printer) return { kind: 'unknown_printer' }
    const document = serialised ?? JSON.stringify(job.document)
    const bytes = Buffer.byteLength(document)
    const room = this.roomFor(job.projectId, 1, bytes)
    if (room) return room
    const now = this.now()
    const metadata = job.metadata === null ? null : JSON.stringify(job.metadata)
    const row = this.insert.get(
      newId('job'),
      job.projectId,
      printer.id,
      job.idempotencyKey,
      metadata,
      now + job.expiresInMs,
      job.maxAttempts,
      now,
      now,
      job.reprintOf ?? null,
      job.destinationId ?? null,
      job.fanOutId ?? null,
    )!
    this.insertDocument.run(row.seq, document)
    // Kept for the job's first dispatch. A job whose creation is rolled back leaves its entry to be
    // pushed out by newer ones (its ID is never made again).
    this.kept.set(row.id, job.document, bytes)
    return { kind: 'created', job: toJob(row) }
  }

  /** The entitlement limit `jobs` more unfinished jobs of `bytes` in all would break; undefined when there is room. */
  private roomFor(
    projectId: string,
    jobs: number,
    bytes: number,
  ): Extract<CreateJobOutcome, { kind: 'entitlement_limit' }> | undefined {
    const open = this.openJobs.get(projectId)
    const openJobs = open?.open_jobs ?? 0
    const limit = this.openJobLimit()
    if (openJobs + jobs > limit) return { kind: 'entitlement_limit', limited: 'jobs', open: openJobs, limit }
    const openBytes = open?.open_bytes ?? 0
    if (openBytes + bytes > this.openBytesLimit)
      return { kind: 'entitlement_limit', limited: 'bytes', open: openBytes, limit: this.openBytesLimit }
    return undefined
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
