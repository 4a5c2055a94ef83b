// What a transport says of a job it handed to a printer, and of a printer it asked: outcomes are
// values (a printer out of paper is an answer, not an error); exceptions are left for bugs.
import type { Failure } from '../protocol/failures.ts'
import type { PaperWidth } from '../protocol/document.ts'
import type { PrinterCondition } from './printer-status.ts'

/** What the printer's model can tell about itself (from its profile). */
export interface StatusSupport {
  /** It answers real-time status requests (`DLE EOT`). */
  realtime: boolean
  /** It sends the process ID response (`GS ( H`) once it printed everything before it. */
  processIdResponse: boolean
}

/** The model and paper of the printer a job goes to, from its record. */
export interface PrinterModel {
  profile: string
  width: PaperWidth
}

/** The printer could not take the job, or print it, and why. */
export interface Refused {
  ok: false
  failure: Failure
}

/** The job was cancelled before every byte reached the printer. */
export interface Cancelled {
  ok: false
  cancelled: true
}

/** Why work on a printer stopped short: the printer's failure, or a cancellation. */
export type Stopped = Refused | Cancelled

/** Whether the printer says it printed the job: it did, or why it could not. */
export type PrintedOutcome = { ok: true } | Refused

/**
 * What came of handing a job to its printer. `ok`: every byte reached the printer; `printed`
 * settles when the printer says it printed them, or why it could not (it never rejects for a
 * printer's failure); absent when the link cannot tell, and then taking the bytes is all the
 * agent can know.
 */
export type SubmitOutcome = { ok: true; printed?: Promise<PrintedOutcome> } | Stopped

/**
 * A checked printer: its condition, null when it does not answer status requests (write-only), or why it cannot be
 * reached.
 */
export type ProbeOutcome = { ok: true; condition: PrinterCondition | null } | Refused

export const refused = (failure: Failure): Refused => ({ ok: false, failure })

export const CANCELLED: Cancelled = Object.freeze({ ok: false, cancelled: true })
