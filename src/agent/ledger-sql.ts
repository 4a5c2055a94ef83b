// The statements of a remote agent's ledger (ledger.ts) over its tables (ledger-schema.ts): its jobs,
// their outbox and its own printers. Each list of states comes from the ledger's table
// (ledger-transitions.ts), never from input.
import { bound } from '../sqlite/bound.ts'
import { LEDGER_STATE_SETS, LEDGER_TRANSITIONS, ledgerStateIn, type ReportedLedgerEvent } from './ledger-transitions.ts'

/** A received job: job ID, idempotency key, printer, payload, its hash, source message, received, updated. */
export const INSERT_JOB = `INSERT INTO ledger_jobs (job_id, idempotency_key, printer_id, payload, payload_sha256,
       source_message_id, state, received_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 'received', ?, ?) ON CONFLICT DO NOTHING RETURNING seq`

export const JOB_BY_ID = 'SELECT * FROM ledger_jobs WHERE job_id = ?'

/** A printer's oldest job queued (received, or being written: then none is next). */
export const FIRST_QUEUED = `SELECT * FROM ledger_jobs WHERE printer_id = ${bound()} AND
          ${ledgerStateIn(LEDGER_STATE_SETS.queued)} ORDER BY seq LIMIT 1`

/** A printer's job queued after job `seq`. */
export const QUEUED_AFTER = `SELECT * FROM ledger_jobs WHERE printer_id = ${bound()} AND
          ${ledgerStateIn(LEDGER_STATE_SETS.queued)} AND seq > ? ORDER BY
          seq LIMIT 1`

/** Jobs not finished, or with reports still in the outbox, without their payloads. */
export const UNREPORTED_JOBS = `SELECT seq, job_id, idempotency_key, printer_id, source_message_id, state, received_at,
         recovery_count, reports FROM ledger_jobs
         WHERE ${ledgerStateIn(LEDGER_STATE_SETS.unfinished)} OR seq IN (SELECT job_seq FROM ledger_outbox)
         ORDER BY seq`

export const PRINTERS_WITH_WORK = `SELECT DISTINCT printer_id FROM ledger_jobs
  WHERE ${ledgerStateIn(LEDGER_STATE_SETS.waiting)}`

export const CLAIM = `UPDATE ledger_jobs SET state = ?, updated_at = ? WHERE seq = ? AND
              ${ledgerStateIn(LEDGER_TRANSITIONS.claim.from)}`

export const JOB_REPORTS = 'SELECT reports FROM ledger_jobs WHERE seq = ?'

/** `event` applied to a job: its state, its reports so far, and for a `terminal` one its payload let go. */
export const finishSql = (event: ReportedLedgerEvent, terminal: boolean): string =>
  `UPDATE ledger_jobs SET state = ?, updated_at = ?, reports =
            ?${terminal ? ', payload = NULL' : ''} WHERE seq = ? AND
            ${ledgerStateIn(LEDGER_TRANSITIONS[event].from)}`

export const QUEUE_REPORT = 'INSERT INTO ledger_outbox (job_seq, frame, created_at) VALUES (?, ?, ?)'

export const INTERRUPTED_JOBS = `SELECT * FROM ledger_jobs
  WHERE ${ledgerStateIn(LEDGER_STATE_SETS.interrupted)} ORDER BY seq`

export const CLAIMED_JOBS = `SELECT seq FROM ledger_jobs WHERE ${ledgerStateIn(LEDGER_TRANSITIONS.resume.from)}`

/** A claim taken back, counted, while the job's count is under its bound. */
export const RESUME = `UPDATE ledger_jobs SET state = ?, updated_at = ?, recovery_count =
      recovery_count + 1 WHERE seq = ? AND recovery_count < ? AND
      ${ledgerStateIn(LEDGER_TRANSITIONS.resume.from)}`

export const LAST_QUEUED_REPORT = 'SELECT max(seq) AS seq FROM ledger_outbox'

export const QUEUED_REPORTS = 'SELECT seq, frame FROM ledger_outbox WHERE seq <= ? ORDER BY seq LIMIT ?'

export const REPORT_SENT = 'DELETE FROM ledger_outbox WHERE seq = ?'

/** Finished jobs beyond the newest `?`. */
export const FORGET_OLD_JOBS = `DELETE FROM ledger_jobs WHERE seq IN (
         SELECT seq FROM ledger_jobs WHERE ${ledgerStateIn(LEDGER_STATE_SETS.finished)}
         ORDER BY seq DESC LIMIT -1 OFFSET ?)`

export const INSERT_PRINTER = `INSERT INTO ledger_printers (id, name, connection, profile, width,
            created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`

export const PRINTERS = 'SELECT id, name, connection, profile, width FROM ledger_printers ORDER BY created_at, id'
