// One job on one printer, whatever carries the bytes (a socket, a serial port, a USB printer).
// Before the job, the printer's real-time status: a printer out of paper, with its cover open or
// in error gets no byte, and the attempt fails in a way the dispatcher retries. After it, where the
// model can say so, the printer's own word that it printed everything (the process ID response);
// meanwhile its status is asked every second, so paper running out mid-job fails the attempt.
import { describeStatus, isStatusByte, processIdResponse, requestProcessId, STATUS_REQUESTS, stateOf, statusProblem, transmitRealtimeStatus } from './printer-status.ts'
import { cancelled, SubmitError } from './submit-error.ts'
import type { StatusSupport, Submission } from './submission.ts'
import type { PrinterState } from '../domain/printer-state.ts'

/** How long a printer has to answer a status request; one that does not is treated as write-only. */
export const STATUS_TIMEOUT_MS = 500
/** How long a printer that did not answer is not asked again, so its jobs do not wait each time. */
export const SILENT_PRINTER_MS = 10 * 60_000
/** How long a printer may take to print a job and confirm it. */
export const CONFIRM_TIMEOUT_MS = 60_000
/** How often the status is asked while a job prints. */
export const PRINTING_POLL_MS = 1_000

/** What a transport does with the bytes: the link speaks the printer's language over it. */
export interface Channel {
  /** Writes every byte, or rejects with a SubmitError (`cancelled` when `signal` aborts first). */
  write(bytes: Uint8Array, signal: AbortSignal): Promise<void>
  /** Ends the connection once what was written is out. */
  close(): void
  /** Ends the connection at once. */
  destroy(): void
}

/** What a channel reports as it goes: bytes from the printer, and the end of the connection. */
export interface ChannelEvents {
  data(bytes: Uint8Array): void
  fail(error: SubmitError): void
}

/** Opens a connection to the printer, or rejects with a retryable SubmitError. */
export type OpenChannel = (events: ChannelEvents, signal: AbortSignal) => Promise<Channel>

/** Printers (by where they are) that did not answer status requests, and when. */
const silentPrinters = new Map<string, number>()
let processIds = 0

/** A fresh 4-character process ID, so an answer to an earlier job is never taken for this one's. */
function nextProcessId(): Uint8Array {
  processIds = (processIds + 1) % 10_000
  return new TextEncoder().encode(String(processIds).padStart(4, '0'))
}

/** Sends a job over a channel `open` makes to the printer at `where` (for messages). */
export async function submitOverLink(open: OpenChannel, where: string, bytes: Uint8Array, signal: AbortSignal, support: StatusSupport): Promise<Submission> {
  const link = await PrinterLink.open(open, where, signal)
  try {
    const status = support.realtime ? await link.askStatus(signal) : undefined
    if (status) {
      const problem = statusProblem(status[0]!, status[1]!, status[2]!, where)
      if (problem) throw problem
    }
    await link.write(bytes, signal)
    if (!support.processIdResponse || status === undefined) {
      link.close()
      return {}
    }
    const id = nextProcessId()
    await link.write(requestProcessId(id), signal)
    // From here the job is the printer's: cancelling can no longer stop it.
    return { printed: link.confirmation(id).finally(() => link.close()) }
  } catch (error) {
    link.destroy()
    throw error
  }
}

/**
 * The printer's state as its real-time status says, asked on a connection of its own (for an idle
 * printer): offline when unreachable, unknown when it does not answer status requests.
 */
export async function readLinkStatus(open: OpenChannel, where: string): Promise<PrinterState> {
  if (isSilent(where)) return 'unknown'
  const never = new AbortController().signal
  let link: PrinterLink
  try {
    link = await PrinterLink.open(open, where, never)
  } catch {
    return 'offline'
  }
  try {
    const status = await link.askStatus(never)
    if (!status) return 'unknown'
    return stateOf(describeStatus(status[0]!, status[1]!, status[2]!))
  } catch {
    return 'offline'
  } finally {
    link.close()
  }
}

/**
 * The printer's answers to `STATUS_REQUESTS`, asked on a connection of its own: undefined when it
 * does not answer them; rejects (a SubmitError) when it cannot be reached.
 */
export async function probeLink(open: OpenChannel, where: string): Promise<number[] | undefined> {
  const never = new AbortController().signal
  const link = await PrinterLink.open(open, where, never)
  try {
    return await link.askStatus(never)
  } finally {
    link.close()
  }
}

const isSilent = (where: string) => {
  const since = silentPrinters.get(where)
  return since !== undefined && Date.now() - since <= SILENT_PRINTER_MS
}

