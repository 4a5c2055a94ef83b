// tcp://host:9100, raw, one connection per job (some printers stall while a socket stays open).
// Before the job, the printer's real-time status: a printer out of paper, with its cover open or
// in error gets no byte, and the attempt fails in a way the dispatcher retries. After it, where the
// model can say so, the printer's own word that it printed everything (the process ID response);
// meanwhile its status is asked every second, so paper running out mid-job fails the attempt.
import { isStatusByte, processIdResponse, requestProcessId, STATUS_REQUESTS, statusProblem, transmitRealtimeStatus } from './printer-status.ts'
import { cancelled, SubmitError } from './submit-error.ts'
import type { PrinterAvailability, StatusSupport, Submission } from './submission.ts'

export const TCP_CONNECT_TIMEOUT_MS = 5_000
export const TCP_WRITE_TIMEOUT_MS = 15_000
/** How long a printer has to answer a status request; one that does not is treated as write-only. */
export const STATUS_TIMEOUT_MS = 500
/** How long a printer that did not answer is not asked again, so its jobs do not wait each time. */
export const SILENT_PRINTER_MS = 10 * 60_000
/** How long a printer may take to print a job and confirm it. */
export const CONFIRM_TIMEOUT_MS = 60_000
/** How often the status is asked while a job prints. */
export const PRINTING_POLL_MS = 1_000

/** Printers (host:port) that did not answer status requests, and when. */
const silentPrinters = new Map<string, number>()
let processIds = 0

/** A fresh 4-character process ID, so an answer to an earlier job is never taken for this one's. */
function nextProcessId(): Uint8Array {
  processIds = (processIds + 1) % 10_000
  return new TextEncoder().encode(String(processIds).padStart(4, '0'))
}

export async function submitToTcp(host: string, port: number, bytes: Uint8Array, signal: AbortSignal, support: StatusSupport): Promise<Submission> {
  const where = `${host}:${port}`
  const link = await TcpLink.open(host, port, where, signal)
  try {
    const status = support.realtime ? await askStatus(link, where, signal) : undefined
    if (status) {
      const problem = statusProblem(status[0]!, status[1]!, status[2]!, where)
      if (problem) throw problem
    }
    const answers = status !== undefined
    await link.write(bytes, signal)
    if (!support.processIdResponse || !answers) {
      link.close()
      return {}
    }
    const id = nextProcessId()
    await link.write(requestProcessId(id), signal)
    // From here the job is the printer's: cancelling can no longer stop it.
    return { printed: link.confirmation(id, where).finally(() => link.close()) }
  } catch (error) {
    link.destroy()
    throw error
  }
}

/**
 * The printer's availability as its real-time status says, asked on a connection of its own (for
 * an idle printer): online, offline (unreachable, out of paper, cover open, an error), or unknown
 * (it does not answer status requests).
 */
export async function readTcpStatus(host: string, port: number): Promise<PrinterAvailability> {
  const where = `${host}:${port}`
  if (isSilent(where)) return 'unknown'
  const never = new AbortController().signal
  let link: TcpLink
  try {
    link = await TcpLink.open(host, port, where, never)
  } catch {
    return 'offline'
  }
  try {
    const status = await askStatus(link, where, never)
    if (!status) return 'unknown'
    return statusProblem(status[0]!, status[1]!, status[2]!, where) ? 'offline' : 'online'
  } catch {
    return 'offline'
  } finally {
    link.close()
  }
}

const isSilent = (where: string) => {
  const since = silentPrinters.get(where)
  return since !== undefined && Date.now() - since <= SILENT_PRINTER_MS
}

/**
 * The answers to `STATUS_REQUESTS`; undefined for a printer that does not answer, which is then
 * not asked again for SILENT_PRINTER_MS (before a job or while idle alike).
 */
