// Jobs as every edge makes them: applications' submissions (the public API), reprints, test pages
// and printed pairing codes (the admin API), cancellations (the admin API and the CLI). Outcomes
// are values; each edge says them in its own words.
import { EXPIRES_IN_MS, MAX_ATTEMPTS } from '../protocol/limits.ts'
import type { PrintDocument } from '../protocol/document.ts'
import type { Issue } from '../protocol/rules.ts'
import type { Job } from '../protocol/job.ts'
import { isTerminal } from '../domain/job-transitions.ts'
import { fitsInOneFrame } from '../protocol/print-job-frame.ts'
import { documentRule, withCopies } from '../protocol/document.ts'
import { reprintDocument } from '../domain/reprint.ts'
import { validate } from '../protocol/rules.ts'
import type { CancelOutcome } from '../store/job-states.ts'
import type { Store } from '../store/store.ts'
import { printerForUnit } from './failover.ts'
import type { Liveness } from './printer-states.ts'
import type { Actor } from './actor.ts'
import { type AuditedChange, recordedChange } from './audit.ts'
import { answerOf, applicationCancel, CANCEL_OPEN } from './cancel-answers.ts'
import { noteLeftOut, placeLogos } from './job-documents.ts'
import { cancelJob } from '../storage/job-cancel.ts'
import {
  type CreateFanOutOutcome,
  type CreateJobOutcome,
  createFanOut,
  createJob,
  type NewJob,
} from '../storage/job-creation.ts'
import type { Db, UnitRunner, WriteOptions } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import { SqliteUnits } from '../store/units.ts'

/** A submission takes its project's row first (openLoad), before anything it writes. */
const LOCKED_ROWS: WriteOptions = { lockedRows: true }

/** When a project is at its limit of unfinished jobs, try again after this long. */
export const ENTITLEMENT_RETRY_AFTER_SECONDS = 30

export interface JobRequest {
  projectId: string
  /** The printer as the caller names it: its record ID, or its project-local ID. */
  printerId: string
  idempotencyKey: string
  document: PrintDocument
  metadata?: Record<string, string> | null | undefined
  /** Default: EXPIRES_IN_MS.default. */
  expiresInMs?: number | undefined
  /** Default: MAX_ATTEMPTS.default. */
  maxAttempts?: number | undefined
  /** The document printed this many times, one job (default 1). */
  copies?: number | undefined
  /** The job this one reprints. */
  reprintOf?: string | undefined
  /** The destination it was posted to (set by submit). */
  destinationId?: string | undefined
  /**
   * An operator's job (a test page, a reprint), for the audit log: written with the job when it is made. An
   * application's jobs are not audited (their events are their record).
   */
  audited?: AuditedChange | undefined
}

export type SubmitOutcome =
  | { kind: 'created'; job: Job }
  /** The idempotency key was used before: its job as it is now. */
  | { kind: 'duplicate'; job: Job }
  /** The document and metadata could not be delivered in one frame. */
  | { kind: 'too_large' }
  | { kind: 'unknown_printer'; printerId: string }
  | Extract<CreateJobOutcome, { kind: 'entitlement_limit' }>
  /** The disk is (nearly) full: no new job until there is room. */
  | { kind: 'storage_full'; freeMb: number; minFreeMb: number }
  /** A logo the project has no image of, or the document once its logos are in place breaks a limit. */
  | { kind: 'invalid'; issues: Issue[] }

export type ReprintOutcome =
  | (SubmitOutcome & { reprintOf?: string })
  | { kind: 'unknown_job' }
  /** A fan-out: each printer's job is reprinted on its own. */
  | { kind: 'fan_out'; children: string[] }
  | { kind: 'document_gone' }
  | { kind: 'printer_removed' }
  /** The reprint banner would take the document past what a document may be. */
  | { kind: 'no_room_for_mark' }

/** How long an application's cancellation waits for the agent's answer before it is answered as pending. */
export const CANCEL_WAIT_MS = 5_000

export type ApplicationCancelOutcome =
  /** CANCELLED: it never prints (also when it was cancelled before). */
  | { kind: 'cancelled'; job: Job }
  /**
   * On its way to its agent (or, for a printer that polls, not yet fetched), and its agent was asked to stop it and has
   * not answered within CANCEL_WAIT_MS.
   */
  | { kind: 'pending'; job: Job }
  /** Its agent holds it (a printer that polls fetched it), the printer has it, or it is finished otherwise. */
  | { kind: 'not_cancellable'; job: Job }
  | { kind: 'unknown' }

