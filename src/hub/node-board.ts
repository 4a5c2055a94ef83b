// Printers' states on a cluster's node (docs/cluster.md): read by the same units as one hub's (services/
// printer-states.ts), with who is connected from the leases held now (an agent's, or a built-in printer's own) and
// what a printer said of itself from the node driving it (its own agent's, here; else the state that node recorded).
// Recorded by the node that holds the agent or drives the printer, each agent's records one after another.
import { agentLease, LOCKED_ROWS } from '../dispatcher/cluster-lanes.ts'
import { type NodePrinters, printerLease } from '../dispatcher/cluster-printers.ts'
import type { PrinterState } from '../domain/printer-state.ts'
import type { PgStore } from '../pgstore/pg-store.ts'
import type { Logger } from '../platform/log.ts'
import type { ProjectPrinter } from '../protocol/project-printer.ts'
import { logPrinterChange } from '../services/printer-board.ts'
import { type Liveness, projectPrintersUnit, recordAgentUnit } from '../services/printer-states.ts'

export interface NodeBoard {
  projectPrinters(projectId: string, now: number): Promise<ProjectPrinter[]>
  /** Records the state now of an agent's printers (the changes told); never throws. */
  recordAgent(agentId: string): void
}

export function nodeBoard(
  store: PgStore,
  parts: {
    printers: NodePrinters | undefined
    /** What the node's own agent learned of a printer it drives. */
    learned: (agentPrinterId: string) => PrinterState | undefined
    now: () => number
    log: Logger
  },
): NodeBoard {
  /**
   * Who is connected now (the leases held); to record, what this node's agent learned of the printers it drives; to
   * read, only what was recorded, so that every node answers the same.
   */
  const liveNow = async (recording: boolean): Promise<Liveness> => {
    const leases = await store.liveLeases()
    return {
      connected: (agentId, record, builtin) =>
        builtin ? record !== undefined && leases.has(printerLease(record.id)) : leases.has(agentLease(agentId)),
      learned: (agentPrinterId) =>
        recording && parts.printers?.ofAgentPrinter(agentPrinterId) ? parts.learned(agentPrinterId) : undefined,
      recorded: true,
      records: (agentPrinterId, builtin) => !builtin || parts.printers?.ofAgentPrinter(agentPrinterId) !== undefined,
    }
  }
  const recording = new Map<string, Promise<void>>()
  return {
    async projectPrinters(projectId, now) {
      const live = await liveNow(false)
      return store.read((db) => projectPrintersUnit(db, projectId, now, live))
    },
    recordAgent(agentId) {
      const next = (recording.get(agentId) ?? Promise.resolve())
        .then(async () => {
          const live = await liveNow(true)
          const changes = await store.write((db) => recordAgentUnit(db, agentId, parts.now(), live), LOCKED_ROWS)
          for (const change of changes) logPrinterChange(parts.log, agentId, change)
        })
        .catch((error: unknown) =>
          parts.log.warn("printers' states could not be recorded; they are at the next change", {
            agent: agentId,
            error: String(error),
          }),
        )
        .finally(() => {
          if (recording.get(agentId) === next) recording.delete(agentId)
        })
      recording.set(agentId, next)
    },
  }
}
