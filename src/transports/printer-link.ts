// One job on one printer, whatever carries the bytes (a socket, a serial port, a USB printer).
// Before the job, the printer's real-time status: a printer out of paper, with its cover open or
// in error gets no byte, and the attempt fails in a way the dispatcher retries. After it, where the
// model can say so, the printer's own word that it printed everything (the process ID response);
// meanwhile its status is asked every second, so paper running out mid-job fails the attempt.
// Every outcome is a value; whatever stops a job short ends its connection at once.
import type { PrinterState } from '../domain/printer-state.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import { type Channel, CLOSED, type OpenChannel } from './channel.ts'
import {
  describeStatus,
  isStatusByte,
  processIdResponse,
  requestProcessId,
  STATUS_REQUESTS,
  stateOf,
  statusProblem,
  transmitRealtimeStatus,
} from './printer-status.ts'
import {
  CANCELLED,
  type PrintedOutcome,
  type ProbeOutcome,
  type Refused,
  refused,
  type StatusSupport,
  type Stopped,
  type SubmitOutcome,
} from './submission.ts'

/** How long a printer has to answer a status request; one that does not is treated as write-only. */
export const STATUS_TIMEOUT_MS = 500
/** How long a printer that did not answer is not asked again, so its jobs do not wait each time. */
export const SILENT_PRINTER_MS = 10 * 60_000
/** How long a printer may take to print a job and confirm it. */
export const CONFIRM_TIMEOUT_MS = 60_000
/** How often the status is asked while a job prints. */
export const PRINTING_POLL_MS = 1_000

/**
 * The printer's answers to `STATUS_REQUESTS` (undefined when it does not answer them), or why they could not be asked.
 */
type Asked = { ok: true; status: number[] | undefined } | Stopped

/** Printers (by where they are) that did not answer status requests, and when. */
const silentPrinters = new Map<string, number>()
let processIds = 0

/** For what nothing cancels: asking an idle printer, and what follows a job's last byte. */
const UNCANCELLABLE = new AbortController().signal

/** A fresh 4-character process ID, so an answer to an earlier job is never taken for this one's. */
function nextProcessId(): Uint8Array {
  processIds = (processIds + 1) % 10_000
  return new TextEncoder().encode(String(processIds).padStart(4, '0'))
}

/**
 * A printer ready for a job: reached and, where it answers, found able to print; not a byte of the
 * job has gone to it yet. `send` hands it the job once; `release` lets it go without one.
 */
export interface ReadyPrinter {
  /**
   * `printed`, where given, is called the moment the printer's word that it printed the job is
   * read, before the outcome's `printed` settles (for a mark that must not wait any longer).
   */
  send(bytes: Uint8Array, signal: AbortSignal, printed?: () => void): Promise<SubmitOutcome>
  release(): void
}

/** The channel to a printer that speaks back, as `open` makes it, and how the printer is named in messages. */
export interface PrinterChannel {
  open: OpenChannel
  where: string
}

/** Sends a job over a channel `open` makes to the printer at `where` (for messages). */
export async function submitOverLink(
  { open, where }: PrinterChannel,
  bytes: Uint8Array,
  signal: AbortSignal,
  support: StatusSupport,
): Promise<SubmitOutcome> {
  const ready = await readyOverLink(open, where, signal, support)
  return ready.ok ? ready.printer.send(bytes, signal) : ready
}

/**
 * Opens the link and asks the printer's real-time status (as its model allows): what comes before
 * a job's first byte, so that an agent records its intent to print only once the printer is
 * known to take it (a crash while a printer is reached leaves nothing uncertain).
 */
