// A job's row in `jobs`: its columns as the statements read them, the job it reads as, and the
// statement that inserts a new one (jobs.ts).
import type { Job } from '../protocol/job.ts'
import { JOB_COLUMNS, jobOf, type JobRowOf } from '../storage/job-rows.ts'

/** A job's row as SQLite answers it: its numbers as numbers, its metadata as JSON text. */
export interface JobRow extends JobRowOf {
  seq: number
  metadata: string | null
  expires_at: number
  received_at: number | null
  submitted_at: number | null
  created_at: number
  updated_at: number
}

export const toJob: (row: JobRow) => Job = jobOf

export { JOB_COLUMNS }

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
