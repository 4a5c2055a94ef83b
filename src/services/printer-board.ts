// Every printer's state as the dashboard shows it, and its history: what the printer's own status
// says (the hub's printers, asked by the built-in agent), else what its agent last reported; a
// printer whose agent is not connected is offline. A project's printers as applications see them,
// and the record of their changes, are units of work on either store (printer-states.ts); the
// board runs them on one hub with what its gateway and its built-in agent say now.
import type { PrinterRecord } from '../store/printers.ts'
import type { Store } from '../store/store.ts'
import { needsAttention, type PrinterState, projectPrinterState } from '../domain/printer-state.ts'
import type { ProjectPrinter } from '../protocol/project-printer.ts'
import { DB } from '../storage/repositories.ts'
import { runNow } from '../storage/unit.ts'
import {
  type Liveness,
  type PrinterChange,
  printerNow,
  projectPrintersUnit,
  recordAgentUnit,
} from './printer-states.ts'
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
    return runNow(projectPrintersUnit(DB, projectId, now, this.live), this.store)
  }

  /** Who is connected, and what the hub's printers said, as this hub knows it now. */
  private readonly live: Liveness = {
    connected: (agentId) => this.sources.isConnected(agentId),
    learned: (agentPrinterId) => this.sources.builtinState(agentPrinterId),
    recorded: false,
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

  /** Writes the current state of an agent's printers into their history (only what changed), each change told. */
  recordAgent(agentId: string): void {
    const now = this.sources.now?.() ?? Date.now()
    for (const change of runNow(recordAgentUnit(DB, agentId, now, this.live), this.store))
      logPrinterChange(this.log, agentId, change)
  }

  private stateOf(agentId: string, agentPrinterId: string, builtinId: string | undefined): PrinterState {
    const context = { record: undefined, builtin: agentId === builtinId, live: this.live }
    return runNow(printerNow(DB, agentId, agentPrinterId, context), this.store).state
  }
}

/** A fault (paper low or out, cover open, in error, offline) is a warning; a recovery, or news, is not. */
export function logPrinterChange(log: Logger | undefined, agentId: string, change: PrinterChange): void {
  if (!log) return
  const { agentPrinterId, record, from, to } = change
  const fields = {
    printer: record?.id,
    name: record?.remoteId,
    agent: agentId,
    agentPrinter: record?.id === agentPrinterId ? undefined : agentPrinterId,
  }
  // One budget per printer: one that flaps cannot fill the log.
  log[needsAttention(to) ? 'warn' : 'info'](`${from ?? 'new'} -> ${to}`, fields, {
    limit: `printer ${agentId} ${agentPrinterId}`,
  })
}
