// Jobs and fan-outs as both stores' rows hold them, and the jobs made of them (rows.ts says how numbers, times and JSON
// come from each store). A fan-out reads as a job whose state its children make (domain/fan-out.ts).
import { summariseFanOut } from '../domain/fan-out.ts'
import { MAX_FAILURE_MESSAGE_LENGTH } from '../protocol/failures.ts'
import type { Job, JobState } from '../protocol/job.ts'
import { type Big, int, json, time, timeOrNull } from './rows.ts'

/** The columns every read of a job takes, in both stores. */
export const JOB_COLUMNS = `seq, id, project_id, printer_id, idempotency_key, state, metadata, expires_at,
  attempt_count, max_attempts, last_error_code, last_error_message, received_at, submitted_at, created_at, updated_at`

export interface JobRowOf {
  seq: Big
  id: string
  project_id: string
  printer_id: string
  idempotency_key: string
  state: JobState
  /** JSON text (SQLite) or parsed (PostgreSQL). */
  metadata: string | Record<string, string> | null
  expires_at: Big
  attempt_count: number
  max_attempts: number
  last_error_code: string | null
  last_error_message: string | null
  received_at: Big | null
  submitted_at: Big | null
  created_at: Big
  updated_at: Big
}

export function jobOf(row: JobRowOf): Job {
  return {
    id: row.id,
    projectId: row.project_id,
    printerId: row.printer_id,
    idempotencyKey: row.idempotency_key,
    state: row.state,
    metadata: row.metadata === null ? null : json<Record<string, string>>(row.metadata),
    expiresAt: time(row.expires_at),
    attemptCount: row.attempt_count,
    maxAttempts: row.max_attempts,
    lastErrorCode: row.last_error_code,
    lastErrorMessage: row.last_error_message,
    receivedAt: timeOrNull(row.received_at),
    submittedAt: timeOrNull(row.submitted_at),
    createdAt: time(row.created_at),
    updatedAt: time(row.updated_at),
  }
}

export interface FanOutRowOf {
  seq: Big
  id: string
  project_id: string
  destination: string
  idempotency_key: string
  metadata: string | Record<string, string> | null
  expires_at: Big
  max_attempts: number
  created_at: Big
}

/** A child as a fan-out's summary reads it: its row and its printer's project-local ID. */
export type FanOutChildRow = JobRowOf & { printer: string }

/** A fan-out as a job: its state and attempts its children's, summarised (at least one child). */
export function fanOutJobOf(row: FanOutRowOf, children: readonly FanOutChildRow[]): Job {
  const big = (value: Big | null) => (value === null ? null : int(value))
  const summary = summariseFanOut(
    children.map((child) => ({
      printer: child.printer,
      state: child.state,
      attemptCount: child.attempt_count,
      lastErrorCode: child.last_error_code,
      lastErrorMessage: child.last_error_message,
      receivedAt: big(child.received_at),
      submittedAt: big(child.submitted_at),
      updatedAt: int(child.updated_at),
    })),
    int(row.created_at),
  )
  return {
    id: row.id,
    projectId: row.project_id,
    // What the application posted to: the destination's name.
    printerId: row.destination,
    idempotencyKey: row.idempotency_key,
    state: summary.state,
    metadata: row.metadata === null ? null : json<Record<string, string>>(row.metadata),
    expiresAt: time(row.expires_at),
    attemptCount: summary.attemptCount,
    maxAttempts: row.max_attempts,
    lastErrorCode: summary.lastErrorCode,
    lastErrorMessage: summary.lastErrorMessage?.slice(0, MAX_FAILURE_MESSAGE_LENGTH) ?? null,
    receivedAt: timeOrNull(summary.receivedAt),
    submittedAt: timeOrNull(summary.submittedAt),
    createdAt: time(row.created_at),
    updatedAt: time(summary.updatedAt),
  }
}
