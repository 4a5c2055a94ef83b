// The public job: its states and its projection, as the print job service specification defines them.

export const JOB_STATES = ['PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING', 'COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'] as const
export type JobState = (typeof JOB_STATES)[number]

export function isJobState(value: unknown): value is JobState {
  return JOB_STATES.includes(value as JobState)
}

/** The public projection of a job. It never contains the print document. Timestamps are ISO 8601 UTC. */
export interface Job {
  id: string
  projectId: string
  printerId: string
  idempotencyKey: string
  state: JobState
  metadata: Record<string, string> | null
  expiresAt: string
  attemptCount: number
  maxAttempts: number
  lastErrorCode: string | null
  lastErrorMessage: string | null
  receivedAt: string | null
  submittedAt: string | null
  createdAt: string
  updatedAt: string
}

export interface CreateJobResponse {
  job: Job
  duplicate: boolean
}

export interface ListJobsResponse {
  jobs: Job[]
  keyPrefix: string
}