export async function readyOverLink(
  open: OpenChannel,
  where: string,
  signal: AbortSignal,
  support: StatusSupport,
): Promise<{ ok: true; printer: ReadyPrinter } | Stopped> {
  const opened = await PrinterLink.open(open, where, signal)
  if (!opened.ok) return opened
  const link = opened.link
  let status: number[] | undefined
  if (support.realtime) {
    const asked = await link.askStatus(signal)
    if (!asked.ok) {
      link.destroy()
      return asked
    }
    status = asked.status
  }
  const problem = status && statusProblem(status[0]!, status[1]!, status[2]!, where)
  if (problem) {
    link.destroy()
    return refused(problem)
  }
  let used = false
  return {
    ok: true,
    printer: {
      async send(bytes, sendSignal, printed) {
        if (used) throw new Error('a ready printer takes one job')
        used = true
        let outcome: SubmitOutcome | undefined
        try {
          outcome = await send(link, bytes, sendSignal, {
            status: support.processIdResponse ? status : undefined,
            printed,
          })
          return outcome
        } finally {
          // Refused, cancelled or timed out: nothing more of the job goes out.
          if (!outcome?.ok) link.destroy()
        }
      },
      release() {
        if (used) return
        used = true
        link.destroy()
      },
    },
  }
}

/**
 * How a printer is asked whether it printed: the status it answered before the job, when its model confirms printing
 * (else undefined: it is not asked), and who is told the moment it says it did.
 */
interface Confirmation {
  status: number[] | undefined
  printed?: () => void
}

/** The job's bytes, then (when `status` was answered and the model confirms) its process ID request. */
async function send(
  link: PrinterLink,
  bytes: Uint8Array,
  signal: AbortSignal,
  { status, printed }: Confirmation,
): Promise<SubmitOutcome> {
  if (signal.aborted) return CANCELLED
  const stopped = await link.write(bytes, signal)
  if (stopped) return stopped
  if (status === undefined) {
    link.close()
    return { ok: true }
  }
  // Every byte of the job is out: from here it is the printer's, and cancelling can no longer stop
  // it (a job called cancelled that the printer then prints would be a lie).
  const id = nextProcessId()
  if (printed) link.whenPrinted(id, printed)
  const unasked = await link.write(requestProcessId(id), UNCANCELLABLE)
  if (unasked) return unasked
  return { ok: true, printed: link.confirmation(id).finally(() => link.close()) }
}

/**
 * The printer's state as its real-time status says, asked on a connection of its own (for an idle
 * printer): offline when unreachable, unknown when it does not answer status requests.
 */
export async function readLinkStatus(open: OpenChannel, where: string): Promise<PrinterState> {
  if (isSilent(where)) return 'unknown'
  const probed = await probeLink(open, where)
  if (!probed.ok) return 'offline'
  return probed.condition ? stateOf(probed.condition) : 'unknown'
}

/** What the printer's real-time status says, asked on a connection of its own (nothing cancels it). */
export async function probeLink(open: OpenChannel, where: string): Promise<ProbeOutcome> {
  const opened = await PrinterLink.open(open, where, UNCANCELLABLE)
  if (!opened.ok) return uncancelled(opened)
  let asked: Asked
  try {
    asked = await opened.link.askStatus(UNCANCELLABLE)
  } finally {
    opened.link.close()
  }
  if (!asked.ok) return uncancelled(asked)
  return {
    ok: true,
    condition: asked.status ? describeStatus(asked.status[0]!, asked.status[1]!, asked.status[2]!) : null,
  }
}

