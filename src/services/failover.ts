// Destinations in failover mode: a job posted to one goes to its first printer that can print; a
// printer of it that cannot print (offline, out of paper, cover open, in error) for longer than
// the threshold has its waiting jobs moved to the next one that can, in the destination's order,
// each ticket marked ("Printed at bar: kitchen is out of paper") and its timeline noting it. Only
// waiting (PENDING) jobs move: one dispatched or at its printer may print there, so it stays.
import type { Logger } from '../platform/log.ts'
import type { ProjectPrinterState } from '../protocol/project-printer.ts'
import type { Destination } from '../store/destinations.ts'
import type { Store } from '../store/store.ts'
import type { PrinterBoard } from './printer-board.ts'

/** States in which a printer cannot print: its waiting jobs move on after the threshold. */
const CANNOT_PRINT: readonly ProjectPrinterState[] = ['offline', 'paper_out', 'cover_open', 'error']
/** States in which a printer takes jobs. */
const CAN_PRINT: readonly ProjectPrinterState[] = ['ready', 'busy', 'paper_near_end']

const WHY: Partial<Record<ProjectPrinterState, string>> = {
  offline: 'is offline',
  paper_out: 'is out of paper',
  cover_open: 'has its cover open',
  error: 'is in error',
}

type Conditions = ReturnType<PrinterBoard['conditions']>

/** The printer a new job of the destination goes to: the first that can print, else the first. */
export function firstThatCanPrint(
  destination: Destination,
  conditions: Conditions,
  except?: string,
): string | undefined {
  return destination.printers.find((id) => id !== except && CAN_PRINT.includes(conditions.get(id)?.state ?? 'unknown'))
}

export class Failover {
  constructor(
    private readonly store: Store,
    private readonly board: Pick<PrinterBoard, 'conditions'>,
    /** Told when jobs arrived at a printer (the dispatcher looks at its queue). */
    private readonly jobsArrived: (printerId: string) => void,
    private readonly options: { afterMs: number; now: () => number; log?: Logger },
  ) {}

  /** The printer a job posted to the destination goes to now: the first that can print, else the first there is. */
  printerFor(destination: Destination): string {
    const conditions = this.board.conditions(destination.projectId, destination.printers)
    // None can print: the first the project still has (a removed one takes no job).
    return (
      firstThatCanPrint(destination, conditions) ??
      destination.printers.find((id) => conditions.has(id)) ??
      destination.printers[0]!
    )
  }

  /**
   * Moves the waiting jobs of every printer that has not been able to print for longer than the threshold (the hub's
   * workers look every second: workers/hub-workers.ts). Each move is one change: one that fails moved nothing.
   */
  watch(): void {
    const now = this.options.now()
    const names = (id: string) => this.printerName(id)
    for (const destination of this.store.destinations.ofMode('failover')) {
      const conditions = this.board.conditions(destination.projectId, destination.printers)
      for (const from of destination.printers) {
        const condition = conditions.get(from)
        // A printer removed from the project: what waits at it for the destination moves on at once.
        if (!condition)
          this.move(destination, from, firstThatCanPrint(destination, conditions, from), `${names(from)} was removed`)
        if (!condition || !CANNOT_PRINT.includes(condition.state)) continue
        if (condition.since !== null && Date.parse(condition.since) > now - this.options.afterMs) continue
        this.move(
          destination,
          from,
          firstThatCanPrint(destination, conditions, from),
          `${names(from)} ${WHY[condition.state]}`,
        )
      }
      // A printer taken out of the destination never strands the jobs waiting at it for the destination.
      for (const from of this.store.destinations.waitingAt(destination.id)) {
        if (!destination.printers.includes(from))
          this.move(
            destination,
            from,
            firstThatCanPrint(destination, conditions, from),
            `${names(from)} is no longer one of ${destination.name}'s printers`,
          )
      }
    }
  }

  private printerName(id: string): string {
    return this.store.printers.get(id)?.remoteId ?? id
  }

  private move(destination: Destination, from: string, to: string | undefined, why: string): void {
    if (!to) return
    const name = (id: string) => this.printerName(id)
    const note = `Printed at ${name(to)}: ${why}`
    const moved = this.store.commits.write(() => {
      const ids = this.store.destinations.moveWaiting(destination.id, from, to, note)
      // Applications following the project hear of it in the same change: the job's printer is another now.
      for (const id of ids)
        this.store.events.append(destination.projectId, 'job.moved', {
          previousPrinterId: from,
          note,
          job: this.store.jobs.get(id)!,
        })
      return ids
    })
    if (moved.length === 0) return
    this.options.log?.info(
      `moved ${moved.length} waiting jobs of destination ${destination.name} from ${name(from)} to ${name(to)}: ${why}`,
      { destination: destination.id, from, to, jobs: moved.length },
    )
    this.jobsArrived(to)
  }
}
