// Printers that poll the hub for their jobs (Star CloudPRNT). A printer is not reached: it comes.
// Its polls say its condition; a job for it is offered on its next poll (`jobReady`), handed over
// when it fetches it, and settled when it confirms it. To the agent it is a printer like any
// other: `ready` resolves once the printer is fetching the job (so the intent to print is recorded
// only when the bytes are about to go), `send` answers the fetch, and `printed` settles with the
// printer's confirmation. A printer that fetched a job and never confirmed it leaves the job
// unconfirmed (it may have printed): never offered again silently.
//
// Everything here is in memory and bounded: a poll is a few map reads; printers that are not the
// hub's (not adopted) are remembered, at most MAX_WAITING of them, for a technician to adopt.
import { randomBytes } from 'node:crypto'
import { normalMac } from '../domain/connection-uri.ts'
import type { PrinterState } from '../domain/printer-state.ts'
import { CLOUDPRNT_CONFIRM_MS } from '../domain/settings.ts'
import { CLOUDPRNT_CLIENT_ACTIONS, CLOUDPRNT_MEDIA_TYPES, type CloudPrntMediaType, type CloudPrntPoll, type CloudPrntPollAnswer, type PageInfo, pageInfoOf, type Parsed, parsePoll } from '../protocol/cloudprnt.ts'
import { failure } from '../protocol/failures.ts'
import { failureOfConfirmation, failureOfState, parseStatusCode, stateOfStatus, type StatusCode } from './cloudprnt-codes.ts'
import type { ReadyPrinter } from './printer-link.ts'
import { CANCELLED, type PrintedOutcome, type PrinterModel, refused, type Stopped } from './submission.ts'

/** Star's default poll interval, assumed until a printer says its own. */
export const DEFAULT_POLL_INTERVAL_MS = 5_000
/** Polls missed before a printer counts as offline. */
export const MISSED_POLLS = 3
/** Printers seen polling that are not the hub's, kept for adoption (the oldest is let go). */
export const MAX_WAITING = 64
/** How long a fetch waits for the job's bytes once the printer asked (the agent records its intent meanwhile). */
const HAND_OVER_MS = 10_000

/** What a printer told about itself when asked (`clientAction`), for people. */
export interface CloudPrntInfo {
  clientType: string | null
  clientVersion: string | null
  pageInfo: PageInfo | null
  /** The poll interval it reports, in ms. */
  pollIntervalMs: number | null
}

/** A printer seen polling, as the dashboard and the printers API show it. */
export interface PollingPrinterView extends CloudPrntInfo {
  mac: string
  address: string
  adopted: boolean
  firstSeenAt: string
  lastPollAt: string
  state: PrinterState
  statusCode: string
}

type Resolvers<T> = ReturnType<typeof Promise.withResolvers<T>>

interface Offer {
  token: string
  model: PrinterModel
  mediaTypes: CloudPrntMediaType[]
  stage: 'offered' | 'fetching' | 'sent'
  /** Settles when the printer fetches the job, or why it will not. */
  fetched: Resolvers<'fetched' | Stopped>
  bytes: Resolvers<Uint8Array | null>
  printed: Resolvers<PrintedOutcome>
  sent?: Uint8Array
  timer?: Timer
}

interface Seen extends CloudPrntInfo {
  mac: string
  address: string
  firstSeenAt: number
  lastPollAt: number
  status: StatusCode
  state: PrinterState
  printing: boolean
  asked: boolean
  offer?: Offer
}

export interface CloudPrntOptions {
  now?: () => number
  confirmTimeoutMs?: number
  /** A job's bytes as a PNG, for a printer that fetches `image/png`; without it only StarPRNT is offered. */
  toPng?: (bytes: Uint8Array, model: PrinterModel) => Uint8Array
  /** Told when a printer's polled state changed. */
  changed?: (mac: string) => void
}

/** An answer for the HTTP edge: its status, and a body (JSON, or a job's bytes of `type`). */
export type FetchAnswer = { status: 200; type: CloudPrntMediaType; body: Uint8Array } | { status: 400 | 404 | 415; message: string }

