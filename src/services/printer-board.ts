// Every printer's state as the dashboard shows it, and its history: what the printer's own status
// says (the hub's printers, asked by the built-in agent), else what its agent last reported; a
// printer whose agent is not connected is offline.
import type { PrinterRecord } from '../store/printers.ts'
import type { Store } from '../store/store.ts'
import type { PrinterState } from '../domain/printer-state.ts'

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
}

export class PrinterBoard {
  constructor(
    private readonly store: Store,
    private readonly sources: BoardSources,
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

  /** Writes the current state of an agent's printers into their history (only what changed). */
  recordAgent(agentId: string): void {
    const builtinId = this.store.agents.builtin()?.id
    const printerIds = new Set([...this.store.printers.ofAgent(agentId).map((p) => p.agentPrinterId), ...this.store.agents.printers().filter((p) => p.agentId === agentId).map((p) => p.printerId)])
    for (const printerId of printerIds) this.store.printerStates.record(agentId, printerId, this.stateOf(agentId, printerId, builtinId))
  }

  private stateOf(agentId: string, agentPrinterId: string, builtinId: string | undefined): PrinterState {
    if (!this.sources.isConnected(agentId)) return 'offline'
    const learned = agentId === builtinId ? this.sources.builtinState(agentPrinterId) : undefined
    return learned ?? this.store.agents.printer(agentId, agentPrinterId)?.availability ?? 'unknown'
  }
}
