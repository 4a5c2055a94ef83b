// Epson Server Direct Print printers, on the core every printer that polls shares (polling.ts).
// A GetRequest is both the poll and the fetch: the job goes out in its answer. The printer's
// SetResponse says how each job went (its `code`) and how the printer is (its ASB status bits);
// a SetStatus, from a printer set to send them, says how it is, and so does a GetRequest that
// carries status bits (applied before it is answered: a printer that cannot print gets nothing).
import type { PrinterState } from '../domain/printer-state.ts'
import { MAX_SDP_JOB_BYTES, parseSdpForm, printRequestInfo, type SdpResponse } from '../protocol/epson-sdp.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import { type Heard, type PollingPrinterView, PollingPrinters } from './polling.ts'
import type { ReadyPrinter } from './printer-link.ts'
import { type PrinterModel, refused, type Stopped } from './submission.ts'

/** Epson's default interval on the TM-m30III, assumed until the gap between two polls says it. */
export const DEFAULT_SDP_INTERVAL_MS = 60_000
/**
 * How long a fault learned from a job's response holds: a printer that reports its status only
 * with its responses (no Status Notification set up) is sent the next job once it passed, and
 * says again how it is. One with Status Notification says it at once.
 */
export const SDP_FAULT_HOLDS_MS = 60_000
/** Job IDs settled lately, by printer: the printer sends a SetResponse again when the first was not answered. */
const SETTLED_KEPT = 16

// The ASB status bits printhub reads (Epson's ePOS-Print reference).
const ASB = {
  noResponse: 0x1,
  coverOpen: 0x20,
  mechanical: 0x400,
  autocutter: 0x800,
  unrecoverable: 0x2000,
  autoRecover: 0x4000,
  nearEnd: 0x20000,
  receiptEnd: 0x80000,
} as const

/** What a printer's ASB status says of it. */
export function stateOfAsb(asb: number): PrinterState {
  if (asb & ASB.receiptEnd) return 'paper_out'
  if (asb & ASB.coverOpen) return 'cover_open'
  if (asb & (ASB.noResponse | ASB.mechanical | ASB.autocutter | ASB.unrecoverable | ASB.autoRecover)) return 'error'
  return asb & ASB.nearEnd ? 'paper_low' : 'online'
}

const hex = (asb: number) => `0x${asb.toString(16).padStart(8, '0')}`

/** Why a printer in `state` cannot print (nothing was), or null. */
function faultOf(state: PrinterState, asb: number): Failure | null {
  if (state === 'paper_out') return failure('printer.paper_out', `The printer is out of paper (status ${hex(asb)}).`)
  if (state === 'cover_open') return failure('printer.cover_open', `The printer's cover is open (status ${hex(asb)}).`)
  if (state === 'error') return failure('printer.error', `The printer reports an error (status ${hex(asb)}).`)
  return null
}

/** How a job went, by the printer's code: null when it printed. */
export function failureOfResponse(response: SdpResponse): Failure | null {
  if (response.success) return null
  const words = `the printer answered ${response.code || 'a failure'}, status ${hex(response.status)}`
  switch (response.code) {
    case 'EPTR_REC_EMPTY':
      return failure('printer.paper_out', `The printer ran out of paper (${words}).`)
    case 'EPTR_COVER_OPEN':
      return failure('printer.cover_open', `The printer's cover is open (${words}).`)
    case 'EPTR_AUTOMATICAL':
    case 'EPTR_CUTTER':
    case 'EPTR_MECHANICAL':
    case 'EPTR_UNRECOVERABLE':
    case 'EPTR_BATTERY_LOW':
      return failure('printer.error', `The printer reports an error (${words}).`)
    case 'EX_BADPORT':
      return failure('printer.offline', `The printer's print engine did not answer (${words}).`)
    case 'EX_TIMEOUT':
    case 'EX_DEVICE_BUSY':
    case 'EX_SPOOLER':
    case 'EX_ENPC_TIMEOUT':
    case 'TooManyRequests':
    case 'Printing':
      return failure('printer.timeout', `The printer was not ready for the job in time (${words}).`)
    case 'SchemaError':
    case 'DeviceNotFound':
    case 'PrintSystemError':
    case 'RequestEntityTooLarge':
      return failure(
        'printer.failed',
        `The printer could not use the job (${words}); check that ePOS-Print and the device local_printer are set up.`,
        false,
      )
    default:
      return failure('printer.error', `The printer could not print the job (${words}).`)
  }
}

export interface EpsonSdpOptions {
  now?: () => number
  confirmTimeoutMs?: number
  changed?: (id: string) => void
}

/** An answer for the HTTP edge: a document (empty: nothing to do), or why the request is refused. */
export type SdpAnswer = { ok: true; xml: string } | { ok: false; status: 400 | 404; message: string }