export class CloudPrnt {
  private readonly printers = new Map<string, Seen>()
  private adopted = new Set<string>()
  private readonly now: () => number

  constructor(private readonly options: CloudPrntOptions = {}) {
    this.now = options.now ?? Date.now
  }

  /** The MAC addresses of the hub's own CloudPRNT printers (the agent says so when its printers change). */
  serve(macs: Iterable<string>): void {
    this.adopted = new Set(macs)
  }

  // ---- The printer's side (the HTTP edge) ----

  /** A poll: the printer's state learned, and what it is to do next. */
  poll(body: unknown, address: string): Parsed<CloudPrntPollAnswer> {
    const parsed = parsePoll(body)
    if (!parsed.ok) return parsed
    const mac = normalMac(parsed.value.printerMAC)
    if (!mac) return { ok: false, message: 'printerMAC must be a MAC address, as 00:11:62:12:34:56' }
    const status = parseStatusCode(parsed.value.statusCode)
    if (!status) return { ok: false, message: 'statusCode must start with a three or four digit status code, as 200%20OK' }
    const seen = this.learn(mac, address.slice(0, 64), status, parsed.value)
    return { ok: true, value: this.answer(seen) }
  }

  /** A job fetch: the bytes of the job offered with `token`, as `type`. */
  async fetch(macText: string | undefined, type: string | undefined, token: string | undefined): Promise<FetchAnswer> {
    const mac = normalMac(macText ?? '')
    if (!mac) return { status: 400, message: 'mac must be the printer’s MAC address' }
    const offer = this.printers.get(mac)?.offer
    // Printers before CloudPRNT tokens send none: theirs is the job offered.
    if (!offer || (token !== undefined && token !== offer.token)) return { status: 404, message: 'There is no job for this printer with this token.' }
    const mediaType = (type ?? offer.mediaTypes[0]) as CloudPrntMediaType
    if (!offer.mediaTypes.includes(mediaType)) return { status: 415, message: `This job is served as ${offer.mediaTypes.join(' or ')}.` }
    if (offer.stage === 'offered') {
      offer.stage = 'fetching'
      offer.fetched.resolve('fetched')
    }
    const bytes = offer.sent ?? (await within(offer.bytes.promise, HAND_OVER_MS, null))
    if (!bytes) return { status: 404, message: 'The job was withdrawn.' }
    return { status: 200, type: mediaType, body: mediaType === 'image/png' ? this.options.toPng!(bytes, offer.model) : bytes }
  }

  /** A job's confirmation: printed (2xx), or why not; only for a job the printer fetched, by its token. */
  confirm(macText: string | undefined, code: string | undefined, token: string | undefined): { status: 200 } | { status: 400 | 404; message: string } {
    const mac = normalMac(macText ?? '')
    if (!mac) return { status: 400, message: 'mac must be the printer’s MAC address' }
    const status = parseStatusCode(code ?? '')
    if (!status) return { status: 400, message: 'code must start with a three or four digit status code, as 200%20OK' }
    const seen = this.printers.get(mac)
    const offer = seen?.offer
    if (!seen || !offer || offer.stage !== 'sent' || (token !== undefined && token !== offer.token)) return { status: 404, message: 'No job of this printer awaits a confirmation with this token.' }
    const failed = failureOfConfirmation(status)
    this.settle(seen, offer, failed ? refused(failed) : { ok: true })
    return { status: 200 }
  }

  // ---- The agent's side (the transport) ----

  /** The printer's state as its polls say it; offline when they stopped. */
  state(mac: string): PrinterState {
    const seen = this.printers.get(mac)
    return !seen || this.silent(seen) ? 'offline' : seen.state
  }

