// Every printer's state as one hub knows it, and its history: what the printer's own status
// says (the hub's printers, asked by the built-in agent), else what its agent last reported; a
// printer whose agent is not connected is offline. A project's printers as applications see them,
// and the record of their changes, are units of work on either store (printer-states.ts); the
// board runs them on one hub with what its gateway and its built-in agent say now.
import type { Store } from '../store/store.ts'
import { needsAttention, type PrinterState } from '../domain/printer-state.ts'
import type { ProjectPrinter } from '../protocol/project-printer.ts'
import { DB } from '../storage/repositories.ts'
import { runNow } from '../storage/unit.ts'
import { type Liveness, type PrinterChange, projectPrintersUnit, recordAgentUnit } from './printer-states.ts'
import type { Logger } from '../platform/log.ts'

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

  /** A project's printers as applications see them, with their state now. */
  projectPrinters(projectId: string, now: number): ProjectPrinter[] {
    return runNow(projectPrintersUnit(DB, projectId, now, this.live), this.store)
  }

  /** Who is connected, and what the hub's printers said, as this hub knows it now. */
  readonly live: Liveness = {
    connected: (agentId) => this.sources.isConnected(agentId),
    agentOnline: (agentId) => this.sources.isConnected(agentId),
    learned: (agentPrinterId) => this.sources.builtinState(agentPrinterId),
    recorded: false,
  }

  /** Writes the current state of an agent's printers into their history (only what changed), each change told. */
  recordAgent(agentId: string): void {
    const now = this.sources.now?.() ?? Date.now()
    for (const change of runNow(recordAgentUnit(DB, agentId, now, this.live), this.store))
      logPrinterChange(this.log, agentId, change)
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
