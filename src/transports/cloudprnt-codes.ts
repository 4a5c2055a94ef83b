// What a Star CloudPRNT printer's status codes mean to printhub. A printer says its condition in
// every poll (`statusCode`, e.g. `200%20OK`, URL-encoded: a three or four digit code and words)
// and the outcome of a job in its confirmation (`code`). Codes are read by family, as Star's
// guide asks, so a code a newer firmware adds falls into the family it belongs to:
// 2xx online (21x paper low), 41x paper (411 a jam), 42x cover open, other 4xx a printer error;
// 5xx the printer could not use the job (52x: it could not download it).
import type { PrinterState } from '../domain/printer-state.ts'
import { type Failure, failure } from '../protocol/failures.ts'

/** A status code as a printer sent it: its number, and its words (for people, never parsed). */
export interface StatusCode {
  code: number
  text: string
}

/** The longest status code printhub reads (the code, a space, a few words). */
export const MAX_STATUS_CODE_LENGTH = 128

/**
 * Reads a status code (`200%20OK`, `200 OK`, `410`); undefined when it does not start with a three or four digit code.
 */
export function parseStatusCode(raw: string): StatusCode | undefined {
  if (raw.length > MAX_STATUS_CODE_LENGTH) return undefined
  let text = raw
  try {
    text = decodeURIComponent(raw.replaceAll('+', ' '))
  } catch {
    // Not URL-encoded after all: read as it is.
  }
  const match = /^\s*(\d{3,4})(?:\s+(.*))?$/s.exec(text)
  if (!match) return undefined
  return {
    code: Number(match[1]),
    text: (match[2] ?? '')
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .trim()
      .slice(0, 64),
  }
}

/** The family of a code: its first digit, and for three-digit codes its first two (41x, 42x). */
const family = (code: number): number => Math.floor(code / 10 ** (String(code).length - 1))
const group = (code: number): number => Math.floor(code / 10 ** (String(code).length - 2))

/** What a printer's polled status says of it. */
export function stateOfStatus(status: StatusCode): PrinterState {
  switch (family(status.code)) {
    case 2:
      return group(status.code) === 21 ? 'paper_low' : 'online'
    case 4:
      if (status.code === 411) return 'error'
      return group(status.code) === 41 ? 'paper_out' : group(status.code) === 42 ? 'cover_open' : 'error'
    default:
      // 5xx are about a job's data, not the printer: it still prints.
      return family(status.code) === 5 ? 'online' : 'unknown'
  }
}

const said = (status: StatusCode): string => `${status.code}${status.text ? ` ${status.text}` : ''}`

/** What a printer's confirmation of a job says: null when it printed it (2xx), else why not. */
export function failureOfConfirmation(status: StatusCode): Failure | null {
  if (family(status.code) === 2) return null
  const state = stateOfStatus(status)
  const words = `the printer answered ${said(status)}`
  if (state === 'paper_out') return failure('printer.paper_out', `The printer ran out of paper (${words}).`)
  if (state === 'cover_open') return failure('printer.cover_open', `The printer's cover is open (${words}).`)
  if (family(status.code) === 4) return failure('printer.error', `The printer reports an error (${words}).`)
  // 52x: the download failed (timed out, or the job was too large for the printer's buffer).
  if (status.code === 521) return failure('printer.failed', `The job is too large for the printer (${words}).`, false)
  if (group(status.code) === 52) return failure('printer.timeout', `The printer could not download the job (${words}).`)
  return failure('printer.failed', `The printer could not use the job (${words}).`, false)
}

/** Why a printer in `state` is offered no job, as a failure of the attempt (nothing was printed). */
export function failureOfState(state: PrinterState, status: StatusCode): Failure | null {
  switch (state) {
    case 'paper_out':
      return failure('printer.paper_out', `The printer is out of paper (it reports ${said(status)}).`)
    case 'cover_open':
      return failure('printer.cover_open', `The printer's cover is open (it reports ${said(status)}).`)
    case 'error':
      return failure('printer.error', `The printer reports an error (${said(status)}).`)
    default:
      return null
  }
}
