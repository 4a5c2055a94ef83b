// The availability of the agent's printers, for its inventory: asked of every idle network,
// serial or USB printer whose model answers real-time status, and learned from every job's outcome. A change
// is reported at once, so the hub holds the jobs of a printer out of paper instead of spending
// attempts on it, and sends them when it is back.
import { parseConnectionUri } from '../transports/connection-uri.ts'
import type { PrinterAvailability } from '../transports/submission.ts'
import { readStatus, type Transports } from '../transports/submit.ts'
import type { CatalogPrinter } from './catalog.ts'

/** How often an idle printer is asked, by default (the hub's is PRINTHUB_STATUS_POLL_MS). */
export const STATUS_POLL_MS = 2_000

/** Failures of a job that say the printer cannot print now. */
const OFFLINE_CODES = new Set(['paper_out', 'cover_open', 'printer_error', 'printer_offline', 'printer_unreachable'])

export class StatusWatch {
  private readonly known = new Map<string, PrinterAvailability>()
  private readonly asking = new Set<string>()
  private timer: Timer | undefined

  constructor(
    private readonly intervalMs: number,
    private readonly transports: Transports,
    /** Called when a printer's availability changed. */
    private readonly changed: () => void,
  ) {}

  /** What was last learned of a printer; undefined when nothing was. */
  of(printerId: string): PrinterAvailability | undefined {
    return this.known.get(printerId)
  }

  /** Starts asking, every interval, the printers `printers()` lists that `busy` does not say are printing. */
  start(printers: () => Iterable<CatalogPrinter>, busy: (printerId: string) => boolean): void {
    const round = () => {
      for (const printer of printers()) if (!busy(printer.id) && !this.asking.has(printer.id)) void this.ask(printer)
    }
    round()
    this.timer = setInterval(round, this.intervalMs)
  }

  stop(): void {
    clearInterval(this.timer)
  }

  /** A job's outcome on the printer: it printed (online), or a failure that says it cannot print. */
  learn(printerId: string, failureCode: string | undefined): void {
    if (failureCode === undefined) this.set(printerId, 'online')
    else if (OFFLINE_CODES.has(failureCode)) this.set(printerId, 'offline')
  }

  private async ask(printer: CatalogPrinter): Promise<void> {
    const parsed = parseConnectionUri(printer.connection)
    const asked = parsed.ok ? readStatus(parsed.connection, this.transports, printer) : undefined
    if (!asked) return
    this.asking.add(printer.id)
    try {
      this.set(printer.id, await asked)
    } finally {
      this.asking.delete(printer.id)
    }
  }

  private set(printerId: string, availability: PrinterAvailability): void {
    if (this.known.get(printerId) === availability) return
    this.known.set(printerId, availability)
    this.changed()
  }
}