  /**
   * Offers a job to the printer and waits until it fetches it: its bytes are then given with
   * `send`. Refused at once when the printer is silent or cannot print; when it does not fetch
   * the job within its missed-polls window, nothing was sent and the job can be tried again.
   */
  async ready(mac: string, signal: AbortSignal, model: PrinterModel): Promise<{ ok: true; printer: ReadyPrinter } | Stopped> {
    if (signal.aborted) return CANCELLED
    const seen = this.printers.get(mac)
    if (!seen || !this.adopted.has(mac)) return refused(failure('printer.offline', 'The printer has not polled the hub since it started: set its CloudPRNT server URL to this hub’s /cloudprnt (see docs/cloud-printers.md).'))
    if (this.silent(seen)) return refused(failure('printer.offline', `The printer has not polled the hub for ${Math.round((this.now() - seen.lastPollAt) / 1000)} s (it polls every ${this.intervalOf(seen) / 1000} s): is it on and on the network?`))
    const fault = failureOfState(seen.state, seen.status)
    if (fault) return refused(fault)
    if (seen.offer) return refused(failure('printer.timeout', 'The printer has another job outstanding.'))
    const offer: Offer = {
      token: randomBytes(16).toString('base64url'),
      model,
      mediaTypes: CLOUDPRNT_MEDIA_TYPES.filter((type) => type !== 'image/png' || this.options.toPng),
      stage: 'offered',
      fetched: Promise.withResolvers<'fetched' | Stopped>(),
      bytes: Promise.withResolvers<Uint8Array | null>(),
      printed: Promise.withResolvers<PrintedOutcome>(),
    }
    seen.offer = offer
    const waitMs = this.intervalOf(seen) * MISSED_POLLS
    const cancel = () => offer.fetched.resolve(CANCELLED)
    signal.addEventListener('abort', cancel, { once: true })
    const outcome = await within(offer.fetched.promise, waitMs, refused(failure('printer.timeout', `The printer did not fetch the job within ${waitMs / 1000} s; nothing was sent.`)))
    signal.removeEventListener('abort', cancel)
    if (outcome !== 'fetched') {
      this.withdraw(seen, offer)
      return outcome
    }
    return {
      ok: true,
      printer: {
        send: async (bytes, sendSignal) => {
          if (sendSignal.aborted) {
            this.withdraw(seen, offer)
            return CANCELLED
          }
          offer.sent = bytes
          offer.stage = 'sent'
          offer.bytes.resolve(bytes)
          const timeoutMs = this.options.confirmTimeoutMs ?? CLOUDPRNT_CONFIRM_MS.default
          offer.timer = setTimeout(() => this.settle(seen, offer, refused(failure('printer.unconfirmed', `The printer fetched the job but did not confirm it within ${timeoutMs / 1000} s; it may have printed.`))), timeoutMs)
          return { ok: true, printed: offer.printed.promise }
        },
        release: () => this.withdraw(seen, offer),
      },
    }
  }

  /** Printers seen polling: the hub's own and those waiting to be adopted, most recent first. */
  list(): PollingPrinterView[] {
    return [...this.printers.values()]
      .sort((a, b) => b.lastPollAt - a.lastPollAt)
      .map((seen) => ({
        mac: seen.mac,
        address: seen.address,
        adopted: this.adopted.has(seen.mac),
        firstSeenAt: new Date(seen.firstSeenAt).toISOString(),
        lastPollAt: new Date(seen.lastPollAt).toISOString(),
        state: this.state(seen.mac),
        statusCode: `${seen.status.code}${seen.status.text ? ` ${seen.status.text}` : ''}`,
        clientType: seen.clientType,
        clientVersion: seen.clientVersion,
        pageInfo: seen.pageInfo,
        pollIntervalMs: seen.pollIntervalMs,
      }))
  }

  /** Lets every job go (the hub is stopping): fetches answer 404, nothing waits. */
  stop(): void {
    for (const seen of this.printers.values()) if (seen.offer) this.withdraw(seen, seen.offer)
  }

  // ---- Inside ----