/** Who hears of a job as soon as it is written, and of cancellations to ask for: the dispatcher. */
export interface NewJobListener {
  jobCreated(printerId: string): void
  cancelRequested(): void
}

/** Whether there is room for new jobs (the disk guard). */
export interface Capacity {
  now(): { full: boolean; freeMb: number; minFreeMb: number }
}

/** No guard: always room (a store without a data directory to watch). */
const ALWAYS_ROOM: Capacity = { now: () => ({ full: false, freeMb: Number.POSITIVE_INFINITY, minFreeMb: 0 }) }

/** What a job service is made of: where its units run, the SQLite store (none on PostgreSQL), who hears of new jobs. */
export interface JobServiceParts {
  /** The SQLite store: its units, and the changes it tells of at once (an agent's answer to a cancellation). */
  store?: Store | undefined
  /** Where units of work run (by default at once on the store). */
  units?: UnitRunner | undefined
  listener: NewJobListener
  /** Whether there is room for new jobs (and new images: services/images.ts asks it too). */
  capacity?: Capacity | undefined
  /**
   * Who is connected now and what printers said: a failover destination's job goes to its first printer that can
   * print (services/failover.ts). None known (the CLI): to its first printer.
   */
  liveness?: (() => Liveness | Promise<Liveness>) | undefined
}

/** Without a running hub, no printer is known to be connected. */
const NOBODY_CONNECTED: Liveness = {
  connected: () => false,
  agentOnline: () => false,
  learned: () => undefined,
  recorded: false,
}

/** A submission's change: the job made (or found), and the jobs to print that it made. */
interface Submitted {
  outcome: CreateJobOutcome | CreateFanOutOutcome
  printed: Job[]
}

/**
 * What a reprint starts from: the original job and its document as stored; or why there is none (a fan-out's
 * children are reprinted one by one; a retry of the reprint finds the one it made).
 */
function* reprintable(
  db: Db,
  jobId: string,
  options: { projectId?: string | undefined; idempotencyKey?: string | undefined },
): Unit<ReprintOutcome | { original: Job; stored: PrintDocument }> {
  const original = yield* db.jobs.get(jobId)
  const fanOut = original ? undefined : yield* db.fanOuts.get(jobId)
  if (fanOut && (options.projectId === undefined || fanOut.projectId === options.projectId))
    return { kind: 'fan_out', children: (yield* db.fanOuts.children(jobId)).map((child) => child.id) }
  if (!original || (options.projectId !== undefined && original.projectId !== options.projectId)) {
    // Deleted by retention: said as such (its document is gone), not as a job that never was.
    const pruned = options.projectId !== undefined && !original && (yield* db.jobs.wasPruned(options.projectId, jobId))
    return { kind: pruned ? 'document_gone' : 'unknown_job' }
  }
  if (options.idempotencyKey !== undefined) {
    const known = yield* db.jobs.byIdempotencyKey(original.projectId, options.idempotencyKey)
    if (known) return { kind: 'duplicate', job: known, reprintOf: (yield* db.jobs.reprintOf(known.id)) ?? undefined }
  }
  const stored = yield* db.jobs.document(original.id)
  if (!stored) return { kind: 'document_gone' }
  if (!(yield* db.printers.get(original.printerId))) return { kind: 'printer_removed' }
  return { original, stored }
}

export class JobService {
  private readonly sqlite: Store | undefined
  private readonly units: UnitRunner
  private readonly listener: NewJobListener
  /** Whether there is room for new jobs (and new images: services/images.ts asks it too). */
  readonly capacity: Capacity
  /** Who is connected now, for the printer a destination's job goes to. */
  private readonly liveness: () => Liveness | Promise<Liveness>

  constructor(parts: JobServiceParts) {
    this.sqlite = parts.store
    const units = parts.units ?? (parts.store && new SqliteUnits(parts.store))
    if (!units) throw new TypeError('a job service needs a store')
    this.units = units
    this.listener = parts.listener
    this.capacity = parts.capacity ?? ALWAYS_ROOM
    this.liveness = parts.liveness ?? (() => NOBODY_CONNECTED)
  }