async function askStatus(link: TcpLink, where: string, signal: AbortSignal): Promise<number[] | undefined> {
  if (isSilent(where)) return undefined
  link.expectStatus(STATUS_REQUESTS.length)
  await link.write(concat(STATUS_REQUESTS), signal)
  const status = await link.statusBytes(STATUS_REQUESTS.length, STATUS_TIMEOUT_MS)
  if (status) silentPrinters.delete(where)
  else silentPrinters.set(where, Date.now())
  return status
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

type Socket = Awaited<ReturnType<typeof Bun.connect>>

/** One connection to a printer: bounded writes, and the printer's answers as they come. */
class TcpLink {
  private pendingWrite: { bytes: Uint8Array; offset: number; resolve: () => void } | undefined
  /** Status bytes answered, and how many more are expected (a status byte may also open a process ID response). */
  private statuses: number[] = []
  private expectedStatuses = 0
  private responses: Uint8Array[] = []
  private incoming: number[] = []
  private onAnswer: (() => void) | undefined
  private failure: SubmitError | undefined
  private onFailure: ((error: SubmitError) => void) | undefined

  private constructor(
    private socket: Socket | undefined,
    private readonly where: string,
  ) {}

  static async open(host: string, port: number, where: string, signal: AbortSignal): Promise<TcpLink> {
    if (signal.aborted) throw cancelled()
    const link = new TcpLink(undefined, where)
    let timer: Timer | undefined
    let connecting: Promise<Socket> | undefined
    try {
      connecting = Bun.connect({
        hostname: host,
        port,
        socket: {
          drain: () => link.pump(),
          data: (_socket, data) => link.receive(data),
          error: (_socket, error) => link.fail(new SubmitError('printer_unreachable', `The connection to ${where} failed: ${error.message}`, true)),
          end: () => link.fail(new SubmitError('printer_unreachable', `The printer at ${where} closed the connection.`, true)),
          close: () => link.fail(new SubmitError('printer_unreachable', `The printer at ${where} closed the connection.`, true)),
        },
      })
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new SubmitError('printer_unreachable', `No connection to ${where} within ${TCP_CONNECT_TIMEOUT_MS / 1000} s.`, true)), TCP_CONNECT_TIMEOUT_MS)
      })
      link.socket = await Promise.race([connecting, timeout])
      return link
    } catch (error) {
      link.destroy()
      // A connection that comes after the timeout is closed at once.
      void connecting?.then((socket) => socket.terminate(), () => {})
      if (error instanceof SubmitError) throw error
      throw new SubmitError('printer_unreachable', `Cannot connect to ${where}: ${(error as Error).message}`, true)
    } finally {
      clearTimeout(timer)
    }
  }

  /** Writes every byte within the write timeout, or fails (cancelled when `signal` aborts first). */
  write(bytes: Uint8Array, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(cancelled())
    if (this.failure) return Promise.reject(this.failure)
    // Most jobs fit the socket's buffer at once: no timer or listener needed then.
    const written = this.socket ? this.socket.write(bytes) : 0
    if (written === bytes.length) return Promise.resolve()
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new SubmitError('printer_timeout', `The printer at ${this.where} did not take the job within ${TCP_WRITE_TIMEOUT_MS / 1000} s.`, true)), TCP_WRITE_TIMEOUT_MS)
      const onAbort = () => this.fail(cancelled())
      signal.addEventListener('abort', onAbort, { once: true })
      const done = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onAbort)
        this.onFailure = undefined
      }
      this.onFailure = (error) => {
        done()
        reject(error)
      }
      if (this.failure) return this.onFailure(this.failure)
      this.pendingWrite = {
        bytes,
        offset: Math.max(0, written),
        resolve: () => {
          done()
          resolve()
        },
      }
      this.pump()
    })
  }

  /** The next `count` answers to status requests will be status bytes. */
  expectStatus(count: number): void {
    this.expectedStatuses += count
  }

  /** `count` status bytes, or undefined when they do not come within `timeoutMs` or are not status bytes. */
  async statusBytes(count: number, timeoutMs: number): Promise<number[] | undefined> {
    const deadline = Date.now() + timeoutMs
    while (this.statuses.length < count) {
      if (this.failure) throw this.failure
      if (!(await this.answer(deadline - Date.now()))) return undefined
    }
    const status = this.statuses.splice(0, count)
    return status.every(isStatusByte) ? status : undefined
  }

  /**
   * Settles once the printer sent the process ID response for `id`: it printed everything before
   * it. Meanwhile the offline cause is asked every second; paper out, an open cover or an error
   * fails the attempt (retryable), and so does silence past the confirmation timeout.
   */
  async confirmation(id: Uint8Array, where: string): Promise<void> {
    const expected = processIdResponse(id)
    const deadline = Date.now() + CONFIRM_TIMEOUT_MS
    let nextPoll = Date.now() + PRINTING_POLL_MS
    for (;;) {
      if (this.responses.some((response) => response.every((byte, i) => byte === expected[i]))) return
      if (this.failure) throw new SubmitError('printer_unconfirmed', `The printer at ${where} took the job, then the connection ended before it confirmed printing it; it may have printed.`, false)
      while (this.statuses.length > 0) {
        const problem = statusProblem(0x12, this.statuses.shift()!, 0x12, where)
        if (problem) throw problem
      }
      if (Date.now() >= deadline) throw new SubmitError('printer_unconfirmed', `The printer at ${where} took the job but did not confirm printing it within ${CONFIRM_TIMEOUT_MS / 1000} s; it may have printed.`, false)
      if (Date.now() >= nextPoll) {
        this.expectStatus(1)
        this.socket?.write(transmitRealtimeStatus(2))
        nextPoll = Date.now() + PRINTING_POLL_MS
      }
      await this.answer(Math.min(deadline, nextPoll) - Date.now())
    }
  }

  close(): void {
    this.onFailure = undefined
    this.failure ??= new SubmitError('printer_unreachable', 'closed', true)
    this.socket?.end()
  }

  destroy(): void {
    this.onFailure = undefined
    this.failure ??= new SubmitError('printer_unreachable', 'closed', true)
    this.socket?.terminate()
  }

  private pump(): void {
    const write = this.pendingWrite
    if (!write || !this.socket) return
    while (write.offset < write.bytes.length) {
      const written = this.socket.write(write.bytes.subarray(write.offset))
      if (written <= 0) return
      write.offset += written
    }
    this.pendingWrite = undefined
    write.resolve()
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
    this.socket?.terminate()
    this.onFailure?.(error)
    this.onAnswer?.()
  }
}
