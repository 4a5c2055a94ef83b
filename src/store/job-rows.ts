// A job's row in `jobs`: its columns as the statements read them, the job it reads as, and the
// statement that inserts a new one (jobs.ts).
import type { Job, JobState } from '../protocol/job.ts'
import { iso, isoOrNull } from '../storage/time.ts'

export interface JobRow {
  seq: number
  id: string
  project_id: string
  printer_id: string
  idempotency_key: string
  state: JobState
  metadata: string | null
  expires_at: number
  attempt_count: number
  max_attempts: number
  last_error_code: string | null
  last_error_message: string | null
  received_at: number | null
  submitted_at: number | null
  created_at: number
  updated_at: number
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    projectId: row.project_id,
    printerId: row.printer_id,
    idempotencyKey: row.idempotency_key,
    state: row.state,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, string>),
    expiresAt: iso(row.expires_at),
    attemptCount: row.attempt_count,
    maxAttempts: row.max_attempts,
    lastErrorCode: row.last_error_code,
    lastErrorMessage: row.last_error_message,
    receivedAt: isoOrNull(row.received_at),
    submittedAt: isoOrNull(row.submitted_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  }
}

export const JOB_COLUMNS = `seq, id, project_id, printer_id, idempotency_key, state, metadata, expires_at,
  attempt_count, max_attempts, last_error_code, last_error_message, received_at, submitted_at, created_at, updated_at`

/**
 * A new PENDING job: id, project, printer, idempotency key, metadata, expiry, attempts, created, updated, reprint of,
 * destination, fan-out.
 */
export const JOB_INSERT_SQL = `INSERT INTO jobs (id, project_id, printer_id, idempotency_key, state, metadata,
  expires_at, max_attempts, created_at, updated_at, reprint_of, destination_id, fan_out_id)
  VALUES (?, ?, ?, ?, 'PENDING', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${JOB_COLUMNS}`

/** The values JOB_INSERT_SQL takes, in its order. */
export type JobInsertValues = [
  id: string,
  projectId: string,
  printerId: string,
  idempotencyKey: string,
  metadata: string | null,
  expiresAt: number,
  maxAttempts: number,
  createdAt: number,
  updatedAt: number,
  reprintOf: string | null,
  destinationId: string | null,
  fanOutId: string | null,
]
