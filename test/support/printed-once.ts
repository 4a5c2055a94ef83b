// The cluster's promise, checked the same way by every test that stops or pauses nodes under load: each job printed
// once and COMPLETED, or, caught between its intent to print and its record, FAILED as "may have printed" and on the
// paper at most once. Never twice.
import { expect } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'

export type JobEnd = Pick<Job, 'id' | 'state' | 'lastErrorCode'>

/** `printed`: how many times the job's ticket is on the paper. */
export function expectPrintedOnce(jobs: readonly JobEnd[], printed: (jobId: string) => number): void {
  for (const job of jobs) {
    const count = printed(job.id)
    if (job.state === 'COMPLETED') expect({ job: job.id, count }).toEqual({ job: job.id, count: 1 })
    else {
      expect(job).toMatchObject({ state: 'FAILED', lastErrorCode: 'job.recovery_uncertain' })
      expect(count).toBeLessThanOrEqual(1)
    }
  }
}
