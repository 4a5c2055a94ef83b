// What a job submission's outcome is, in HTTP terms, for every route that creates jobs (and reprints them).
import { MAX_FRAME_BYTES } from '../protocol/limits.ts'
import type { Job } from '../protocol/job.ts'
import {
  type ApplicationCancelOutcome,
  ENTITLEMENT_RETRY_AFTER_SECONDS,
  type ReprintOutcome,
  type SubmitOutcome,
} from '../services/jobs.ts'
import { ApiError, conflict, documentPruned, invalidRequest, notFound, storageFull } from './errors.ts'

/** The job created or found again, or the error that says why there is none. */
export function submittedJob(outcome: SubmitOutcome): { job: Job; duplicate: boolean } {
  switch (outcome.kind) {
    case 'created':
    case 'duplicate':
      return { job: outcome.job, duplicate: outcome.kind === 'duplicate' }
    case 'invalid':
      throw invalidRequest(outcome.issues)
    case 'too_large':
      throw new ApiError(
        'payload_too_large',
        `The document does not fit in one ${MAX_FRAME_BYTES}-byte delivery frame.`,
      )
    case 'unknown_printer':
      throw notFound(`This project has no printer "${outcome.printerId}".`)
    case 'storage_full':
      throw storageFull(
        `The hub's disk has ${outcome.freeMb} MB free, under its minimum of ` +
          `${outcome.minFreeMb} MB: it takes no new job until there is room. Try ` +
          `again later.`,
      )
    case 'entitlement_limit':
      throw new ApiError(
        'entitlement_limit',
        outcome.limited === 'jobs'
          ? `The project has ${outcome.open} unfinished jobs, its limit; try again when some have finished.`
          : `The project's unfinished jobs hold ` +
              `${(outcome.open / 1_048_576).toFixed(1)} MB of documents, and this one ` +
              `would pass its limit of ${(outcome.limit / 1_048_576).toFixed(1)} MB; ` +
              `try again when some have finished.`,
        {
          headers: { 'retry-after': String(ENTITLEMENT_RETRY_AFTER_SECONDS) },
        },
      )
  }
}

/**
 * A reprint in HTTP terms: the new job (or the one its key made before) and the job it reprints; 404, 409 otherwise.
 */
export function reprintedJob(outcome: ReprintOutcome): { job: Job; duplicate: boolean; reprintOf: string } {
  switch (outcome.kind) {
    case 'unknown_job':
      throw notFound('This project has no such job.')
    case 'fan_out':
      throw conflict(
        `This job went to every printer of its destination: reprint the job of ` +
          `the printer that needs it (${outcome.children.join(', ')}).`,
      )
    case 'document_gone':
      throw documentPruned()
    case 'printer_removed':
      throw notFound("This job's printer was removed: there is nothing to reprint it on.")
    case 'no_room_for_mark':
      throw conflict(
        'The REPRINT banner would take the document past what a document may be; send the job again instead.',
      )
    case 'created':
    case 'duplicate':
      // A key that made a job other than a reprint is answered as the job it made, reprinting nothing.
      if (outcome.reprintOf === undefined)
        throw conflict('This idempotency key was used for a job that is not a reprint; use a new key for the reprint.')
      return { ...submittedJob(outcome), reprintOf: outcome.reprintOf }
    default:
      // Too large, no room, a full disk: said as for any submission (submittedJob throws them).
      submittedJob(outcome)
      throw new Error(`a reprint outcome ${outcome.kind} has no answer`)
  }
}

/** One of the project's jobs, or 404 (a job of another project is not found either, never forbidden). */
export function projectJob(job: Job | undefined, projectId: string): Job {
  if (!job || job.projectId !== projectId) throw notFound('This project has no such job.')
  return job
}

/** An application's cancellation in HTTP terms: 200 cancelled, 202 asked of the agent, 409 too late. */
export function cancelledJob(outcome: ApplicationCancelOutcome): { status: 200 | 202; body: { job: Job } } {
  switch (outcome.kind) {
    case 'unknown':
      throw notFound('This project has no such job.')
    case 'cancelled':
      return { status: 200, body: { job: outcome.job } }
    case 'pending':
      return { status: 202, body: { job: outcome.job } }
    case 'not_cancellable':
      throw new ApiError(
        'job_not_cancellable',
        `The job is ${outcome.job.state}: ` +
          (outcome.job.state === 'DELIVERED' || outcome.job.state === 'PRINTING'
            ? 'it has reached its agent'
            : 'it is finished') +
          `, too late to cancel.`,
        {
          details: [{ path: 'job.state', message: outcome.job.state }],
        },
      )
  }
}
