// Every printer's state as the dashboard shows it, and its history: what the printer's own status
// says (the hub's printers, asked by the built-in agent), else what its agent last reported; a
// printer whose agent is not connected is offline.
import type { PrinterRecord } from '../store/printers.ts'
import type { Store } from '../store/store.ts'
import { needsAttention, type PrinterState, projectPrinterState } from '../domain/printer-state.ts'
import type { ProjectPrinter } from '../protocol/project-printer.ts'
import { iso } from '../storage/time.ts'
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
    const queues = this.store.jobs.queueLengths()
    const held = this.store.jobs.withAgentCounts()
    const builtinId = this.store.agents.builtin()?.id
    const agents = new Map(this.store.agents.list().map((agent) => [agent.id, agent]))
    return this.store.printers.list(projectId).map((record) => {
      const connected = this.sources.isConnected(record.agentId)
      return {
        id: record.id,
        name: record.remoteId,
        model: record.profile,
        state: projectPrinterState(
          this.stateOf(record.agentId, record.agentPrinterId, builtinId),
          (held.get(record.id) ?? 0) > 0,
        ),
        stateSince: this.store.printerStates.since(record.agentId, record.agentPrinterId) ?? null,
        lastSeenAt: connected ? iso(now) : (agents.get(record.agentId)?.lastSeenAt ?? null),
        queueDepth: queues.get(record.id) ?? 0,
        agentId: record.agentId,
      }
    })
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
    if (!this.sources.isConnected(agentId)) return 'offline'
    const learned = agentId === builtinId ? this.sources.builtinState(agentPrinterId) : undefined
    return learned ?? this.store.agents.printer(agentId, agentPrinterId)?.availability ?? 'unknown'
  }
}
