// Every printer's state as the dashboard shows it, and its history: what the printer's own status
// says (the hub's printers, asked by the built-in agent), else what its agent last reported; a
// printer whose agent is not connected is offline. A project's printers as applications see them
// are read by one unit of work on either store (projectPrintersUnit): on one hub, with what its
// agents say now; on a cluster's node, with the leases and the states the nodes recorded.
import type { PrinterRecord } from '../store/printers.ts'
import type { Store } from '../store/store.ts'
import { needsAttention, type PrinterState, projectPrinterState } from '../domain/printer-state.ts'
import type { ProjectPrinter } from '../protocol/project-printer.ts'
import { iso } from '../storage/time.ts'
import { DB, type Db } from '../storage/repositories.ts'
import { runNow, type Unit } from '../storage/unit.ts'
import type { Logger } from '../platform/log.ts'

export interface PrinterView extends PrinterRecord {
  state: PrinterState
  agentName: string
  agentOnline: boolean
  /** Driven by the hub itself (the built-in agent), not a paired agent. */
  builtin: boolean
  /** Jobs waiting for the printer: not yet with its agent. */
  queue: number
}

export interface BoardSources {
  isConnected(agentId: string): boolean
  /** What the built-in agent learned from the printer itself. */
  builtinState(agentPrinterId: string): PrinterState | undefined
  /** The hub's clock (default: the system's). */
  now?: () => number
}

/**
 * Whether a printer's driver is connected, and what the printer said of itself, as the store's reader knows it: one
 * hub from its gateway and its built-in agent; a cluster's node from the leases (an agent's, or a built-in printer's)
 * and the states the nodes recorded (then `learned` is not given).
 */
export interface Liveness {
  connected(record: PrinterRecord, builtin: boolean): boolean
  learned?(agentPrinterId: string): PrinterState | undefined
}

/** A printer's state now: offline when its driver is not connected, else what it said of itself, else its agent. */
function stateNow(
  connected: boolean,
  learned: PrinterState | undefined,
  reported: () => PrinterState | undefined,
): PrinterState {
  if (!connected) return 'offline'
  return learned ?? reported() ?? 'unknown'
}

/** A project's printers as applications see them, with their state now (the public API's printers). */
export function* projectPrintersUnit(db: Db, projectId: string, now: number, live: Liveness): Unit<ProjectPrinter[]> {
  const queues = yield* db.jobs.queueLengths()
  const held = yield* db.jobs.withAgentCounts()
  const builtinId = (yield* db.agents.builtin())?.id
  const agents = new Map((yield* db.agents.list()).map((agent) => [agent.id, agent]))
  const printers: ProjectPrinter[] = []
  for (const record of yield* db.printers.list(projectId)) {
    const builtin = record.agentId === builtinId
    const connected = live.connected(record, builtin)
    const [latest] = yield* db.printerStates.history(record.agentId, record.agentPrinterId, 1)
    const learned = builtin ? (live.learned ? live.learned(record.agentPrinterId) : latest?.state) : undefined
    let reported: PrinterState | undefined
    if (connected && learned === undefined)
      reported = (yield* db.agents.printer(record.agentId, record.agentPrinterId))?.availability
    printers.push({
      id: record.id,
      name: record.remoteId,
      model: record.profile,
      state: projectPrinterState(
        stateNow(connected, learned, () => reported),
        (held.get(record.id) ?? 0) > 0,
      ),
      stateSince: latest?.at ?? null,
      lastSeenAt: connected ? iso(now) : (agents.get(record.agentId)?.lastSeenAt ?? null),
      queueDepth: queues.get(record.id) ?? 0,
      agentId: record.agentId,
    })
  }
  return printers
}

/** A printer of an agent, and its record when it is a project's. */
interface AgentPrinter {
  agentId: string
  agentPrinterId: string
  record: PrinterRecord | undefined
}

export class PrinterBoard {
  constructor(
    private readonly store: Store,
    private readonly sources: BoardSources,
    /** Where printers' faults and recoveries are told (component printer). */
    private readonly log?: Logger,
  ) {}

  views(): PrinterView[] {
    const queues = this.store.jobs.queueLengths()
    const builtinId = this.store.agents.builtin()?.id
    const agents = new Map(this.store.agents.list().map((agent) => [agent.id, agent]))
    return this.store.printers.listAll().map((record) => ({
      ...record,
      state: this.stateOf(record.agentId, record.agentPrinterId, builtinId),
      agentName: agents.get(record.agentId)?.name ?? record.agentId,
      agentOnline: this.sources.isConnected(record.agentId),
      builtin: record.agentId === builtinId,
      queue: queues.get(record.id) ?? 0,
    }))
  }

