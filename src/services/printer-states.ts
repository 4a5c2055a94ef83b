// A printer's state now, read and recorded by units of work on either store: offline when its driver is not
// connected, else what the printer said of itself (the built-in agent's printers), else what its agent reported.
// One hub knows who is connected from its gateway and what its printers said from its built-in agent; a cluster's
// node knows who is connected from the leases (an agent's, or a built-in printer's own) and what a printer said from
// the state the node driving it recorded (`recorded`).
import { type PrinterState, projectPrinterState } from '../domain/printer-state.ts'
import type { PrinterRecord } from '../domain/records.ts'
import type { ProjectPrinter } from '../protocol/project-printer.ts'
import type { Db } from '../storage/repositories.ts'
import { iso } from '../storage/time.ts'
import type { Unit } from '../storage/unit.ts'

/** Who is connected, and what the printers said of themselves, as the reader knows it. */
export interface Liveness {
  /** Whether the printer's driver is connected: its agent, or for a built-in printer of a cluster, its node. */
  connected(agentId: string, record: PrinterRecord | undefined, builtin: boolean): boolean
  /** Whether an agent is connected (to a cluster: to some node; its built-in agent is, while a node runs). */
  agentOnline(agentId: string, builtin: boolean): boolean
  /**
   * For a driver not connected: when its connection was lost, when known (a cluster's node that died leaves its
   * leases to run out), in ms since the epoch. The printer has been offline since then at least.
   */
  offlineSince?(agentId: string, record: PrinterRecord | undefined, builtin: boolean): number | undefined
  /** For a driver not connected: whether the printer was never driven (a cluster's printer no node took yet). */
  neverDriven?(agentId: string, record: PrinterRecord | undefined, builtin: boolean): boolean
  /** What a built-in printer said of itself, learned here now. */
  learned(agentPrinterId: string): PrinterState | undefined
  /** A built-in printer's recorded state stands for what another process learned (a cluster's node). */
  recorded: boolean
  /**
   * Whether this reader records the printer's state: on a cluster's node, only a built-in printer it drives (another
   * node's would be recorded from what this node does not know). Every printer when not given.
   */
  records?(agentPrinterId: string, builtin: boolean): boolean
}

/** A printer as the dashboard shows it: its record, its state now, its agent, its queue. */
export interface PrinterView extends PrinterRecord {
  state: PrinterState
  agentName: string
  agentOnline: boolean
  /** Driven by the hub itself (the built-in agent), not a paired agent. */
  builtin: boolean
  /** Jobs waiting for the printer: not yet with its agent. */
  queue: number
}

/** A printer of an agent, its record when it is a project's, and its state now with since when. */
export interface PrinterNow {
  agentPrinterId: string
  record: PrinterRecord | undefined
  state: PrinterState
  /** Its latest recorded state and when it began. */
  latest: { state: PrinterState; at: string } | undefined
  /** Since when it has been in its state, as far as is known: its latest record, or when its driver was lost. */
  since: string | undefined
  connected: boolean
}

