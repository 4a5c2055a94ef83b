// Printers that poll the hub for their jobs (Star CloudPRNT, Epson Server Direct Print): what
// both protocols share. A printer is not reached: it comes. Its polls say it is there and how it
// is; a job for it is offered on its next poll, handed over when it fetches it, and settled when
// it says how printing went. To the agent it is a printer like any other: `ready` resolves once
// the printer is fetching the job (so the intent to print is recorded only when the bytes are
// about to go), `send` answers the fetch, and `printed` settles with the printer's word. A printer
// that fetched a job and never said how it went leaves the job unconfirmed (it may have printed):
// never offered again silently. One offer's course, from the fetch to the printer's word, is
// polling-offer.ts.
//
// Everything here is in memory and bounded: a poll is a few map reads; printers that are not the
// hub's (not adopted) are remembered, at most MAX_WAITING of them, for a technician to adopt.
import type { PrinterState } from '../domain/printer-state.ts'
import type { PageInfo } from '../protocol/cloudprnt.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import type { ReadyPrinter } from './printer-link.ts'
import { fetchedPrinter, fetchOffer, newOffer, type Offer, settle, withdraw, within } from './polling-offer.ts'
import { CANCELLED, type PrintedOutcome, type PrinterModel, refused, type Stopped } from './submission.ts'

/** Polls missed before a printer counts as offline. */
export const MISSED_POLLS = 3
/** Printers seen polling that are not the hub's, kept for adoption (the one heard from longest ago is let go). */
export const MAX_WAITING = 64
/**
 * The shortest poll interval a printer is taken to have (Epson's Web Config allows no less): polls closer together do
 * not make it offline sooner.
 */
const MIN_INTERVAL_MS = 1_000
/** A printer seen polling, as the dashboard and the admin API show it. */
export interface PollingPrinterView {
  kind: 'cloudprnt' | 'epson-sdp'
  /** What it is known and adopted by: its MAC address (CloudPRNT), its ID (Epson). */
  key: string
  address: string
  adopted: boolean
  firstSeenAt: string
  lastPollAt: string
  state: PrinterState
  /** Its status as it last said it, in its own terms. */
  status: string
  /** Its model and firmware as it says them. */
  model: string | null
  pageInfo: PageInfo | null
  pollIntervalMs: number
}

/** A printer heard from: when, from where, how it is, and the job offered to it. */
export interface Heard {
  key: string
  address: string
  firstSeenAt: number
  /** When it was last heard from (a poll, or any other message of it). */
  lastPollAt: number
  /** When it last polled for jobs; null before its first poll. */
  polledAt: number | null
  state: PrinterState
  /** Why it cannot print now (its state, in a failure's words), or null. */
  fault: Failure | null
  /** Until when its state holds, when it was learned from something other than a poll (then it is not known). */
  stateUntil: number | null
  /** Busy with a job of its own accord: offered nothing meanwhile. */
  busy: boolean
  /** The poll interval it reports, in ms, when it does. */
  pollIntervalMs: number | null
  /** The gap between its last two polls, in ms. */
  measuredMs: number | null
  offer?: Offer
}

export interface PollingOptions {
  /** The protocol, in messages (`CloudPRNT`), and where the printer is to send its polls. */
  protocol: string
  path: string
  /** The poll interval assumed until a printer's is known. */
  defaultIntervalMs: number
  /**
   * Whether the gap between polls tells the interval (a protocol whose printers do not say it, and never poll early).
   */
  measureInterval: boolean
  now?: () => number
  confirmTimeoutMs?: number
  /** Told when a printer's state changed, or it was heard from for the first time. */
  changed?: (key: string) => void
}

export class PollingPrinters<Extra extends object> {
  private readonly printers = new Map<string, Heard & Extra>()
  private adopted = new Set<string>()
  private stopped = false
  private readonly now: () => number

  constructor(
    private readonly options: PollingOptions,
    /** What a protocol keeps of a printer besides (what it told about itself). */
    private readonly extra: () => Extra,
  ) {
    this.now = options.now ?? Date.now
  }

  /**
   * The hub's time jumped by `byMs` with the system clock (services/clock.ts): each printer's times move as much, so
   * that one that polled a second ago still did, not a year ago (or a day ahead).
   */
  clockJumped(byMs: number): void {
    for (const seen of this.printers.values()) {
      seen.lastPollAt += byMs
      if (seen.polledAt !== null) seen.polledAt += byMs
      if (seen.stateUntil !== null) seen.stateUntil += byMs
    }
  }