  private learn(mac: string, address: string, status: StatusCode, poll: CloudPrntPoll): Seen {
    const now = this.now()
    let seen = this.printers.get(mac)
    if (!seen) {
      if (!this.adopted.has(mac)) this.makeRoom()
      seen = { mac, address, firstSeenAt: now, lastPollAt: now, status, state: stateOfStatus(status), printing: false, asked: false, clientType: null, clientVersion: null, pageInfo: null, pollIntervalMs: null }
      this.printers.set(mac, seen)
      this.options.changed?.(mac)
    }
    const before = this.state(mac)
    seen.address = address
    seen.lastPollAt = now
    seen.status = status
    seen.state = stateOfStatus(status)
    seen.printing = poll.printingInProgress
    for (const { request, result } of poll.clientAction) this.answered(seen, request, result)
    const offer = seen.offer
    const fault = failureOfState(seen.state, status)
    if (offer && fault) {
      // Not fetched yet: not offered to a printer that cannot print. Fetched: the printer fetches it
      // again once it can (Star's guide), as a new attempt of the job.
      if (offer.stage === 'sent') this.settle(seen, offer, refused(fault))
      else offer.fetched.resolve(refused(fault))
    }
    if (this.state(mac) !== before) this.options.changed?.(mac)
    return seen
  }

  private answered(seen: Seen, request: string, result: unknown): void {
    const said = typeof result === 'string' ? result.slice(0, 64) : null
    if (request === 'ClientType') seen.clientType = said
    else if (request === 'ClientVersion') seen.clientVersion = said
    else if (request === 'PageInfo') seen.pageInfo = pageInfoOf(result) ?? null
    else if (request === 'GetPollInterval' && said !== null && /^\d{1,5}$/.test(said.trim())) {
      const seconds = Number(said.trim())
      if (seconds >= 1 && seconds <= 3_600) seen.pollIntervalMs = seconds * 1_000
    }
  }

  private answer(seen: Seen): CloudPrntPollAnswer {
    if (!seen.asked) {
      // Asked once per start; the printer answers in its next poll, at once.
      seen.asked = true
      return { jobReady: false, clientAction: CLOUDPRNT_CLIENT_ACTIONS.map((request) => ({ request, options: '' })) }
    }
    const offer = seen.offer
    if (offer?.stage === 'offered' && !seen.printing && this.adopted.has(seen.mac)) return { jobReady: true, mediaTypes: offer.mediaTypes, jobToken: offer.token }
    return { jobReady: false }
  }

  private intervalOf(seen: Seen): number {
    return seen.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS
  }

  private silent(seen: Seen): boolean {
    return this.now() - seen.lastPollAt > this.intervalOf(seen) * MISSED_POLLS
  }

  /** Lets the printer that polled longest ago go, among those not the hub's, when MAX_WAITING are kept. */
  private makeRoom(): void {
    const waiting = [...this.printers.values()].filter((seen) => !this.adopted.has(seen.mac))
    if (waiting.length < MAX_WAITING) return
    const oldest = waiting.reduce((a, b) => (a.lastPollAt <= b.lastPollAt ? a : b))
    this.printers.delete(oldest.mac)
  }

  private withdraw(seen: Seen, offer: Offer): void {
    if (seen.offer === offer) seen.offer = undefined
    clearTimeout(offer.timer)
    offer.bytes.resolve(null)
    offer.fetched.resolve(CANCELLED)
  }

  private settle(seen: Seen, offer: Offer, outcome: PrintedOutcome): void {
    if (seen.offer === offer) seen.offer = undefined
    clearTimeout(offer.timer)
    offer.printed.resolve(outcome)
  }
}

/** `promise`'s value, or `otherwise` once `ms` passed (the timer does not outlive the wait). */
async function within<T, U>(promise: Promise<T>, ms: number, otherwise: U): Promise<T | U> {
  let timer: Timer | undefined
  try {
    return await Promise.race([promise, new Promise<U>((resolve) => (timer = setTimeout(() => resolve(otherwise), ms)))])
  } finally {
    clearTimeout(timer)
  }
}
