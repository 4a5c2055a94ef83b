// Star CloudPRNT printers, on the core every printer that polls shares (polling.ts): a poll's
// JSON says the printer's status and answers what it was asked; a job is announced with its
// media types and a token, fetched with a GET, and settled by the printer's confirmation code.
import { normalMac } from '../domain/connection-uri.ts'
import type { PrinterState } from '../domain/printer-state.ts'
import {
  CLOUDPRNT_CLIENT_ACTIONS,
  CLOUDPRNT_MEDIA_TYPES,
  type CloudPrntMediaType,
  type CloudPrntPollAnswer,
  type PageInfo,
  pageInfoOf,
  type Parsed,
  parsePoll,
} from '../protocol/cloudprnt.ts'
import {
  failureOfConfirmation,
  failureOfState,
  parseStatusCode,
  stateOfStatus,
  type StatusCode,
} from './cloudprnt-codes.ts'
import { type Heard, type PollingPrinterView, PollingPrinters } from './polling.ts'
import type { Offer } from './polling-offer.ts'
import type { ReadyPrinter } from './printer-link.ts'
import { type PrinterModel, refused, type Stopped } from './submission.ts'

/** Star's default poll interval, assumed until a printer says its own. */
export const DEFAULT_POLL_INTERVAL_MS = 5_000
/** The longest poll interval a printer is believed to have (a longer one would hold its jobs for long). */
const MAX_POLL_INTERVAL_S = 60

/** What a printer told about itself when asked (`clientAction`), for people. */
export interface CloudPrntInfo {
  statusCode: string
  clientType: string | null
  clientVersion: string | null
  pageInfo: PageInfo | null
  /** Whether it was asked, since the hub started. */
  asked: boolean
}

export interface CloudPrntOptions {
  now?: () => number
  confirmTimeoutMs?: number
  /** A job's bytes as a PNG, for a printer that fetches `image/png`; without it only StarPRNT is offered. */
  toPng?: (bytes: Uint8Array, model: PrinterModel) => Promise<Uint8Array>
  /** Told when a printer's polled state changed. */
  changed?: (mac: string) => void
}

/** An answer for the HTTP edge: its status, and a body (a job's bytes of `type`, or words). */
export type FetchAnswer =
  | { status: 200; type: CloudPrntMediaType; body: Uint8Array }
  | { status: 400 | 404 | 415; message: string }

const said = (status: StatusCode) => `${status.code}${status.text ? ` ${status.text}` : ''}`

export class CloudPrnt {
  private readonly printers: PollingPrinters<CloudPrntInfo>
  private readonly mediaTypes: CloudPrntMediaType[]
  private readonly pngs = new WeakMap<Offer, Promise<Uint8Array>>()

  constructor(private readonly options: CloudPrntOptions = {}) {
    this.printers = new PollingPrinters(
      {
        protocol: 'CloudPRNT',
        path: '/cloudprnt',
        defaultIntervalMs: DEFAULT_POLL_INTERVAL_MS,
        measureInterval: false,
        ...options,
      },
      () => ({ statusCode: '', clientType: null, clientVersion: null, pageInfo: null, asked: false }),
    )
    this.mediaTypes = CLOUDPRNT_MEDIA_TYPES.filter((type) => type !== 'image/png' || options.toPng)
  }

  /** The MAC addresses of the hub's own CloudPRNT printers (the agent says so when its printers change). */
  serve(macs: Iterable<string>): void {
    this.printers.serve(macs)
  }

  // ---- The printer's side (the HTTP edge) ----

  /** A poll: the printer's state learned, and what it is to do next. */
  poll(body: unknown, address: string): Parsed<CloudPrntPollAnswer> {
    const parsed = parsePoll(body)
    if (!parsed.ok) return parsed
    const mac = normalMac(parsed.value.printerMAC)
    if (!mac) return { ok: false, message: 'printerMAC must be a MAC address, as 00:11:62:12:34:56' }
    const status = parseStatusCode(parsed.value.statusCode)
    if (!status)
      return { ok: false, message: 'statusCode must start with a three or four digit status code, as 200%20OK' }
    const seen = this.printers.heard(mac, address, true)
    seen.statusCode = said(status)
    seen.busy = parsed.value.printingInProgress
    for (const { request, result } of parsed.value.clientAction) this.answered(seen, request, result)
    const state = stateOfStatus(status)
    this.printers.condition(seen, state, failureOfState(state, status))
    return { ok: true, value: this.answer(seen) }
  }