  /** The keys (MAC addresses, IDs) of the hub's own printers of this protocol. */
  serve(keys: Iterable<string>): void {
    this.adopted = new Set(keys)
  }

  isAdopted(key: string): boolean {
    return this.adopted.has(key)
  }

  get(key: string): (Heard & Extra) | undefined {
    return this.printers.get(key)
  }

  /** When the printer was last heard from here, and how often it polls; undefined when it never was. */
  lastHeard(key: string): { at: number; intervalMs: number } | undefined {
    const seen = this.printers.get(key)
    return seen && { at: seen.lastPollAt, intervalMs: this.intervalOf(seen) }
  }

  all(): (Heard & Extra)[] {
    return [...this.printers.values()].sort((a, b) => b.lastPollAt - a.lastPollAt)
  }

  /** A printer heard from (`poll`: a poll for jobs, which times its interval; else another message of it). */
  heard(key: string, address: string, poll: boolean): Heard & Extra {
    const now = this.now()
    let seen = this.printers.get(key)
    if (!seen) {
      if (!this.adopted.has(key)) this.makeRoom()
      seen = {
        key,
        address: address.slice(0, 64),
        firstSeenAt: now,
        lastPollAt: now,
        polledAt: poll ? now : null,
        state: 'online',
        fault: null,
        stateUntil: null,
        busy: false,
        pollIntervalMs: null,
        measuredMs: null,
        ...this.extra(),
      }
      this.printers.set(key, seen)
      this.tell(seen)
      return seen
    }
    if (poll) {
      // Only the gap between two polls tells the interval; a shorter one is believed only slowly
      // (an early poll is not a new setting), a longer one at once.
      if (this.options.measureInterval && seen.polledAt !== null && now > seen.polledAt) {
        const gap = now - seen.polledAt
        seen.measuredMs = seen.measuredMs === null ? gap : Math.max(gap, Math.round(seen.measuredMs * 0.8))
      }
      seen.polledAt = now
    }
    const wasSilent = this.silent(seen)
    seen.address = address.slice(0, 64)
    seen.lastPollAt = now
    if (wasSilent) this.tell(seen)
    return seen
  }

  /**
   * What the printer says of its condition, applied before whatever it said it in is answered. A
   * fault withdraws a job not yet fetched at once (the poll that says it is told of nothing), and
   * fails one fetched (the printer takes it again, as a new attempt, once it can).
   */
  condition(seen: Heard, state: PrinterState, fault: Failure | null, holdsMs?: number): void {
    const before = this.state(seen.key)
    seen.state = state
    seen.fault = fault
    seen.stateUntil = holdsMs === undefined ? null : this.now() + holdsMs
    const offer = seen.offer
    if (offer && fault) {
      if (offer.stage === 'sent') settle(seen, offer, refused(fault))
      else if (offer.stage === 'offered') {
        offer.fetched.resolve(refused(fault))
        withdraw(seen, offer)
      }
    }
    if (this.state(seen.key) !== before) this.tell(seen)
  }

  /**
   * Tells of a change of an adopted printer (one that is not the hub's changes nothing the hub shows of its printers).
   */
  private tell(seen: Heard): void {
    if (this.adopted.has(seen.key)) this.options.changed?.(seen.key)
  }

  /**
   * The job a poll from `address` may announce: offered, not yet fetched, to an adopted printer that is not busy and
   * can print. From then on only that address may fetch it.
   */
  announce(seen: Heard, address: string): Offer | undefined {
    const offer = seen.offer
    if (offer?.stage !== 'offered' || seen.busy || (seen.fault && !this.expired(seen)) || !this.adopted.has(seen.key))
      return undefined
    offer.to = address
    return offer
  }

  /**
   * A fetch from `address` of the job offered with `token` (none: the one offered, for printers
   * from before tokens): its bytes once the agent hands them over, or why not. Only the address
   * the job was announced to may fetch it.
   */
  async take(
    key: string,
    token: string | undefined,
    address: string,
  ): Promise<{ offer: Offer; bytes: Uint8Array } | 'none' | 'withdrawn'> {
    const seen = this.printers.get(key)
    const offer = seen?.offer
    if (!seen || !offer || offer.to !== address || (token !== undefined && token !== offer.token)) return 'none'
    return fetchOffer(seen, offer)
  }

  /**
   * The printer's word, from `address`, on the job it fetched with `token` (none: the one it fetched); false when it
   * fetched none such.
   */
  finished(key: string, token: string | undefined, address: string, outcome: PrintedOutcome): boolean {
    const seen = this.printers.get(key)
    const offer = seen?.offer
    if (
      !seen ||
      !offer ||
      offer.stage !== 'sent' ||
      offer.to !== address ||
      (token !== undefined && token !== offer.token)
    )
      return false
    settle(seen, offer, outcome)
    return true
  }

