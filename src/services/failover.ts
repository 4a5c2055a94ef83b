// Destinations in failover mode: a job posted to one goes to its first printer that can print; a
// printer of it that cannot print (offline, out of paper, cover open, in error) for longer than
// the threshold has its waiting jobs moved to the next one that can, in the destination's order,
// each ticket marked ("Printed at bar: kitchen is out of paper") and its timeline noting it. Only
// waiting (PENDING) jobs move: one dispatched or at its printer may print there, so it stays.
// Units of work on either store, with who is connected and what printers said as the reader knows
// it (printer-states.ts): one hub's gateway, or a cluster's leases, where the maintenance node
// watches for the whole cluster.
import { projectPrinterState } from '../domain/printer-state.ts'
import type { Destination } from '../domain/records.ts'
import type { Logger } from '../platform/log.ts'
import type { ProjectPrinterState } from '../protocol/project-printer.ts'
import type { Db, UnitRunner, WriteOptions } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import { type Liveness, printerNow } from './printer-states.ts'

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

/** A move's unit takes its project's row (events in commit order), as a submission's does. */
const LOCKED_ROWS: WriteOptions = { lockedRows: true }

/** The condition now of a destination's printers (record IDs), and since when; a removed printer has none. */
export type Conditions = Map<string, { state: ProjectPrinterState; since: string | null }>

/**
 * The condition now of these printers (record IDs): their state as applications see it (never `busy`: that is not
 * a condition) and since when.
 */
export function* conditionsUnit(
  db: Db,
  projectId: string,
  printerIds: readonly string[],
  live: Liveness,
): Unit<Conditions> {
  const builtinId = (yield* db.agents.builtin())?.id
  const found: Conditions = new Map()
  for (const id of printerIds) {
    // A removed printer has no condition: it is not the project's any more.
    const record = yield* db.printers.resolve(projectId, id)
    if (!record) continue
    const builtin = record.agentId === builtinId
    const now = yield* printerNow(db, record.agentId, record.agentPrinterId, { record, builtin, live })
    found.set(id, { state: projectPrinterState(now.state, false), since: now.since ?? null })
  }
  return found
}

/** The printer a new job of the destination goes to: the first that can print, else the first. */
export function firstThatCanPrint(
  destination: Destination,
  conditions: Conditions,
  except?: string,
): string | undefined {
  return destination.printers.find((id) => id !== except && CAN_PRINT.includes(conditions.get(id)?.state ?? 'unknown'))
}

/** The printer a job posted to the destination goes to now: the first that can print, else the first there is. */
export function* printerForUnit(db: Db, destination: Destination, live: Liveness): Unit<string> {
  const conditions = yield* conditionsUnit(db, destination.projectId, destination.printers, live)
  // None can print: the first the project still has (a removed one takes no job).
  return (
    firstThatCanPrint(destination, conditions) ??
    destination.printers.find((id) => conditions.has(id)) ??
    destination.printers[0]!
  )
}

/** Waiting jobs to move from a printer of a destination to another, and why. */
interface Move {
  destination: Destination
  from: string
  to: string
  /** The printers' names. */
  names: { from: string; to: string }
  /** Why, naming the printer it moves from. */
  why: string
}

/** The moves due now: from each printer that could not print for longer than `afterMs`, removed, or taken out. */
function* movesDue(db: Db, now: number, afterMs: number, live: Liveness): Unit<Move[]> {
  const moves: Move[] = []
  const names = new Map<string, string>()
  const name = function* (id: string): Unit<string> {
    if (!names.has(id)) names.set(id, (yield* db.printers.get(id))?.remoteId ?? id)
    return names.get(id)!
  }
  for (const destination of yield* db.destinations.ofMode('failover')) {
    const conditions = yield* conditionsUnit(db, destination.projectId, destination.printers, live)
    const moveOn = function* (from: string, why: string): Unit<void> {
      const to = firstThatCanPrint(destination, conditions, from)
      if (to) moves.push({ destination, from, to, names: { from: yield* name(from), to: yield* name(to) }, why })
    }
    for (const from of destination.printers) {
      const condition = conditions.get(from)
      // A printer removed from the project: what waits at it for the destination moves on at once.
      if (!condition) yield* moveOn(from, 'was removed')
      if (!condition || !CANNOT_PRINT.includes(condition.state)) continue
      if (condition.since !== null && Date.parse(condition.since) > now - afterMs) continue
      yield* moveOn(from, WHY[condition.state]!)
    }
    // A printer taken out of the destination never strands the jobs waiting at it for the destination.
    for (const from of yield* db.destinations.waitingAt(destination.id))
      if (!destination.printers.includes(from))
        yield* moveOn(from, `is no longer one of ${destination.name}'s printers`)
  }
  return moves
}

/** Moves what waits at `from` for the destination to `to`, told to the project's applications in the same change. */
function* moveUnit(db: Db, { destination, from, to, names, why }: Move): Unit<number> {
  const note = `Printed at ${names.to}: ${names.from} ${why}`
  const ids = yield* db.destinations.moveWaiting(destination.id, from, to, note)
  for (const id of ids)
    yield* db.events.append(destination.projectId, 'job.moved', {
      previousPrinterId: from,
      note,
      job: (yield* db.jobs.get(id))!,
    })
  return ids.length
}

export class Failover {
  constructor(
    private readonly units: UnitRunner,
    /** Who is connected now and what printers said (one hub's, or a cluster's). */
    private readonly liveness: () => Liveness | Promise<Liveness>,
    /** Told when jobs arrived at a printer (the dispatcher looks at its queue). */
    private readonly jobsArrived: (printerId: string) => void,
    private readonly options: { afterMs: number; now: () => number; log?: Logger },
  ) {}

  /**
   * Moves the waiting jobs of every printer that has not been able to print for longer than the threshold (the hub's
   * workers look every second: workers/hub-workers.ts). Each move is one change: one that fails moved nothing.
   */
  async watch(): Promise<void> {
    const live = await this.liveness()
    const moves = await this.units.read((db) => movesDue(db, this.options.now(), this.options.afterMs, live))
    for (const move of moves) {
      const moved = await this.units.write((db) => moveUnit(db, move), LOCKED_ROWS)
      if (moved === 0) continue
      const { destination, from, to, names, why } = move
      this.options.log?.info(
        `moved ${moved} waiting jobs of destination ${destination.name} from ${names.from} to ${names.to}: ` +
          `${names.from} ${why}`,
        { destination: destination.id, from, to, jobs: moved },
      )
      this.jobsArrived(to)
    }
  }
}