/** A printer's state now (see the top of this file). */
export function* printerNow(
  db: Db,
  agentId: string,
  agentPrinterId: string,
  context: { record: PrinterRecord | undefined; builtin: boolean; live: Liveness },
): Unit<PrinterNow> {
  const { record, builtin, live } = context
  const connected = live.connected(agentId, record, builtin)
  const [latest] = yield* db.printerStates.history(agentId, agentPrinterId, 1)
  // A printer no node has driven yet (a cluster's, just added) is not known to be anything yet.
  let state: PrinterState = live.neverDriven?.(agentId, record, builtin) ? 'unknown' : 'offline'
  if (connected) {
    const learned = builtin ? (live.learned(agentPrinterId) ?? (live.recorded ? latest?.state : undefined)) : undefined
    state = learned ?? (yield* db.agents.printer(agentId, agentPrinterId))?.availability ?? 'unknown'
  }
  let since = latest?.at
  const lost = connected ? undefined : live.offlineSince?.(agentId, record, builtin)
  if (lost !== undefined) {
    // Offline since its driver was lost: a state recorded before ended then; `offline` recorded after began then.
    const recorded = since === undefined ? undefined : Date.parse(since)
    const offline = latest?.state === 'offline'
    if (recorded === undefined || (offline ? lost < recorded : lost > recorded)) since = iso(lost)
  }
  return { agentPrinterId, record, state, latest, connected, since }
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
    const { state, since, connected } = yield* printerNow(db, record.agentId, record.agentPrinterId, {
      record,
      builtin,
      live,
    })
    printers.push({
      id: record.id,
      name: record.remoteId,
      model: record.profile,
      state: projectPrinterState(state, (held.get(record.id) ?? 0) > 0),
      stateSince: since ?? null,
      lastSeenAt: connected ? iso(now) : (agents.get(record.agentId)?.lastSeenAt ?? null),
      queueDepth: queues.get(record.id) ?? 0,
      agentId: record.agentId,
    })
  }
  return printers
}

/** Every project's printers as the dashboard shows them (the admin API's printers, the overview's). */
export function* printerViewsUnit(db: Db, live: Liveness): Unit<PrinterView[]> {
  const queues = yield* db.jobs.queueLengths()
  const builtinId = (yield* db.agents.builtin())?.id
  const agents = new Map((yield* db.agents.list()).map((agent) => [agent.id, agent]))
  const views: PrinterView[] = []
  for (const record of yield* db.printers.listAll()) {
    const builtin = record.agentId === builtinId
    const { state } = yield* printerNow(db, record.agentId, record.agentPrinterId, { record, builtin, live })
    views.push({
      ...record,
      state,
      agentName: agents.get(record.agentId)?.name ?? record.agentId,
      agentOnline: live.agentOnline(record.agentId, builtin),
      builtin,
      queue: queues.get(record.id) ?? 0,
    })
  }
  return views
}

/** A printer whose state changed, as recorded. */
export interface PrinterChange {
  agentPrinterId: string
  record: PrinterRecord | undefined
  from: PrinterState | undefined
  to: PrinterState
}

/**
 * Writes the current state of an agent's printers into their history (only what changed), and tells each project
 * with a record of a changed printer (`printer.state_changed`, when the state applications see changed); the changes.
 */
export function* recordAgentUnit(db: Db, agentId: string, now: number, live: Liveness): Unit<PrinterChange[]> {
  const builtin = agentId === (yield* db.agents.builtin())?.id
  const records = new Map((yield* db.printers.ofAgent(agentId)).map((p) => [p.agentPrinterId, p]))
  const reported = (yield* db.agents.printers()).filter((p) => p.agentId === agentId).map((p) => p.printerId)
  const changes: PrinterChange[] = []
  for (const agentPrinterId of new Set([...records.keys(), ...reported])) {
    if (live.records && !live.records(agentPrinterId, builtin)) continue
    const record = records.get(agentPrinterId)
    const { state } = yield* printerNow(db, agentId, agentPrinterId, { record, builtin, live })
    const change = yield* db.printerStates.record(agentId, agentPrinterId, state)
    if (!change) continue
    changes.push({ agentPrinterId, record, from: change.from, to: state })
    const seen = projectPrinterState(state, false)
    const previousState = change.from === undefined ? null : projectPrinterState(change.from, false)
    if (seen === previousState) continue
    for (const shown of yield* db.printers.ofAgent(agentId, agentPrinterId)) {
      const printer = (yield* projectPrintersUnit(db, shown.projectId, now, live)).find((p) => p.id === shown.id)
      // The event is of the printer's condition: its projection says the same state (not busy).
      if (printer)
        yield* db.events.append(shown.projectId, 'printer.state_changed', {
          state: seen,
          previousState,
          printer: { ...printer, state: seen },
        })
    }
  }
  return changes
}
