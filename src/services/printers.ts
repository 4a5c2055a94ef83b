// A project's printers as every edge adds, changes and removes them (the dashboard, the CLI): a
// printer the hub drives itself (its built-in agent's), a printer that polls the hub, adopted, or a
// printer a paired agent reported; a test page on one. One rule for the settings
// (printer-settings.ts), whoever adds it; each change written to the audit log with it.
import { connectionOf, type PollingKind, pollingConnection } from '../domain/connection-uri.ts'
import type { PrinterRecord, PrinterStateChange } from '../domain/records.ts'
import { defaultProfileId } from '../profiles/catalog.ts'
import type { PaperWidth } from '../protocol/document.ts'
import { EXPIRES_IN_MS, MAX_ATTEMPTS } from '../protocol/limits.ts'
import type { Db, UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import type { Confinement } from '../transports/confine.ts'
import type { Actor } from './actor.ts'
import { recordedChange } from './audit.ts'
import type { JobService, SubmitOutcome } from './jobs.ts'
import type { HubOnTheLan } from './lan.ts'
import { type Liveness, type PrinterView, printerViewsUnit } from './printer-states.ts'
import { checkPrinterSettings, type PrinterSettingsFields, type SettingProblem } from './printer-settings.ts'
import { testPage } from './test-page.ts'

/** The paper of an agent's printer that does not say which it takes. */
const DEFAULT_AGENT_PAPER: PaperWidth = 80

export type AddPrinterOutcome =
  | { kind: 'added'; printer: PrinterRecord }
  | { kind: 'invalid'; problem: SettingProblem }
  | { kind: 'unknown_project' }
  /** The project already has a printer, or a destination, with that ID. */
  | { kind: 'taken'; id: string }
  /** The hub has no built-in agent yet (its data directory was never initialised). */
  | { kind: 'no_builtin_agent' }
  | { kind: 'unknown_agent' }
  /** The agent has not reported that printer (is it connected?). */
  | { kind: 'not_reported' }
  /** A printer that polls the hub by this MAC address is adopted already (one record per printer). */
  | { kind: 'mac_taken'; printer: PrinterRecord }

export type ChangePrinterOutcome =
  | { kind: 'changed'; printer: PrinterRecord }
  | { kind: 'unknown_printer' }
  | { kind: 'invalid'; problem: SettingProblem }
  /** A paired agent's printer is attached on that agent's machine. */
  | { kind: 'connection_set_by_agent' }
  /** Another of the hub's printers is the printer that polls by this MAC address. */
  | { kind: 'mac_taken'; printer: PrinterRecord }

export interface AgentPrinterAssignment {
  projectId: string
  agentId: string
  agentPrinterId: string
  /** What applications name it; default: the agent's printer ID. */
  id?: string | undefined
  /** Default (absent or null): the name the agent reports. */
  name?: string | null | undefined
  /** Default: the generic profile of the width. */
  profile?: string | undefined
  /** Default: the first paper width the agent reports. */
  width?: number | undefined
}

/** What may change of a printer: its label, model, paper and (for the hub's own printers) connection. */
export interface PrinterChange {
  name?: string | null | undefined
  connection?: string | undefined
  profile?: string | undefined
  width?: number | undefined
}

/**
 * The hub's record of the printer that polls at `connection`, when it has one (other than
 * `except`): a printer that polls is one queue, and two records would offer it each other's jobs.
 */
function* pollingTwin(db: Db, builtinId: string, connection: string, except?: string): Unit<PrinterRecord | undefined> {
  if (!connection.startsWith('cloudprnt://') && !connection.startsWith('epson-sdp://')) return undefined
  const printers = yield* db.printers.ofAgent(builtinId)
  return printers.find((printer) => printer.connection === connection && printer.id !== except)
}

/** A printer the hub's built-in agent drives, for a project. */
function* addHubPrinter(
  db: Db,
  projectId: string,
  input: PrinterSettingsFields,
  confinement: Confinement,
): Unit<AddPrinterOutcome> {
  if (!(yield* db.projects.get(projectId))) return { kind: 'unknown_project' }
  const checked = checkPrinterSettings({ ...input, confinement })
  if (!checked.ok) return { kind: 'invalid', problem: checked.problem }
  const builtin = yield* db.agents.builtin()
  if (!builtin) return { kind: 'no_builtin_agent' }
  const { id, ...settings } = checked.settings
  // Printers and destinations share one namespace per project: applications post to either by name.
  if (yield* db.destinations.get(projectId, id)) return { kind: 'taken', id }
  const same = yield* pollingTwin(db, builtin.id, settings.connection)
  if (same) return { kind: 'mac_taken', printer: same }
  const printer = yield* db.printers.add({ projectId, remoteId: id, ...settings, agentId: builtin.id })
  return printer ? { kind: 'added', printer } : { kind: 'taken', id }
}

/** What adopting a printer that polls takes: which printer, and what applications call it. */
export interface Adoption {
  /** Its MAC address (CloudPRNT) or its ID (Epson Server Direct Print), as it is written on it or listed. */
  printer: string
  kind?: PollingKind | undefined
  id: string
  profile?: string | undefined
  width?: number | undefined
  name?: string | null | undefined
}

/**
 * Adopts a printer that polls the hub (Star CloudPRNT, Epson Server Direct Print) into a
 * project: from then on it is offered the project's jobs for it. Until adopted, a printer that
 * polls is offered nothing.
 */
function* adoptPollingPrinter(
  db: Db,
  projectId: string,
  adoption: Adoption,
  confinement: Confinement,
): Unit<AddPrinterOutcome> {
  const found = pollingConnection(adoption.printer, adoption.kind)
  if (!found.ok) return { kind: 'invalid', problem: { field: 'connection', message: found.message } }
  const { printer: _printer, kind: _kind, ...settings } = adoption
  return yield* addHubPrinter(db, projectId, { ...settings, connection: found.uri }, confinement)
}

/** Gives a project a printer a paired agent reported. */
function* assignAgentPrinter(db: Db, assignment: AgentPrinterAssignment): Unit<AddPrinterOutcome> {
  if (!(yield* db.projects.get(assignment.projectId))) return { kind: 'unknown_project' }
  const agent = yield* db.agents.get(assignment.agentId)
  if (!agent || agent.revokedAt) return { kind: 'unknown_agent' }
  const reported = yield* db.agents.printer(assignment.agentId, assignment.agentPrinterId)
  if (!reported) return { kind: 'not_reported' }
  const width = assignment.width ?? reported.descriptor.capabilities?.mediaWidths[0] ?? DEFAULT_AGENT_PAPER
  const checked = checkPrinterSettings({
    id: assignment.id || reported.printerId,
    connection: connectionOf(reported.descriptor),
    reportedByAgent: true,
    profile: assignment.profile ?? defaultProfileId(width as PaperWidth),
    width,
    name: assignment.name ?? reported.name,
  })
  if (!checked.ok) return { kind: 'invalid', problem: checked.problem }
  const { id, ...settings } = checked.settings
  if (yield* db.destinations.get(assignment.projectId, id)) return { kind: 'taken', id }
  const printer = yield* db.printers.add({
    projectId: assignment.projectId,
    remoteId: id,
    ...settings,
    agentId: reported.agentId,
    agentPrinterId: reported.printerId,
  })
  return printer ? { kind: 'added', printer } : { kind: 'taken', id }
}

/** Changes a printer's label, model, paper or (for the hub's own printers) connection. */
function* changePrinter(
  db: Db,
  printerId: string,
  change: PrinterChange,
  confinement: Confinement,
): Unit<ChangePrinterOutcome> {
  const printer = yield* db.printers.get(printerId)
  if (!printer) return { kind: 'unknown_printer' }
  const hubDriven = printer.agentId === (yield* db.agents.builtin())?.id
  if (!hubDriven && change.connection !== undefined && change.connection !== printer.connection)
    return { kind: 'connection_set_by_agent' }
  const checked = checkPrinterSettings({
    id: printer.remoteId,
    connection: change.connection ?? printer.connection,
    ...(hubDriven ? { confinement } : { reportedByAgent: true as const }),
    profile: change.profile ?? printer.profile,
    width: change.width ?? printer.width,
    name: change.name === undefined ? printer.name : change.name,
  })
  if (!checked.ok) return { kind: 'invalid', problem: checked.problem }
  const { id: _id, ...settings } = checked.settings
  const twin = hubDriven ? yield* pollingTwin(db, printer.agentId, settings.connection, printer.id) : undefined
  if (twin) return { kind: 'mac_taken', printer: twin }
  return { kind: 'changed', printer: (yield* db.printers.update(printer.id, settings))! }
}

/** A test page not printed within this long is of no use any more. */
const TEST_PAGE_EXPIRES_IN_MS = EXPIRES_IN_MS.min * 6

/** What a test page says of where it is printed: the hub as people reach it, the printer's state, the time. */
export interface TestPagePlace {
  hub: HubOnTheLan
  /** The printer's state in words, asked once the printer is known. */
  status: () => string
  at: Date
}

/** What the running hub is told of printers added: its printer board notes their agent's printers. */
export interface PrinterNews {
  recordAgent(agentId: string): void
}

export class PrinterService {
  constructor(
    private readonly units: UnitRunner,
    private readonly jobs: JobService,
    /** The running hub's printer board; none from the CLI. */
    private readonly news?: PrinterNews | undefined,
  ) {}

  /** A printer record (a removed one too), by its record ID. */
  get(id: string): Promise<PrinterRecord | undefined> {
    return this.units.read((db) => db.printers.get(id))
  }

  /** A project's live printers, oldest first. */
  list(projectId: string): Promise<PrinterRecord[]> {
    return this.units.read((db) => db.printers.list(projectId))
  }

  /** A live printer of the project by its record ID or its name; undefined when none. */
  resolve(projectId: string, printerId: string): Promise<PrinterRecord | undefined> {
    return this.units.read((db) => db.printers.resolve(projectId, printerId))
  }

  /** Every project's printers as the dashboard shows them, with their states as `live` knows them. */
  views(live: Liveness): Promise<PrinterView[]> {
    return this.units.read((db) => printerViewsUnit(db, live))
  }

  /** The printer's state changes, newest first, at most `limit`. */
  history(printer: PrinterRecord, limit: number): Promise<PrinterStateChange[]> {
    return this.units.read((db) => db.printerStates.history(printer.agentId, printer.agentPrinterId, limit))
  }

  /** A printer the hub's built-in agent drives, for a project. */
  add(
    actor: Actor,
    projectId: string,
    input: PrinterSettingsFields,
    confinement: Confinement,
  ): Promise<AddPrinterOutcome> {
    return this.added(actor, 'printers.add', (db) => addHubPrinter(db, projectId, input, confinement))
  }

  /** A printer that polls the hub, adopted into a project: from then on it is offered the project's jobs for it. */
  adopt(actor: Actor, projectId: string, adoption: Adoption, confinement: Confinement): Promise<AddPrinterOutcome> {
    return this.added(actor, 'printers.adopt', (db) => adoptPollingPrinter(db, projectId, adoption, confinement))
  }

  /** A printer a paired agent reported, given to a project. */
  assign(actor: Actor, assignment: AgentPrinterAssignment): Promise<AddPrinterOutcome> {
    return this.added(actor, 'printers.assign', (db) => assignAgentPrinter(db, assignment))
  }

  private async added(
    actor: Actor,
    action: 'printers.add' | 'printers.adopt' | 'printers.assign',
    add: (db: Db) => Unit<AddPrinterOutcome>,
  ): Promise<AddPrinterOutcome> {
    const outcome = await this.units.write(function* (db): Unit<AddPrinterOutcome> {
      const done = yield* add(db)
      if (done.kind === 'added') yield* recordedChange(db, { actor, action, target: done.printer.remoteId })
      return done
    })
    if (outcome.kind === 'added') this.news?.recordAgent(outcome.printer.agentId)
    return outcome
  }

  /** Changes a printer's label, model, paper or (for the hub's own printers) connection. */
  change(
    actor: Actor,
    printerId: string,
    change: PrinterChange,
    confinement: Confinement,
  ): Promise<ChangePrinterOutcome> {
    return this.units.write(function* (db): Unit<ChangePrinterOutcome> {
      const outcome = yield* changePrinter(db, printerId, change, confinement)
      if (outcome.kind === 'changed')
        yield* recordedChange(db, { actor, action: 'printers.change', target: outcome.printer.id })
      return outcome
    })
  }

  /** Removes a printer; its jobs keep their history. False when there is no such live printer. */
  remove(actor: Actor, printerId: string): Promise<boolean> {
    return this.units.write(function* (db): Unit<boolean> {
      if (!(yield* db.printers.remove(printerId))) return false
      yield* recordedChange(db, { actor, action: 'printers.remove', target: printerId })
      return true
    })
  }

  /**
   * Queues a test page (the hub, its addresses, the printer's model and state, a QR code to the hub)
   * on one of the hub's printers, as a job that expires soon and is tried once.
   */
  async printTestPage(
    actor: Actor,
    printerId: string,
    { hub, status, at }: TestPagePlace,
  ): Promise<SubmitOutcome | { kind: 'no_printer' }> {
    const printer = await this.get(printerId)
    if (!printer) return { kind: 'no_printer' }
    const document = testPage(
      { id: printer.remoteId, connection: printer.connection, profile: printer.profile, width: printer.width },
      hub,
      status(),
      at,
    )
    return this.jobs.submit({
      projectId: printer.projectId,
      printerId: printer.id,
      idempotencyKey: `test-page-${crypto.randomUUID()}`,
      document,
      metadata: { printhub: 'test-page' },
      expiresInMs: TEST_PAGE_EXPIRES_IN_MS,
      maxAttempts: MAX_ATTEMPTS.min,
      audited: { actor, action: 'printers.test', target: printer.id },
    })
  }
}
