// Printers' states on a cluster's node (docs/cluster.md): read by the same units as one hub's (services/
// printer-states.ts), with who is connected from the leases held now (an agent's, or a built-in printer's own) and
// what a printer said of itself from the node driving it (its own agent's, here; else the state that node recorded).
// Recorded by the node that holds the agent or drives the printer, each agent's records one after another.
import { agentLease, LOCKED_ROWS } from '../dispatcher/cluster-lanes.ts'
import { type NodePrinters, printerLease } from '../dispatcher/cluster-printers.ts'
import type { PrinterState } from '../domain/printer-state.ts'
import type { PrinterRecord } from '../domain/records.ts'
import type { PgStore } from '../pgstore/pg-store.ts'
import type { Logger } from '../platform/log.ts'
import type { ProjectPrinter } from '../protocol/project-printer.ts'
import { logPrinterChange } from '../services/printer-board.ts'
import { type Liveness, projectPrintersUnit, recordAgentUnit } from '../services/printer-states.ts'

/** Leases that ran out longer ago than this (past the grace) are not looked at again. */
const LOST_WINDOW_MS = 10 * 60_000

/** How long a reading of the leases stands for who is connected, where a second's lag is harmless. */
const RECENT_MS = 1_000

export interface NodeBoard {
  projectPrinters(projectId: string, now: number): Promise<ProjectPrinter[]>
  /** Who is connected now and what printers said, for a reading (the same on every node). */
  liveness(): Promise<Liveness>
  /** The same, as read within the last second (one reading of the leases a second however many ask). */
  recentLiveness(): Promise<Liveness>
  /** Records the state now of an agent's printers (the changes told); never throws. */
  recordAgent(agentId: string): void
  /**
   * On the node doing the cluster's maintenance: records offline the printers whose driver's lease ran out at least
   * `graceMs` ago (a node that died records nothing itself), each change told, its `printer.state_changed` written.
   */
  recordLost(graceMs: number): Promise<void>
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
    const { live: leases, ranOut } = await store.leaseStates()
    const leaseOf = (agentId: string, record: PrinterRecord | undefined, builtin: boolean) =>
      builtin ? record && printerLease(record.id) : agentLease(agentId)
    return {
      connected: (agentId, record, builtin) => {
        const lease = leaseOf(agentId, record, builtin)
        return lease !== undefined && leases.has(lease)
      },
      // A built-in printer whose lease no node ever took: just added.
      neverDriven: (agentId, record, builtin) => {
        const lease = builtin ? leaseOf(agentId, record, builtin) : undefined
        return lease !== undefined && !leases.has(lease) && !ranOut.has(lease)
      },
      // A node that died: its agents' and printers' leases ran out then.
      offlineSince: (agentId, record, builtin) => {
        const lease = leaseOf(agentId, record, builtin)
        return lease === undefined ? undefined : ranOut.get(lease)?.at
      },
      // The cluster's built-in agent runs on every node: on this one, answering.
      agentOnline: (agentId, builtin) => builtin || leases.has(agentLease(agentId)),
      learned: (agentPrinterId) =>
        recording && parts.printers?.ofAgentPrinter(agentPrinterId) ? parts.learned(agentPrinterId) : undefined,
      recorded: true,
      records: (agentPrinterId, builtin) => !builtin || parts.printers?.ofAgentPrinter(agentPrinterId) !== undefined,
    }
  }
  /** What a lease that ran out at `at` says: its driver is gone, and only `only` (a built-in printer) is recorded. */
  const lostLive = (at: number, only?: string): Liveness => ({
    connected: () => false,
    agentOnline: () => false,
    offlineSince: () => at,
    learned: () => undefined,
    recorded: true,
    records: (agentPrinterId, builtin) => (only === undefined ? !builtin : agentPrinterId === only),
  })
  const recording = new Map<string, Promise<void>>()
  let recent: { at: number; live: Promise<Liveness> } | undefined
  return {
    liveness: () => liveNow(false),
    recentLiveness() {
      const at = parts.now()
      if (!recent || at - recent.at >= RECENT_MS || at < recent.at) {
        const live = liveNow(false)
        recent = { at, live }
        // A failed reading is not kept: the next asks again.
        live.catch(() => {
          if (recent?.live === live) recent = undefined
        })
      }
      return recent.live
    },
    async projectPrinters(projectId, now) {
      const live = await liveNow(false)
      return store.read((db) => projectPrintersUnit(db, projectId, now, live))
    },
    async recordLost(graceMs) {
      const { ranOut } = await store.leaseStates()
      for (const [resource, lease] of ranOut) {
        // A moment away is a driver moving to another node; long gone was recorded by a pass before.
        if (lease.agoMs < graceMs || lease.agoMs > graceMs + LOST_WINDOW_MS) continue
        const [kind, id] = [resource.slice(0, resource.indexOf(':')), resource.slice(resource.indexOf(':') + 1)]
        if (kind !== 'agent' && kind !== 'printer') continue
        const now = parts.now()
        const changes = await store.whileRanOut({ resource, fence: lease.fence }, function* (db) {
          if (kind === 'agent') return { agentId: id, changes: yield* recordAgentUnit(db, id, now, lostLive(lease.at)) }
          const record = yield* db.printers.get(id)
          if (!record) return undefined
          const live = lostLive(lease.at, record.agentPrinterId)
          return { agentId: record.agentId, changes: yield* recordAgentUnit(db, record.agentId, now, live) }
        })
        for (const change of changes?.changes ?? []) logPrinterChange(parts.log, changes!.agentId, change)
      }
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
