// Creating a job: for applications' requests, and for the dashboard's reprints and test pages.
import type { Job } from '../protocol/job.ts'
import type { NewJob } from '../store/jobs.ts'
import type { ApiContext } from '../api/context.ts'
import { ApiError } from '../http/errors.ts'

/** When a project is at its limit of unfinished jobs, try again after this long. */
export const ENTITLEMENT_RETRY_AFTER_SECONDS = 30

/** Creates the job (or finds it by its idempotency key) and settles once it is on disk. */
export async function createJob({ store, jobCreated }: Pick<ApiContext, 'store' | 'jobCreated'>, job: NewJob): Promise<{ job: Job; duplicate: boolean }> {
  const outcome = store.jobs.create(job)
  if (outcome.kind === 'unknown_printer') throw new ApiError(404, 'not_found', `This project has no printer "${job.printerId}".`)
  if (outcome.kind === 'entitlement_limit') {
    throw new ApiError(429, 'entitlement_limit', `The project has ${outcome.openJobs} unfinished jobs, its limit; try again when some have finished.`, undefined, {
      'retry-after': String(ENTITLEMENT_RETRY_AFTER_SECONDS),
    })
  }
  // Told before the commit: the dispatcher hands it only to an agent whose ledger commits with it.
  if (outcome.kind === 'created') jobCreated(outcome.job.printerId)
  // The answer waits for the disk: a job is never reported created that a power cut could take back.
  await store.commits.durable()
  return { job: outcome.job, duplicate: outcome.kind === 'duplicate' }
}
