// How fast one API key may submit jobs: a token bucket of jobs and one of bytes per key (a burst
// of a minute's worth at once, then refilled evenly). A submission takes its job and its bytes
// when it starts, in one step (submissions at the same moment are counted one by one), and gives
// them back unless it created a job: a retry answered with its existing job costs nothing.
import { rateLimited } from './errors.ts'

export interface SubmissionRate {
  jobsPerMinute: number
  bytesPerMinute: number
}

interface Bucket {
  jobs: number
  bytes: number
  at: number
}

/** A submission's share of its key's quota, to give back when it created no job. */
export interface QuotaTicket {
  giveBack(): void
}

/**
 * Runs a submission on its share of the quota: the share is kept only when it created a job, and
 * given back otherwise (a duplicate, a refusal, an error).
 */
export async function onShare<T extends { kind: string }>(share: QuotaTicket, submit: () => Promise<T>): Promise<T> {
  let outcome: T | undefined
  try {
    outcome = await submit()
  } finally {
    if (outcome?.kind !== 'created') share.giveBack()
  }
  return outcome
}

export class SubmissionQuota {
  private readonly buckets = new Map<string, Bucket>()

  constructor(
    private readonly rate: () => SubmissionRate,
    private readonly now: () => number,
  ) {}

  /** Takes one job of `bytes` from `keyId`'s quota, or throws 429 rate_limited saying when there is room. */
  take(keyId: string, bytes: number): QuotaTicket {
    const { jobsPerMinute, bytesPerMinute } = this.rate()
    const now = this.now()
    const bucket = this.buckets.get(keyId) ?? { jobs: jobsPerMinute, bytes: bytesPerMinute, at: now }
    const elapsed = Math.max(0, now - bucket.at)
    bucket.jobs = Math.min(jobsPerMinute, bucket.jobs + (elapsed * jobsPerMinute) / 60_000)
    bucket.bytes = Math.min(bytesPerMinute, bucket.bytes + (elapsed * bytesPerMinute) / 60_000)
    bucket.at = now
    this.buckets.set(keyId, bucket)
    const waitMs = Math.max(
      bucket.jobs >= 1 ? 0 : ((1 - bucket.jobs) * 60_000) / jobsPerMinute,
      bucket.bytes >= bytes ? 0 : ((bytes - bucket.bytes) * 60_000) / bytesPerMinute,
    )
    if (waitMs > 0) {
      const what =
        bucket.jobs >= 1 ? `${Math.round(bytesPerMinute / 1_048_576)} MB of documents` : `${jobsPerMinute} jobs`
      throw rateLimited(
        'rate_limited',
        `This API key submits more than ${what} a minute, its limit; try again shortly.`,
        waitMs,
      )
    }
    bucket.jobs -= 1
    bucket.bytes -= bytes
    let given = false
    return {
      giveBack: () => {
        if (given) return
        given = true
        bucket.jobs = Math.min(jobsPerMinute, bucket.jobs + 1)
        bucket.bytes = Math.min(bytesPerMinute, bucket.bytes + bytes)
      },
    }
  }
}
