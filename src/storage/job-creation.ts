// Making jobs, written once for both stores: a job posted to a printer, or a fan-out of one to every printer of a
// destination, each under its idempotency key and within its project's limits, the checks and the writes one change.
// A known key answers its job as it is now, whatever else the submission says (even if its printer was removed since).
import type { PrintDocument } from '../protocol/document.ts'
import type { Job } from '../protocol/job.ts'
import { newId } from './ids.ts'
import type { Db, OpenLoad } from './repositories.ts'
import type { Unit } from './unit.ts'

/**
 * Bytes of documents of one project's unfinished jobs, at most (256 MiB): however many jobs its
 * limit allows (10,000 of up to 2 MiB each), one project cannot fill the disk with jobs that
 * retention may not delete, and leave the other projects none.
 */
export const OPEN_BYTES_PER_PROJECT = 256 * 1024 * 1024

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

/** The limit `jobs` more unfinished jobs of `bytes` in all would break; undefined when there is room. */
export function roomFor(
  load: OpenLoad,
  jobs: number,
  bytes: number,
): Extract<CreateJobOutcome, { kind: 'entitlement_limit' }> | undefined {
  if (load.jobs + jobs > load.jobLimit)
    return { kind: 'entitlement_limit', limited: 'jobs', open: load.jobs, limit: load.jobLimit }
  if (load.bytes + bytes > load.bytesLimit)
    return { kind: 'entitlement_limit', limited: 'bytes', open: load.bytes, limit: load.bytesLimit }
  return undefined
}

/**
 * Creates a PENDING job, or finds it by its idempotency key; the printer must be the project's and the project under
 * its limits. `serialised`: the document as JSON.stringify wrote it, when the caller has it already.
 */
export function* createJob(db: Db, job: NewJob, serialised?: string): Unit<CreateJobOutcome> {
  // The project's load first: on PostgreSQL that takes its row, so what follows (the key above all) is read after
  // every concurrent submission of the project has committed.
  const load = yield* db.jobs.openLoad(job.projectId)
  const existing = yield* db.jobs.byIdempotencyKey(job.projectId, job.idempotencyKey)
  if (existing) return { kind: 'duplicate', job: existing }
  const printer = yield* db.printers.resolve(job.projectId, job.printerId)
  if (!printer) return { kind: 'unknown_printer' }
  const document = serialised ?? JSON.stringify(job.document)
  const bytes = Buffer.byteLength(document)
  const room = roomFor(load, 1, bytes)
  if (room) return room
  const made = yield* db.jobs.insert({
    ...job,
    printerId: printer.id,
    serialised: document,
    bytes,
    reprintOf: job.reprintOf ?? null,
    destinationId: job.destinationId ?? null,
    fanOutId: null,
  })
  return { kind: 'created', job: made }
}

/**
 * Creates a fan-out: its parent under the application's idempotency key, and one PENDING child per printer of
 * `printers` (record IDs; removed ones are left out), each with the whole document. The project's limits are checked
 * for all the children at once: they are made all or none.
 */
export function* createFanOut(
  db: Db,
  job: NewJob & { destination: string },
  printers: readonly string[],
): Unit<CreateFanOutOutcome> {
  const load = yield* db.jobs.openLoad(job.projectId)
  const known = yield* db.jobs.byIdempotencyKey(job.projectId, job.idempotencyKey)
  if (known) return { kind: 'duplicate', job: known }
  const present: string[] = []
  for (const id of printers) {
    const printer = yield* db.printers.resolve(job.projectId, id)
    if (printer) present.push(printer.id)
  }
  if (present.length === 0) return { kind: 'unknown_printer' }
  // Every child stores the same document: serialised once.
  const document = JSON.stringify(job.document)
  const bytes = Buffer.byteLength(document)
  const room = roomFor(load, present.length, bytes * present.length)
  if (room) return room
  const id = newId('job')
  const made = yield* db.fanOuts.insert(
    {
      id,
      projectId: job.projectId,
      destination: job.destination,
      idempotencyKey: job.idempotencyKey,
      metadata: job.metadata,
      expiresInMs: job.expiresInMs,
      maxAttempts: job.maxAttempts,
    },
    // A child's key is its parent's ID and its printer's: no application's submission has it.
    present.map((printerId) => ({
      ...job,
      printerId,
      idempotencyKey: `${id}/${printerId}`,
      serialised: document,
      bytes,
      reprintOf: job.reprintOf ?? null,
      destinationId: job.destinationId ?? null,
      fanOutId: id,
    })),
  )
  return { kind: 'created', ...made }
}
