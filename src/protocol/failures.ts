// Why an attempt of a job failed: one closed family of machine codes, written `area.reason` as
// OpenPrinter writes its own (`printer.not_found`, `job.recovery_uncertain`). An agent reports
// them in `agent.job_failed`; the hub sets its own (an agent that went away, a job that expired);
// applications read them as a job's `lastErrorCode`. docs/failure-codes.md lists them for people
// (a test keeps it equal to this table).
import { MAX_MESSAGE_LENGTH } from './limits.ts'

export interface FailureInfo {
  /** Whether trying the same job again may succeed (advisory, as in OpenPrinter). */
  retryable: boolean
  /** What happened, for application developers. */
  meaning: string
}

export const FAILURES = {
  // The printer, as its agent found it.
  'printer.not_found': {
    retryable: true,
    meaning: 'The agent has no printer with this ID (removed, or not yet set up).',
  },
  'printer.invalid_connection': { retryable: false, meaning: "The printer's connection URI is not valid." },
  'printer.unreachable': {
    retryable: true,
    meaning:
      'The printer could not be reached: switched off, unplugged, no network, no permission, or the connection ended.',
  },
  'printer.timeout': {
    retryable: true,
    meaning: 'The printer stopped taking bytes (busy, or its buffer never drained).',
  },
  'printer.offline': { retryable: true, meaning: 'The printer says it is offline.' },
  'printer.paper_out': { retryable: true, meaning: 'The printer is out of paper; nothing of the job was printed.' },
  'printer.cover_open': { retryable: true, meaning: 'The printer has its cover open; nothing of the job was printed.' },
  'printer.error': {
    retryable: true,
    meaning: 'The printer reports an error (a paper jam, the cutter, or overheating).',
  },
  'printer.failed': { retryable: true, meaning: 'The printer refused the job (a virtual printer set to fail).' },
  'printer.unconfirmed': {
    retryable: false,
    meaning: 'The printer took the job but did not confirm printing it; it may have printed.',
  },
  // The document, for the printer's model.
  'render.profile_unknown': { retryable: false, meaning: "The printer's model is not one this printhub knows." },
  'render.width_unsupported': { retryable: false, meaning: "The document's paper width is not one the printer takes." },
  'render.unsupported_character': { retryable: false, meaning: 'The text has a character the printer cannot print.' },
  'render.qr_too_long': { retryable: false, meaning: 'A QR code holds more than a QR symbol can.' },
  'render.barcode_unsupported': { retryable: false, meaning: 'The printer cannot print this barcode format.' },
  'render.barcode_invalid': { retryable: false, meaning: "A barcode's value is not valid for its format." },
  'render.barcode_too_wide': { retryable: false, meaning: 'A barcode is wider than the paper.' },
  'render.image_invalid': { retryable: false, meaning: 'An image could not be decoded, or is too large.' },
  'render.feature_ignored': {
    retryable: false,
    meaning:
      "A section asks for what the printer's model does not have (a drawer pin, a buzzer): it is left out and the " +
      "rest prints. A note in the job's timeline, never the reason a job failed.",
  },
  // The job itself.
  'job.recovery_uncertain': {
    retryable: false,
    meaning:
      'The agent stopped while the job was being printed; it may have printed. A person decides whether to reprint.',
  },
  'job.moved': {
    retryable: true,
    meaning:
      'The job waited at a printer of its destination that could not print (out of paper, cover open, offline) ' +
      "and was moved to another one; a note in the job's timeline, never the reason a job failed.",
  },
  'job.expired': { retryable: false, meaning: 'The job expired before it reached the printer.' },
  // The agent, as the hub saw it.
  'agent.disconnected': { retryable: true, meaning: 'The agent disconnected before it confirmed it received the job.' },
  'agent.ack_timeout': { retryable: true, meaning: 'The agent did not confirm it received the job in time.' },
  'agent.internal_error': {
    retryable: false,
    meaning: 'The agent failed unexpectedly while printing the job; it may have printed.',
  },
  'agent.lease_lost': {
    retryable: true,
    meaning:
      "A node of a cluster could not record its intent to print the job under its printer's lease (another node took " +
      'the printer over, or the database was away): nothing of it was printed, and it is sent again.',
  },
  'agent.extension_unsupported': {
    retryable: false,
    meaning:
      'The document uses a printhub extension no OpenPrinter section can carry (the drawer, the buzzer) and the ' +
      "printer's agent is not printhub; the message names each. Styled text goes to such an agent as pictures.",
  },
  'agent.reported_failure': {
    retryable: true,
    meaning:
      "An agent other than printhub reported a code outside this list; its message starts with the agent's own code.",
  },
  // Codes the OpenPrinter reference agent reports.
  'printer.disabled': { retryable: true, meaning: 'The printer is disabled on its agent.' },
  'printer.resolve_failed': { retryable: true, meaning: 'The agent could not look up the printer in its registry.' },
  'printer.identity_mismatch': { retryable: false, meaning: "The agent's registry answered with another printer." },
  'render.failed': { retryable: false, meaning: 'The agent could not render the document.' },
  'spooler.failed': { retryable: true, meaning: "The agent's print spooler did not take the job." },
  'job.invalid_persisted': { retryable: false, meaning: "The agent's stored copy of the job is unreadable." },
  'job.storage_mismatch': { retryable: false, meaning: "The agent's stored copy of the job is inconsistent." },
} as const satisfies Record<string, FailureInfo>

export type FailureCode = keyof typeof FAILURES
export const FAILURE_CODES = Object.keys(FAILURES) as FailureCode[]

/** A failure as it is reported and stored: a code of the family, a bounded message, whether to retry. */
export interface Failure {
  code: FailureCode
  message: string
  retryable: boolean
}

/** Messages of failures are bounded like OpenPrinter's error messages. */
export const MAX_FAILURE_MESSAGE_LENGTH = MAX_MESSAGE_LENGTH

export function isFailureCode(code: unknown): code is FailureCode {
  return typeof code === 'string' && Object.hasOwn(FAILURES, code)
}

/** Earlier spellings of printhub's own codes, still found in stored jobs and agents' kept reports. */
export const FORMER_SPELLINGS: Readonly<Record<string, FailureCode>> = {
  printer_unreachable: 'printer.unreachable',
  printer_timeout: 'printer.timeout',
  printer_offline: 'printer.offline',
  paper_out: 'printer.paper_out',
  cover_open: 'printer.cover_open',
  printer_error: 'printer.error',
  printer_failed: 'printer.failed',
  printer_unconfirmed: 'printer.unconfirmed',
  expired: 'job.expired',
  agent_disconnected: 'agent.disconnected',
  ack_timeout: 'agent.ack_timeout',
}

/** A failure with its message cut to the bound. */
export function failure(code: FailureCode, message: string, retryable: boolean = FAILURES[code].retryable): Failure {
  return { code, message: message.slice(0, MAX_FAILURE_MESSAGE_LENGTH), retryable }
}

/**
 * A failure an agent reported, in the family: a former spelling becomes today's; a code outside
 * the family (an agent other than printhub may send any identifier) becomes
 * `agent.reported_failure`, its own code kept at the start of the message.
 */
export function reportedFailure(reported: { code: string; message: string; retryable: boolean }): Failure {
  if (isFailureCode(reported.code)) return failure(reported.code, reported.message, reported.retryable)
  if (Object.hasOwn(FORMER_SPELLINGS, reported.code))
    return failure(FORMER_SPELLINGS[reported.code]!, reported.message, reported.retryable)
  return failure('agent.reported_failure', `${reported.code}: ${reported.message}`, reported.retryable)
}