  /** A project's printers as applications see them, with their state now. */
  projectPrinters(projectId: string, now: number): ProjectPrinter[] {
    const live: Liveness = {
      connected: (record) => this.sources.isConnected(record.agentId),
      learned: (agentPrinterId) => this.sources.builtinState(agentPrinterId),
    }
    return runNow(projectPrintersUnit(DB, projectId, now, live), this.store)
  }

  /**
   * The condition now of these printers (record IDs): their state as applications see it (never
   * `busy`: that is not a condition) and since when; cheaper than projectPrinters, for the failover
   * watch.
   */
  conditions(
    projectId: string,
    printerIds: readonly string[],
  ): Map<string, { state: ProjectPrinter['state']; since: string | null }> {
    const builtinId = this.store.agents.builtin()?.id
    const found = new Map<string, { state: ProjectPrinter['state']; since: string | null }>()
    for (const id of printerIds) {
      // A removed printer has no condition: it is not the project's any more.
      const record = this.store.printers.resolve(projectId, id)
      if (!record) continue
      const state = projectPrinterState(this.stateOf(record.agentId, record.agentPrinterId, builtinId), false)
      found.set(id, { state, since: this.store.printerStates.since(record.agentId, record.agentPrinterId) ?? null })
    }
    return found
  }

  /** Writes the current state of an agent's printers into their history (only what changed). */
  recordAgent(agentId: string): void {
    const builtinId = this.store.agents.builtin()?.id
    const records = new Map(this.store.printers.ofAgent(agentId).map((p) => [p.agentPrinterId, p]))
    const printerIds = new Set([
      ...records.keys(),
      ...this.store.agents
        .printers()
        .filter((p) => p.agentId === agentId)
        .map((p) => p.printerId),
    ])
    for (const printerId of printerIds) {
      const state = this.stateOf(agentId, printerId, builtinId)
      const change = this.store.printerStates.record(agentId, printerId, state)
      if (!change) continue
      this.logChange({ agentId, agentPrinterId: printerId, record: records.get(printerId) }, change.from, state)
      this.tellProjects(agentId, printerId, change.from, state)
    }
  }

  /** The event of a printer's change, in the log of each project with a record of it. */
  private tellProjects(
    agentId: string,
    agentPrinterId: string,
    from: PrinterState | undefined,
    to: PrinterState,
  ): void {
    const state = projectPrinterState(to, false)
    const previousState = from === undefined ? null : projectPrinterState(from, false)
    if (state === previousState) return
    for (const record of this.store.printers.ofAgent(agentId, agentPrinterId)) {
      const printer = this.projectPrinters(record.projectId, this.sources.now?.() ?? Date.now()).find(
        (p) => p.id === record.id,
      )
      // The event is of the printer's condition: its projection says the same state (not busy).
      if (printer)
        this.store.events.append(record.projectId, 'printer.state_changed', {
          state,
          previousState,
          printer: { ...printer, state },
        })
    }
  }

  /** A fault (paper low or out, cover open, in error, offline) is a warning; a recovery, or news, is not. */
  private logChange(
    { agentId, agentPrinterId, record }: AgentPrinter,
    from: PrinterState | undefined,
    to: PrinterState,
  ): void {
    if (!this.log) return
    const fault = needsAttention(to)
    const fields = {
      printer: record?.id,
      name: record?.remoteId,
      agent: agentId,
      agentPrinter: record?.id === agentPrinterId ? undefined : agentPrinterId,
    }
    // One budget per printer: one that flaps cannot fill the log.
    this.log[fault ? 'warn' : 'info'](`${from ?? 'new'} -> ${to}`, fields, {
      limit: `printer ${agentId} ${agentPrinterId}`,
    })
  }

  private stateOf(agentId: string, agentPrinterId: string, builtinId: string | undefined): PrinterState {
    const learned = agentId === builtinId ? this.sources.builtinState(agentPrinterId) : undefined
    return stateNow(
      this.sources.isConnected(agentId),
      learned,
      () => this.store.agents.printer(agentId, agentPrinterId)?.availability,
    )
  }
}