  /**
   * Creates the job (or finds it by its idempotency key) and settles once it is on disk: a job is
   * never reported created that a power cut could take back.
   */
  async submit(asked: JobRequest): Promise<SubmitOutcome> {
    // Most documents have no logo: their submission reads no image.
    const withLogos = asked.document.sections.some((section) => section.type === 'logo')
      ? await this.units.read((db) => placeLogos(db, asked.projectId, asked.document))
      : { document: asked.document }
    if ('issues' in withLogos) return { kind: 'invalid', issues: withLogos.issues }
    // Copies are stored as what the printer is sent: the document again and again, a cut between.
    const document =
      asked.copies && asked.copies > 1 ? withCopies(withLogos.document, asked.copies) : withLogos.document
    const request = { ...asked, document }
    const metadata = request.metadata ?? null
    // Serialised once: measured against a frame here, stored as this text.
    const serialised = JSON.stringify(request.document)
    if (!fitsInOneFrame(request.document, metadata, serialised)) return { kind: 'too_large' }
    const room = this.capacity.now()
    if (room.full) {
      // A retry of a job already accepted is still answered as it is: that costs no disk.
      const known = await this.units.read((db) => db.jobs.byIdempotencyKey(request.projectId, request.idempotencyKey))
      return known
        ? { kind: 'duplicate', job: known }
        : { kind: 'storage_full', freeMb: room.freeMb, minFreeMb: room.minFreeMb }
    }
    const job: NewJob = {
      projectId: request.projectId,
      printerId: request.printerId,
      idempotencyKey: request.idempotencyKey,
      document: request.document,
      metadata,
      expiresInMs: request.expiresInMs ?? EXPIRES_IN_MS.default,
      maxAttempts: request.maxAttempts ?? MAX_ATTEMPTS.default,
      reprintOf: request.reprintOf ?? null,
      destinationId: request.destinationId ?? null,
    }
    // Read before the change (a cluster's from its leases); one hub's at once.
    const liveness = this.liveness()
    const live = liveness instanceof Promise ? await liveness : liveness
    const { outcome, printed } = await this.units.write(function* (db): Unit<Submitted> {
      let outcome: Submitted['outcome'] = yield* createJob(db, job, serialised)
      // A name no printer of the project has may be a destination's (looked for only then: a
      // printer's job costs nothing more): a failover destination's job goes to one of its printers
      // and keeps the destination; an "all" destination's is one child job per printer.
      const destination =
        outcome.kind === 'unknown_printer' ? yield* db.destinations.get(job.projectId, job.printerId) : undefined
      let printed: Job[] = []
      if (destination?.mode === 'all') {
        const fanOut = yield* createFanOut(db, { ...job, destination: destination.name }, destination.printers)
        if (fanOut.kind === 'created') printed = fanOut.children
        outcome = fanOut
      } else if (destination) {
        const printerId = yield* printerForUnit(db, destination, live)
        outcome = yield* createJob(db, { ...job, printerId, destinationId: destination.id }, serialised)
        if (outcome.kind === 'created') printed = [outcome.job]
      } else if (outcome.kind === 'created') printed = [outcome.job]
      if (request.audited && outcome.kind === 'created') yield* recordedChange(db, request.audited)
      for (const created of printed) yield* noteLeftOut(db, created, request.document)
      return { outcome, printed }
    }, LOCKED_ROWS)
    // Told before the commit: the dispatcher hands it only to an agent whose ledger commits with it.
    for (const created of printed) this.listener.jobCreated(created.printerId)
    await this.units.durable()
    if (outcome.kind === 'unknown_printer') return { kind: 'unknown_printer', printerId: request.printerId }
    if (outcome.kind === 'created') return { kind: 'created', job: outcome.job }
    return outcome
  }

  /**
   * The same document again, on the same printer, under a REPRINT banner with the original's time;
   * the new job remembers the one it reprints. `projectId`, when given, must be the job's (an
   * application's reprint); `idempotencyKey` makes a retry find the reprint it made.
   */
  async reprint(
    jobId: string,
    options: { projectId?: string; idempotencyKey?: string; actor?: Actor } = {},
  ): Promise<ReprintOutcome> {
    const found = await this.units.read((db) => reprintable(db, jobId, options))
    if ('kind' in found) return found
    const { original, stored } = found
    const document = reprintDocument(stored, Date.parse(original.createdAt))
    if (!validate(documentRule, document).ok || !fitsInOneFrame(document, original.metadata))
      return { kind: 'no_room_for_mark' }
    const idempotencyKey = options.idempotencyKey ?? `reprint-${original.id}-${crypto.randomUUID()}`
    const outcome = await this.submit({
      projectId: original.projectId,
      printerId: original.printerId,
      idempotencyKey,
      document,
      metadata: original.metadata,
      reprintOf: original.id,
      // An operator's reprint is in the audit log; an application's is its events'.
      audited: options.actor && { actor: options.actor, action: 'jobs.reprint', target: original.id },
    })
    if (outcome.kind !== 'created' && outcome.kind !== 'duplicate') return outcome
    const reprintOf = await this.units.read((db) => db.jobs.reprintOf(outcome.job.id))
    return { ...outcome, reprintOf: reprintOf ?? undefined }
  }