  /** A job fetch from `address`: the bytes of the job offered with `token`, as `type`. */
  async fetch(
    macText: string | undefined,
    type: string | undefined,
    token: string | undefined,
    address: string,
  ): Promise<FetchAnswer> {
    const mac = normalMac(macText ?? '')
    if (!mac) return { status: 400, message: 'mac must be the printer’s MAC address' }
    const mediaType = (type ?? this.mediaTypes[0]) as CloudPrntMediaType
    if (!this.mediaTypes.includes(mediaType))
      return { status: 415, message: `Jobs are served as ${this.mediaTypes.join(' or ')}.` }
    // Printers before CloudPRNT tokens send none: theirs is the job offered.
    const taken = await this.printers.take(mac, token, address)
    if (taken === 'none')
      return { status: 404, message: 'There is no job for this printer with this token, from this address.' }
    if (taken === 'withdrawn') return { status: 404, message: 'The job was withdrawn.' }
    return {
      status: 200,
      type: mediaType,
      body: mediaType === 'image/png' ? await this.pngOf(taken.offer, taken.bytes) : taken.bytes,
    }
  }

  /**
   * A job's confirmation from `address`: printed (2xx), or why not; only for a job the printer there fetched, by its
   * token.
   */
  confirm(
    macText: string | undefined,
    code: string | undefined,
    token: string | undefined,
    address: string,
  ): { status: 200 } | { status: 400 | 404; message: string } {
    const mac = normalMac(macText ?? '')
    if (!mac) return { status: 400, message: 'mac must be the printer’s MAC address' }
    const status = parseStatusCode(code ?? '')
    if (!status) return { status: 400, message: 'code must start with a three or four digit status code, as 200%20OK' }
    const failed = failureOfConfirmation(status)
    if (!this.printers.finished(mac, token, address, failed ? refused(failed) : { ok: true }))
      return {
        status: 404,
        message: 'No job of this printer awaits a confirmation with this token, from this address.',
      }
    return { status: 200 }
  }

  // ---- The agent's side (the transport) ----

  state(mac: string): PrinterState {
    return this.printers.state(mac)
  }

  ready(mac: string, signal: AbortSignal, model: PrinterModel): Promise<{ ok: true; printer: ReadyPrinter } | Stopped> {
    return this.printers.ready(mac, signal, model)
  }

  /** When the printer of this MAC address was last heard from here, and how often it polls. */
  lastHeard(mac: string): { at: number; intervalMs: number } | undefined {
    return this.printers.lastHeard(mac)
  }

  /** Printers seen polling: the hub's own and those waiting to be adopted, most recent first. */
  /** The hub's time jumped with the system clock: what it knows of its printers' polls moves as much. */
  clockJumped(byMs: number): void {
    this.printers.clockJumped(byMs)
  }

  list(): PollingPrinterView[] {
    return this.printers.all().map((seen) =>
      this.printers.view(seen, 'cloudprnt', {
        status: seen.statusCode,
        model: [seen.clientType, seen.clientVersion].filter(Boolean).join(' ') || null,
        pageInfo: seen.pageInfo,
      }),
    )
  }

  stop(): void {
    this.printers.stop()
  }

  // ---- Inside ----

  /** The job's picture, drawn once however often it is fetched. */
  private pngOf(offer: Offer, bytes: Uint8Array): Promise<Uint8Array> {
    let png = this.pngs.get(offer)
    if (!png) this.pngs.set(offer, (png = this.options.toPng!(bytes, offer.model)))
    return png
  }

  private answered(seen: Heard & CloudPrntInfo, request: string, result: unknown): void {
    const text = typeof result === 'string' ? result.slice(0, 64) : null
    if (request === 'ClientType') seen.clientType = text
    else if (request === 'ClientVersion') seen.clientVersion = text
    else if (request === 'PageInfo') seen.pageInfo = pageInfoOf(result) ?? null
    else if (request === 'GetPollInterval' && text !== null && /^\d{1,5}$/.test(text.trim())) {
      const seconds = Number(text.trim())
      if (seconds >= 1 && seconds <= MAX_POLL_INTERVAL_S) seen.pollIntervalMs = seconds * 1_000
    }
  }

  private answer(seen: Heard & CloudPrntInfo): CloudPrntPollAnswer {
    if (!seen.asked) {
      // Asked once per start; the printer answers in its next poll, at once.
      seen.asked = true
      return { jobReady: false, clientAction: CLOUDPRNT_CLIENT_ACTIONS.map((request) => ({ request, options: '' })) }
    }
    const offer = this.printers.announce(seen, seen.address)
    return offer ? { jobReady: true, mediaTypes: this.mediaTypes, jobToken: offer.token } : { jobReady: false }
  }
}
