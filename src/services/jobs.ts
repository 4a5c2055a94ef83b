// Jobs as every edge makes them: applications' submissions (the public API), reprints, test pages
// and printed pairing codes (the admin API), cancellations (the admin API and the CLI). Outcomes
// are values; each edge says them in its own words.
import { EXPIRES_IN_MS, MAX_ATTEMPTS } from '../protocol/limits.ts'
import type { PrintDocument } from '../protocol/document.ts'
import type { Job } from '../protocol/job.ts'
import { metadataRule } from '../protocol/job-request.ts'
import { fitsInOneFrame } from '../protocol/print-job-frame.ts'
import { validate } from '../protocol/rules.ts'
import type { CancelOutcome } from '../store/job-states.ts'
import type { Store } from '../store/store.ts'

/** When a project is at its limit of unfinished jobs, try again after this long. */
export const ENTITLEMENT_RETRY_AFTER_SECONDS = 30
/** The metadata field that marks a reprint, naming the job it reprints. */
export const REPRINT_OF = 'reprintOf'

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
}

export type SubmitOutcome =
  | { kind: 'created'; job: Job }
  /** The idempotency key was used before: its job as it is now. */
  | { kind: 'duplicate'; job: Job }
  /** The document and metadata could not be delivered in one frame. */
  | { kind: 'too_large' }
  | { kind: 'unknown_printer'; printerId: string }
  | { kind: 'entitlement_limit'; limited: 'jobs' | 'bytes'; open: number; limit: number }
  /** The disk is (nearly) full: no new job until there is room. */
  | { kind: 'storage_full'; freeMb: number; minFreeMb: number }

export type ReprintOutcome =
  | SubmitOutcome
  | { kind: 'unknown_job' }
  | { kind: 'document_gone' }
  | { kind: 'printer_removed' }
  /** The reprint mark does not fit the limits the original met without it. */
  | { kind: 'no_room_for_mark' }

/** Who hears of a job as soon as it is written: the dispatcher, which hands it on. */
export interface NewJobListener {
  jobCreated(printerId: string): void
}

/** Whether there is room for new jobs (the disk guard). */
export interface Capacity {
  now(): { full: boolean; freeMb: number; minFreeMb: number }
}

/** No guard: always room (a store without a data directory to watch). */
const ALWAYS_ROOM: Capacity = { now: () => ({ full: false, freeMb: Number.POSITIVE_INFINITY, minFreeMb: 0 }) }

export class JobService {
  constructor(
    private readonly store: Store,
    private readonly listener: NewJobListener,
    private readonly capacity: Capacity = ALWAYS_ROOM,
  ) {}

  /**
   * Creates the job (or finds it by its idempotency key) and settles once it is on disk: a job is
   * never reported created that a power cut could take back.
   */
  async submit(request: JobRequest): Promise<SubmitOutcome> {
    const metadata = request.metadata ?? null
    if (!fitsInOneFrame(request.document, metadata)) return { kind: 'too_large' }
    const room = this.capacity.now()
    if (room.full) {
      // A retry of a job already accepted is still answered as it is: that costs no disk.
      const known = this.store.jobs.byIdempotencyKey(request.projectId, request.idempotencyKey)
      return known ? { kind: 'duplicate', job: known } : { kind: 'storage_full', freeMb: room.freeMb, minFreeMb: room.minFreeMb }
    }
    const outcome = this.store.jobs.create({
      projectId: request.projectId,
      printerId: request.printerId,
      idempotencyKey: request.idempotencyKey,
      document: request.document,
      metadata,
      expiresInMs: request.expiresInMs ?? EXPIRES_IN_MS.default,
      maxAttempts: request.maxAttempts ?? MAX_ATTEMPTS.default,
    })
    // Told before the commit: the dispatcher hands it only to an agent whose ledger commits with it.
    if (outcome.kind === 'created') this.listener.jobCreated(outcome.job.printerId)
    await this.store.commits.durable()
    if (outcome.kind === 'unknown_printer') return { kind: 'unknown_printer', printerId: request.printerId }
    return outcome
  }

  /** The same document again, on the same printer, marked as a reprint of `jobId`. */
  async reprint(jobId: string): Promise<ReprintOutcome> {
    const original = this.store.jobs.get(jobId)
    if (!original) return { kind: 'unknown_job' }
    const document = this.store.jobs.document(original.id)
    if (!document) return { kind: 'document_gone' }
    if (!this.store.printers.get(original.printerId)) return { kind: 'printer_removed' }
    const metadata = { ...original.metadata, [REPRINT_OF]: original.id }
    if (!validate(metadataRule, metadata).ok || !fitsInOneFrame(document, metadata)) return { kind: 'no_room_for_mark' }
    return this.submit({ projectId: original.projectId, printerId: original.printerId, idempotencyKey: `reprint-${original.id}-${crypto.randomUUID()}`, document, metadata })
  }

  /**
   * An operator cancels: a PENDING job at once; a dispatched one is marked, and its agent is asked
   * (it ends CANCELLED unless the agent reports it already submitted it).
   */
  cancel(jobId: string): CancelOutcome {
    return this.store.jobStates.cancel(jobId)
  }
}