  /**
   * One of the project's jobs (or fan-outs), and a fan-out's children (one job per printer); undefined when it has none
   * of that ID.
   */
  get(projectId: string, jobId: string): Promise<{ job: Job; children?: Job[] } | undefined> {
    return this.units.read(function* (db): Unit<{ job: Job; children?: Job[] } | undefined> {
      const job = yield* db.jobs.get(jobId)
      if (job) return job.projectId === projectId ? { job } : undefined
      const parent = yield* db.fanOuts.get(jobId)
      return parent?.projectId === projectId ? { job: parent, children: yield* db.fanOuts.children(jobId) } : undefined
    })
  }

  /**
   * An application cancels a fan-out: each of its children that can still be cancelled is, at
   * once. Cancelled when the fan-out ends CANCELLED; pending while an agent was asked and has not
   * answered; not cancellable otherwise (a child printing or printed stays as it is).
   */
  private async cancelFanOut(projectId: string, jobId: string, waitMs: number): Promise<ApplicationCancelOutcome> {
    const children = await this.units.read(function* (db): Unit<Job[] | undefined> {
      const parent = yield* db.fanOuts.get(jobId)
      return parent?.projectId === projectId ? yield* db.fanOuts.children(jobId) : undefined
    })
    if (!children) return { kind: 'unknown' }
    const outcomes = await Promise.all(
      children
        .filter((child) => !isTerminal(child.state))
        .map((child) => this.cancelForApplication(projectId, child.id, waitMs)),
    )
    const now = await this.units.read((db) => db.fanOuts.get(jobId))
    if (!now) return { kind: 'unknown' }
    if (now.state === 'CANCELLED') return { kind: 'cancelled', job: now }
    return { kind: outcomes.some((outcome) => outcome.kind === 'pending') ? 'pending' : 'not_cancellable', job: now }
  }

  /**
   * An operator cancels: a PENDING job at once; a dispatched one is marked, and its agent is asked
   * (it ends CANCELLED unless the agent reports it already submitted it).
   */
  async cancel(actor: Actor, jobId: string): Promise<CancelOutcome> {
    const outcome = await this.units.write(function* (db): Unit<CancelOutcome> {
      const done = yield* cancelJob(db, jobId)
      if (done.kind === 'cancelled' || done.kind === 'requested')
        yield* recordedChange(db, { actor, action: 'jobs.cancel', target: jobId })
      return done
    })
    if (outcome.kind === 'requested') this.listener.cancelRequested()
    return outcome
  }

  /**
   * An application cancels one of its project's jobs: a PENDING one at once; a DISPATCHING one is
   * asked of its agent, and so is a DELIVERED one for a printer that polls the hub (until the
   * printer fetches it, it is only offered); the answer is waited for (at most `waitMs`): exactly
   * one of the agent and the cancellation wins. Settles once the outcome is on disk.
   */
  async cancelForApplication(
    projectId: string,
    jobId: string,
    waitMs = CANCEL_WAIT_MS,
  ): Promise<ApplicationCancelOutcome> {
    const job = await this.units.read((db) => db.jobs.get(jobId))
    if (!job) return this.cancelFanOut(projectId, jobId, waitMs)
    if (job.projectId !== projectId) return { kind: 'unknown' }
    // Listening before asking: the agent's answer cannot slip in between.
    const answer = answerOf(this.units, this.sqlite, jobId)
    let timer: Timer | undefined
    try {
      const outcome = await this.units.write(function* (db): Unit<CancelOutcome> {
        return yield* cancelJob(db, jobId, applicationCancel(yield* db.printers.get(job.printerId)))
      })
      if (outcome.kind === 'unknown') return outcome
      if (outcome.kind === 'requested') {
        this.listener.cancelRequested()
        await Promise.race([answer.settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))])
      }
      await this.units.durable()
      const now = await this.units.read((db) => db.jobs.get(jobId))
      if (!now) return { kind: 'unknown' }
      if (now.state === 'CANCELLED') return { kind: 'cancelled', job: now }
      return {
        kind: CANCEL_OPEN.includes(now.state) && outcome.kind === 'requested' ? 'pending' : 'not_cancellable',
        job: now,
      }
    } finally {
      clearTimeout(timer)
      answer.stop()
    }
  }
}