export class EpsonSdp {
  private readonly printers: PollingPrinters<{ asb: number | null; settled: string[] }>

  constructor(options: EpsonSdpOptions = {}) {
    this.printers = new PollingPrinters(
      {
        protocol: 'Server Direct Print',
        path: '/epson-sdp',
        defaultIntervalMs: DEFAULT_SDP_INTERVAL_MS,
        measureInterval: true,
        ...options,
      },
      () => ({ asb: null, settled: [] }),
    )
  }

  /** The IDs of the hub's own Server Direct Print printers. */
  serve(ids: Iterable<string>): void {
    this.printers.serve(ids)
  }

  /** What the printer posted, and the document it gets back. */
  async post(form: URLSearchParams, address: string): Promise<SdpAnswer> {
    const parsed = parseSdpForm(form)
    if (!parsed.ok) return { ok: false, status: 400, message: parsed.message }
    const message = parsed.value
    const seen = this.printers.heard(message.printer, address, message.type === 'GetRequest')
    switch (message.type) {
      case 'GetRequest': {
        // Its status first, when it says it: a printer that cannot print is sent nothing.
        if (message.asb !== null) this.learn(seen, message.asb, false)
        const offer = this.printers.announce(seen, seen.address)
        if (!offer) return { ok: true, xml: '' }
        const taken = await this.printers.take(seen.key, offer.token, seen.address)
        return { ok: true, xml: typeof taken === 'object' ? printRequestInfo(taken.offer.token, taken.bytes) : '' }
      }
      case 'SetStatus':
        if (message.asb !== null) this.learn(seen, message.asb, false)
        return { ok: true, xml: '' }
      case 'SetResponse': {
        let known = false
        for (const response of message.responses) {
          // A repeat of a response already taken (the printer sends it again when unsure it arrived).
          if (response.printJobId !== null && seen.settled.includes(response.printJobId)) {
            known = true
            continue
          }
          const failed = failureOfResponse(response)
          const outstanding = seen.offer?.token
          if (
            this.printers.finished(
              seen.key,
              response.printJobId ?? undefined,
              seen.address,
              failed ? refused(failed) : { ok: true },
            )
          ) {
            known = true
            seen.settled = [...seen.settled, response.printJobId ?? outstanding ?? ''].slice(-SETTLED_KEPT)
          }
        }
        if (
          message.requestError !== null &&
          this.printers.finished(
            seen.key,
            undefined,
            seen.address,
            refused(failure('printer.failed', `The printer refused the job: ${message.requestError}.`, false)),
          )
        )
          known = true
        // How the printer is now, once its jobs are settled by their own codes (a response for no job of its says
        // nothing).
        const last = message.responses.at(-1)
        if (last && known) this.learn(seen, last.status, true)
        return known
          ? { ok: true, xml: '' }
          : { ok: false, status: 404, message: 'No job of this printer awaits a response with this printjobid.' }
      }
    }
  }

  // ---- The agent's side (the transport) ----

  state(id: string): PrinterState {
    return this.printers.state(id)
  }

  ready(id: string, signal: AbortSignal, model: PrinterModel): Promise<{ ok: true; printer: ReadyPrinter } | Stopped> {
    return this.printers.ready(id, signal, model, (bytes) =>
      bytes.length > MAX_SDP_JOB_BYTES
        ? failure(
            'printer.failed',
            `The job is ${bytes.length} bytes, over the ${MAX_SDP_JOB_BYTES} Server ` +
              `Direct Print carries; nothing was sent.`,
            false,
          )
        : null,
    )
  }

  /** When the printer of this ID was last heard from here, and how often it polls. */
  lastHeard(id: string): { at: number; intervalMs: number } | undefined {
    return this.printers.lastHeard(id)
  }

  /** The hub's time jumped with the system clock: what it knows of its printers' polls moves as much. */
  clockJumped(byMs: number): void {
    this.printers.clockJumped(byMs)
  }

  list(): PollingPrinterView[] {
    return this.printers.all().map((seen) =>
      this.printers.view(seen, 'epson-sdp', {
        status: seen.asb === null ? '' : hex(seen.asb),
        model: null,
        pageInfo: null,
      }),
    )
  }

  stop(): void {
    this.printers.stop()
  }

  /**
   * What the printer's status bits say; `fromJob`: read off a job's response, it holds a while (SDP_FAULT_HOLDS_MS).
   */
  private learn(seen: Heard & { asb: number | null }, asb: number, fromJob: boolean): void {
    seen.asb = asb
    const state = stateOfAsb(asb)
    this.printers.condition(seen, state, faultOf(state, asb), fromJob ? SDP_FAULT_HOLDS_MS : undefined)
  }
}