  /** A printer as the dashboard and the admin API show it; `own` is what its protocol says of it. */
  view(
    seen: Heard,
    kind: PollingPrinterView['kind'],
    own: Pick<PollingPrinterView, 'status' | 'model' | 'pageInfo'>,
  ): PollingPrinterView {
    return {
      kind,
      key: seen.key,
      address: seen.address,
      adopted: this.adopted.has(seen.key),
      firstSeenAt: new Date(seen.firstSeenAt).toISOString(),
      lastPollAt: new Date(seen.lastPollAt).toISOString(),
      state: this.state(seen.key),
      ...own,
      pollIntervalMs: this.intervalOf(seen),
    }
  }

  /** The printer's state as its polls say it; offline when they stopped. */
  state(key: string): PrinterState {
    const seen = this.printers.get(key)
    if (!seen || this.silent(seen)) return 'offline'
    return this.expired(seen) ? 'unknown' : seen.state
  }

  intervalOf(seen: Heard): number {
    return (
      seen.pollIntervalMs ??
      (seen.measuredMs === null ? this.options.defaultIntervalMs : Math.max(seen.measuredMs, MIN_INTERVAL_MS))
    )
  }

  /**
   * Offers a job to the printer and waits until it fetches it: its bytes are then given with
   * `send`. Refused at once when the printer is silent or cannot print; when it does not fetch
   * the job within its missed-polls window, nothing was sent and the job can be tried again.
   */
  async ready(
    key: string,
    signal: AbortSignal,
    model: PrinterModel,
    check?: (bytes: Uint8Array) => Failure | null,
  ): Promise<{ ok: true; printer: ReadyPrinter } | Stopped> {
    if (signal.aborted || this.stopped) return CANCELLED
    const seen = this.printers.get(key)
    const { protocol, path } = this.options
    if (!seen || !this.adopted.has(key))
      return refused(
        failure(
          'printer.offline',
          `The printer has not polled the hub since it started: set its ${protocol} ` +
            `server URL to this hub's ${path} (see docs/cloud-printers.md).`,
        ),
      )
    if (this.silent(seen))
      return refused(
        failure(
          'printer.offline',
          `The printer has not polled the hub for ` +
            `${Math.round((this.now() - seen.lastPollAt) / 1000)} s (it polls every ` +
            `${Math.round(this.intervalOf(seen) / 1000)} s): is it on and on ` +
            `the network?`,
        ),
      )
    if (seen.fault && !this.expired(seen)) return refused(seen.fault)
    if (seen.offer) return refused(failure('printer.timeout', 'The printer has another job outstanding.'))
    const offer = newOffer(model)
    seen.offer = offer
    const waitMs = this.intervalOf(seen) * MISSED_POLLS
    const cancel = () => offer.fetched.resolve(CANCELLED)
    signal.addEventListener('abort', cancel, { once: true })
    const outcome = await within(
      offer.fetched.promise,
      waitMs,
      refused(
        failure(
          'printer.timeout',
          `The printer did not fetch the job within ${Math.round(waitMs / 1000)} s; nothing was sent.`,
        ),
      ),
    )
    signal.removeEventListener('abort', cancel)
    if (outcome !== 'fetched') {
      withdraw(seen, offer)
      return outcome
    }
    return { ok: true, printer: fetchedPrinter(seen, offer, this.options.confirmTimeoutMs, check) }
  }

  /** Lets every job go (the hub is stopping): fetches get nothing, nothing waits, no job is offered any more. */
  stop(): void {
    this.stopped = true
    for (const seen of this.printers.values()) if (seen.offer) withdraw(seen, seen.offer)
  }

  /** A state learned from a job's outcome, not from a poll, no longer known: the next job finds out. */
  private expired(seen: Heard): boolean {
    return seen.stateUntil !== null && this.now() > seen.stateUntil
  }

  private silent(seen: Heard): boolean {
    return this.now() - seen.lastPollAt > this.intervalOf(seen) * MISSED_POLLS
  }

  /** Lets the printer heard from longest ago go, among those not the hub's, when MAX_WAITING are kept. */
  private makeRoom(): void {
    const waiting = [...this.printers.values()].filter((seen) => !this.adopted.has(seen.key))
    if (waiting.length < MAX_WAITING) return
    const oldest = waiting.reduce((a, b) => (a.lastPollAt <= b.lastPollAt ? a : b))
    this.printers.delete(oldest.key)
  }
}
