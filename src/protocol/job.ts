// The public job: its states and its projection, as the print job service specification defines them.
import {
  JOB_LIST_LIMIT,
  MAX_ATTEMPTS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_MESSAGE_LENGTH,
  MAX_PRINTER_ID_LENGTH,
} from './limits.ts'
import { metadataRule } from './job-request.ts'
import { array, boolean, integer, nullable, object, oneOf, optional, type Rule, string } from './rules.ts'
import { MAX_DESTINATION_PRINTERS } from './destinations.ts'
import { timestamp } from './values.ts'

export const JOB_STATES = [
  'PENDING',
  'DISPATCHING',
  'DELIVERED',
  'PRINTING',
  'COMPLETED',
  'FAILED',
  'EXPIRED',
  'CANCELLED',
] as const
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

/** The list with paging asked for (limit or cursor): `nextCursor` fetches the next older page; null at the end. */
export interface PagedJobsResponse extends ListJobsResponse {
  nextCursor: string | null
}

const text = string({ max: MAX_MESSAGE_LENGTH })
const id = string({ min: 1, max: MAX_PRINTER_ID_LENGTH })

/** The projection as a rule: what a client may rely on in every answer that carries a job. */
export const jobRule: Rule<Job> = object({
  id,
  projectId: id,
  printerId: id,
  idempotencyKey: string({ min: 1, max: MAX_IDEMPOTENCY_KEY_LENGTH }),
  state: oneOf(JOB_STATES),
  metadata: nullable(metadataRule),
  expiresAt: timestamp,
  attemptCount: integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  maxAttempts: integer(MAX_ATTEMPTS),
  lastErrorCode: nullable(text),
  lastErrorMessage: nullable(text),
  receivedAt: nullable(timestamp),
  submittedAt: nullable(timestamp),
  createdAt: timestamp,
  updatedAt: timestamp,
})

export const createJobResponseRule: Rule<CreateJobResponse> = object({ job: jobRule, duplicate: boolean() })

/**
 * One job (`GET …/jobs/:jobId`). A job posted to a destination of mode "all" (a fan-out) also has
 * `children`: one job per printer, in the destination's order; its own state summarises theirs.
 */
export interface JobDetailResponse {
  job: Job
  children?: Job[]
}
export const jobDetailResponseRule: Rule<JobDetailResponse> = object({
  job: jobRule,
  children: optional(array(jobRule, { max: MAX_DESTINATION_PRINTERS })),
})

/**
 * A reprint (`POST …/jobs/:jobId/reprint`): the new job, whether the idempotency key had made it before, and the job
 * it reprints.
 */
export interface ReprintJobResponse extends CreateJobResponse {
  reprintOf: string
}
export const reprintJobResponseRule: Rule<ReprintJobResponse> = object({
  job: jobRule,
  duplicate: boolean(),
  reprintOf: text,
})
export const listJobsResponseRule: Rule<ListJobsResponse> = object({
  jobs: array(jobRule, { max: JOB_LIST_LIMIT }),
  keyPrefix: string({ min: 1, max: 64 }),
})
export const pagedJobsResponseRule: Rule<PagedJobsResponse> = object({
  jobs: array(jobRule, { max: JOB_LIST_LIMIT }),
  keyPrefix: string({ min: 1, max: 64 }),
  nextCursor: nullable(string({ min: 1, max: 32_768 })),
})
