// The availability of the agent's printers, for its inventory: asked of every idle network,
// serial or USB printer whose model answers real-time status, and learned from every job's outcome. A change
// is reported at once, so the hub holds the jobs of a printer out of paper instead of spending
// attempts on it, and sends them when it is back.
import type { FailureCode } from '../protocol/failures.ts'
import { availabilityOf, type PrinterAvailability, type PrinterState } from '../domain/printer-state.ts'
import { readStatus, type Transports } from '../transports/submit.ts'
import type { ServedPrinter } from './catalog.ts'

/** Failures of a job that say the printer cannot print now, and the state they put it in. */
const FAILURE_STATES: Partial<Record<FailureCode, PrinterState>> = {
  'printer.paper_out': 'paper_out',
  'printer.cover_open': 'cover_open',
  'printer.error': 'error',
  'printer.offline': 'offline',
  'printer.unreachable': 'offline',
}

export class StatusWatch {
  private readonly known = new Map<string, PrinterState>()
  /** The asks on their way, by printer: each settles once its connection is closed. */
  private readonly asking = new Map<string, Promise<void>>()
  private timer: Timer | undefined
  private round: (which?: (printer: ServedPrinter) => boolean) => void = () => {}
  private stopped = false

  constructor(
    private readonly intervalMs: number,
    private readonly transports: Transports,
    /** Called when a printer's state changed. */
    private readonly changed: (printerId: string, state: PrinterState) => void,
  ) {}

  /** The availability last learned of a printer; undefined when nothing was. */
  of(printerId: string): PrinterAvailability | undefined {
    const state = this.known.get(printerId)
    return state && availabilityOf(state)
  }

  /** The state last learned of a printer; undefined when nothing was. */
  stateOf(printerId: string): PrinterState | undefined {
    return this.known.get(printerId)
  }

  /** Starts asking, every interval, the printers `printers()` lists that `busy` does not say are printing. */
  start(printers: () => Iterable<ServedPrinter>, busy: (printerId: string) => boolean): void {
    this.round = (which = () => true) => {
      for (const printer of printers())
        if (which(printer) && !busy(printer.id) && !this.asking.has(printer.id)) this.ask(printer)
    }
    this.round()
    this.timer = setInterval(() => this.round(), this.intervalMs)
  }

  /** Asks the idle printers `which` picks now, not at the next interval (a printer that polls said something new). */
  askNow(which: (printer: ServedPrinter) => boolean): void {
    if (!this.stopped) this.round(which)
  }

  /** No more asking, and no more telling: an answer still on its way after this is dropped. */
  stop(): void {
    this.stopped = true
    clearInterval(this.timer)
  }

  /** A job's outcome on the printer: it printed (online), or a failure that says it cannot print. */
  learn(printerId: string, failureCode: FailureCode | undefined): void {
    // A printed job says it can print, not that its paper is no longer low.
    if (failureCode === undefined)
      this.set(printerId, this.known.get(printerId) === 'paper_low' ? 'paper_low' : 'online')
    else if (FAILURE_STATES[failureCode]) this.set(printerId, FAILURE_STATES[failureCode])
  }

  /**
   * Settles once the watch's ask of the printer, if one is on its way, is over and its connection
   * closed; undefined when none is. A job waits for it before reaching the printer: some printers
   * take one connection at a time, and a job's connection beside the watch's could stall or be
   * refused.
   */
  asked(printerId: string): Promise<void> | undefined {
    return this.asking.get(printerId)
  }

  private ask(printer: ServedPrinter): void {
    const parsed = printer.parsed
    const asked = parsed.ok ? readStatus(parsed.connection, this.transports, printer) : undefined
    if (!asked) return
    const done = asked.then(
      (state) => this.set(printer.id, state),
      // An ask that fails has told nothing; the next round asks again.
      () => {},
    )
    this.asking.set(printer.id, done)
    void done.finally(() => this.asking.delete(printer.id))
  }

  private set(printerId: string, state: PrinterState): void {
    if (this.stopped || this.known.get(printerId) === state) return
    this.known.set(printerId, state)
    this.changed(printerId, state)
  }
}
