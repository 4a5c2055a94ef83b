// A ledger's job as stored (ledger.ts): its row, read back as a job, and the canonical text of a
// received payload, which is what is stored and what its hash (for duplicate checks) is of.
import { createHash } from 'node:crypto'
import type { ServerMessage } from '../protocol/frames.ts'
import type { LedgerState } from './ledger-transitions.ts'

export type PrintJobPayload = Extract<ServerMessage, { type: 'server.print_job' }>['payload']
export interface LedgerJob {
  seq: number
  jobId: string
  idempotencyKey: string
  printerId: string
  payload: PrintJobPayload | null
  sourceMessageId: string
  state: LedgerState
  receivedAt: number
  recoveryCount: number
  /** The frames that reported the job's end, once it ended. */
  reports: string[]
}

/**
 * A job a crash left between the record of intent and the record of the result, and not sent
 * again: `printed` when its hand-over mark says the printer printed it (hand-over-marks.ts), else
 * it may have printed.
 */
export interface RecoveredJob extends LedgerJob {
  printed: boolean
}

/** A job's row in the built-in agent's `ledger_intents`: a remote agent's row without its payload. */
export interface IntentRow {
  seq: number
  job_id: string
  idempotency_key: string
  printer_id: string
  source_message_id: string
  state: LedgerState
  received_at: number
  recovery_count: number
  reports: string | null
}

export interface JobRow extends IntentRow {
  payload: string | null
  payload_sha256: string
}

export const toJob = (row: IntentRow & { payload?: string | null }): LedgerJob => ({
  seq: row.seq,
  jobId: row.job_id,
  idempotencyKey: row.idempotency_key,
  printerId: row.printer_id,
  payload: row.payload == null ? null : (JSON.parse(row.payload) as PrintJobPayload),
  sourceMessageId: row.source_message_id,
  state: row.state,
  receivedAt: row.received_at,
  recoveryCount: row.recovery_count,
  reports: row.reports === null ? [] : (JSON.parse(row.reports) as string[]),
})

/**
 * JSON with keys sorted, so equal jobs hash equally whatever order their fields came in; what
 * JSON.stringify leaves out (a key whose value is undefined) or writes as null, so does it.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')