/** Work without a signal to abort stops short only by failing. */
function uncancelled(stopped: Stopped): Refused {
  if ('cancelled' in stopped) throw new Error('work that nothing could cancel was cancelled')
  return stopped
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
  private failure: Failure | undefined
  /** Called as the process ID response it waits for is read. */
  private printed: { response: Uint8Array; call: () => void } | undefined

  private constructor(private readonly where: string) {}

  static async open(
    open: OpenChannel,
    where: string,
    signal: AbortSignal,
  ): Promise<{ ok: true; link: PrinterLink } | Stopped> {
    if (signal.aborted) return CANCELLED
    const link = new PrinterLink(where)
    const opened = await open({ data: (bytes) => link.receive(bytes), fail: (reason) => link.fail(reason) }, signal)
    if (!opened.ok) return opened
    link.channel = opened.channel
    return { ok: true, link }
  }

  write(bytes: Uint8Array, signal: AbortSignal): Promise<Stopped | undefined> {
    if (this.failure) return Promise.resolve(refused(this.failure))
    return this.channel!.write(bytes, signal)
  }

  /**
   * The answers to `STATUS_REQUESTS`; undefined for a printer that does not answer, which is then
   * not asked again for SILENT_PRINTER_MS (before a job or while idle alike).
   */
  async askStatus(signal: AbortSignal): Promise<Asked> {
    if (isSilent(this.where)) return { ok: true, status: undefined }
    this.expectedStatuses += STATUS_REQUESTS.length
    const stopped = await this.write(concat(STATUS_REQUESTS), signal)
    if (stopped) return stopped
    const asked = await this.statusBytes(STATUS_REQUESTS.length, STATUS_TIMEOUT_MS)
    if (asked.ok && asked.status) silentPrinters.delete(this.where)
    else if (asked.ok) silentPrinters.set(this.where, Date.now())
    return asked
  }

  /** Calls `printed` as the process ID response for `id` is read (in the same turn). */
  whenPrinted(id: Uint8Array, printed: () => void): void {
    this.printed = { response: processIdResponse(id), call: printed }
  }

  /**
   * Settles once the printer sent the process ID response for `id`: it printed everything before
   * it. Meanwhile the offline cause is asked every second; paper out, an open cover or an error
   * fails the attempt (retryable), and so does silence past the confirmation timeout.
   */
  async confirmation(id: Uint8Array): Promise<PrintedOutcome> {
    const expected = processIdResponse(id)
    const deadline = Date.now() + CONFIRM_TIMEOUT_MS
    let nextPoll = Date.now() + PRINTING_POLL_MS
    for (;;) {
      if (this.responses.some((response) => sameBytes(response, expected))) return { ok: true }
      if (this.failure)
        return refused(
          failure(
            'printer.unconfirmed',
            `The printer at ${this.where} took the job, then the connection ended ` +
              `before it confirmed printing it; it may have printed.`,
            false,
          ),
        )
      while (this.statuses.length > 0) {
        const problem = statusProblem(0x12, this.statuses.shift()!, 0x12, this.where)
        if (problem) return refused(problem)
      }
      if (Date.now() >= deadline)
        return refused(
          failure(
            'printer.unconfirmed',
            `The printer at ${this.where} took the job but did not confirm printing ` +
              `it within ${CONFIRM_TIMEOUT_MS / 1000} s; it may have printed.`,
            false,
          ),
        )
      if (Date.now() >= nextPoll) {
        this.expectedStatuses++
        // A write that fails ends the connection, which the next round reads as unconfirmed.
        void this.write(transmitRealtimeStatus(2), UNCANCELLABLE)
        nextPoll = Date.now() + PRINTING_POLL_MS
      }
      await this.answer(Math.min(deadline, nextPoll) - Date.now())
    }
  }

  close(): void {
    this.failure ??= CLOSED
    this.channel?.close()
  }

  destroy(): void {
    this.failure ??= CLOSED
    this.channel?.destroy()
  }

  /** `count` status bytes, or undefined when they do not come within `timeoutMs` or are not status bytes. */
  private async statusBytes(count: number, timeoutMs: number): Promise<Asked> {
    const deadline = Date.now() + timeoutMs
    while (this.statuses.length < count) {
      if (this.failure) return refused(this.failure)
      if (!(await this.answer(deadline - Date.now()))) return { ok: true, status: undefined }
    }
    const status = this.statuses.splice(0, count)
    return { ok: true, status: status.every(isStatusByte) ? status : undefined }
  }

  /** Sorts what the printer sends: process ID responses (0x37 0x22 ID NUL) and status bytes. */
  private receive(data: Uint8Array): void {
    this.incoming.push(...data)
    for (;;) {
      if (this.incoming[0] === 0x37 && (this.incoming.length < 2 || this.incoming[1] === 0x22)) {
        if (this.incoming.length < 7) break
        const response = Uint8Array.from(this.incoming.splice(0, 7))
        this.responses.push(response)
        if (this.printed && sameBytes(response, this.printed.response)) {
          const { call } = this.printed
          this.printed = undefined
          call()
        }
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
      const timer = setTimeout(
        () => {
          this.onAnswer = undefined
          resolve(false)
        },
        Math.max(0, ms),
      )
      this.onAnswer = () => {
        clearTimeout(timer)
        this.onAnswer = undefined
        resolve(true)
      }
    })
  }

  private fail(reason: Failure): void {
    if (this.failure) return
    this.failure = reason
    this.onAnswer?.()
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i])

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