/** A connection to a printer, and the printer's answers as they come. */
class PrinterLink {
  private channel: Channel | undefined
  /** Status bytes answered, and how many more are expected (a status byte may also open a process ID response). */
  private statuses: number[] = []
  private expectedStatuses = 0
  private responses: Uint8Array[] = []
  private incoming: number[] = []
  private onAnswer: (() => void) | undefined
  private failure: SubmitError | undefined

  private constructor(private readonly where: string) {}

  static async open(open: OpenChannel, where: string, signal: AbortSignal): Promise<PrinterLink> {
    if (signal.aborted) throw cancelled()
    const link = new PrinterLink(where)
    link.channel = await open({ data: (bytes) => link.receive(bytes), fail: (error) => link.fail(error) }, signal)
    return link
  }

  write(bytes: Uint8Array, signal: AbortSignal): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    return this.channel!.write(bytes, signal)
  }

  /**
   * The answers to `STATUS_REQUESTS`; undefined for a printer that does not answer, which is then
   * not asked again for SILENT_PRINTER_MS (before a job or while idle alike).
   */
  async askStatus(signal: AbortSignal): Promise<number[] | undefined> {
    if (isSilent(this.where)) return undefined
    this.expectedStatuses += STATUS_REQUESTS.length
    await this.write(concat(STATUS_REQUESTS), signal)
    const status = await this.statusBytes(STATUS_REQUESTS.length, STATUS_TIMEOUT_MS)
    if (status) silentPrinters.delete(this.where)
    else silentPrinters.set(this.where, Date.now())
    return status
  }

  /**
   * Settles once the printer sent the process ID response for `id`: it printed everything before
   * it. Meanwhile the offline cause is asked every second; paper out, an open cover or an error
   * fails the attempt (retryable), and so does silence past the confirmation timeout.
   */
  async confirmation(id: Uint8Array): Promise<void> {
    const expected = processIdResponse(id)
    const deadline = Date.now() + CONFIRM_TIMEOUT_MS
    let nextPoll = Date.now() + PRINTING_POLL_MS
    const never = new AbortController().signal
    for (;;) {
      if (this.responses.some((response) => response.every((byte, i) => byte === expected[i]))) return
      if (this.failure) throw new SubmitError('printer.unconfirmed', `The printer at ${this.where} took the job, then the connection ended before it confirmed printing it; it may have printed.`, false)
      while (this.statuses.length > 0) {
        const problem = statusProblem(0x12, this.statuses.shift()!, 0x12, this.where)
        if (problem) throw problem
      }
      if (Date.now() >= deadline) throw new SubmitError('printer.unconfirmed', `The printer at ${this.where} took the job but did not confirm printing it within ${CONFIRM_TIMEOUT_MS / 1000} s; it may have printed.`, false)
      if (Date.now() >= nextPoll) {
        this.expectedStatuses++
        this.write(transmitRealtimeStatus(2), never).catch(() => {})
        nextPoll = Date.now() + PRINTING_POLL_MS
      }
      await this.answer(Math.min(deadline, nextPoll) - Date.now())
    }
  }

  close(): void {
    this.failure ??= new SubmitError('printer.unreachable', 'closed', true)
    this.channel?.close()
  }

  destroy(): void {
    this.failure ??= new SubmitError('printer.unreachable', 'closed', true)
    this.channel?.destroy()
  }

  /** `count` status bytes, or undefined when they do not come within `timeoutMs` or are not status bytes. */
  private async statusBytes(count: number, timeoutMs: number): Promise<number[] | undefined> {
    const deadline = Date.now() + timeoutMs
    while (this.statuses.length < count) {
      if (this.failure) throw this.failure
      if (!(await this.answer(deadline - Date.now()))) return undefined
    }
    const status = this.statuses.splice(0, count)
    return status.every(isStatusByte) ? status : undefined
  }

  /** Sorts what the printer sends: process ID responses (0x37 0x22 ID NUL) and status bytes. */
  private receive(data: Uint8Array): void {
    this.incoming.push(...data)
    for (;;) {
      if (this.incoming[0] === 0x37 && (this.incoming.length < 2 || this.incoming[1] === 0x22)) {
        if (this.incoming.length < 7) break
        this.responses.push(Uint8Array.from(this.incoming.splice(0, 7)))
      } else if (this.incoming.length > 0) {
        const byte = this.incoming.shift()!
        if (this.expectedStatuses > 0) {
          this.expectedStatuses--
          this.statuses.push(byte)
        }
      } else break
    }
    this.onAnswer?.()
  }

  /** Resolves true when something came from the printer, false after `ms`. */
  private answer(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.onAnswer = undefined
        resolve(false)
      }, Math.max(0, ms))
      this.onAnswer = () => {
        clearTimeout(timer)
        this.onAnswer = undefined
        resolve(true)
      }
    })
  }

  private fail(error: SubmitError): void {
    if (this.failure) return
    this.failure = error
    this.onAnswer?.()
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
