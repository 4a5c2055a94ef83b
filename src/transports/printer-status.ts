// What the agent asks an ESC/POS printer about its state, and how it reads the answers: real-time
// status (`DLE EOT n`) before a job, and the process ID response (`GS ( H` fn 48) after it, which
// the printer sends only once it has printed everything before it.
import type { PrinterState } from '../domain/printer-state.ts'
import { type Failure, failure } from '../protocol/failures.ts'

const DLE = 0x10
const EOT = 0x04
const GS = 0x1d

/** `DLE EOT n`: transmit real-time status; n = 1 printer, 2 offline cause, 3 error cause, 4 roll paper sensor. */
export const transmitRealtimeStatus = (n: 1 | 2 | 3 | 4) => Uint8Array.of(DLE, EOT, n)

/** The requests sent before a job, and the answers they bring: one byte each, in order. */
export const STATUS_REQUESTS = [
  transmitRealtimeStatus(1),
  transmitRealtimeStatus(2),
  transmitRealtimeStatus(4),
] as const

/** `GS ( H` fn 48 (pL = 6, pH = 0, m = 48): request the process ID response for a 4-byte ID of 0x30-0x7E. */
export function requestProcessId(id: Uint8Array): Uint8Array {
  if (id.length !== 4 || id.some((byte) => byte < 0x30 || byte > 0x7e))
    throw new RangeError('a process ID is 4 bytes from 0x30 to 0x7E')
  return Uint8Array.of(GS, 0x28, 0x48, 6, 0, 48, 48, ...id)
}

/** The process ID response the printer sends back: 0x37 0x22, the ID, NUL. */
export function processIdResponse(id: Uint8Array): Uint8Array {
  return Uint8Array.of(0x37, 0x22, ...id, 0x00)
}

/** Every status byte has bits 1 and 4 set and bits 0 and 7 clear; anything else is not one. */
export const isStatusByte = (byte: number) => (byte & 0x93) === 0x12

/**
 * Why the printer cannot print, from its answers to `STATUS_REQUESTS`, as the retryable failure
 * of the attempt; undefined when it can print.
 */
export function statusProblem(
  printer: number,
  offlineCause: number,
  paper: number,
  where: string,
): Failure | undefined {
  const condition = describeStatus(printer, offlineCause, paper)
  if (condition.paper === 'out') return failure('printer.paper_out', `The printer at ${where} is out of paper.`)
  if (condition.coverOpen) return failure('printer.cover_open', `The printer at ${where} has its cover open.`)
  if (condition.error)
    return failure(
      'printer.error',
      `The printer at ${where} reports an error (a paper jam, the cutter, or overheating).`,
    )
  if (!condition.online) return failure('printer.offline', `The printer at ${where} is offline.`)
  return undefined
}

/** What the answers to `STATUS_REQUESTS` say, for people. */
export interface PrinterCondition {
  online: boolean
  paper: 'ok' | 'near-end' | 'out'
  coverOpen: boolean
  error: boolean
}

export function describeStatus(printer: number, offlineCause: number, paper: number): PrinterCondition {
  return {
    online: (printer & 0x08) === 0,
    paper: paper & 0x60 || offlineCause & 0x20 ? 'out' : paper & 0x0c ? 'near-end' : 'ok',
    coverOpen: (offlineCause & 0x04) !== 0,
    error: (offlineCause & 0x40) !== 0,
  }
}

/** The state a condition puts a printer in; the reasons it cannot print come in `statusProblem`'s order. */
export function stateOf(condition: PrinterCondition): PrinterState {
  if (condition.paper === 'out') return 'paper_out'
  if (condition.coverOpen) return 'cover_open'
  if (condition.error) return 'error'
  if (!condition.online) return 'offline'
  return condition.paper === 'near-end' ? 'paper_low' : 'online'
}
