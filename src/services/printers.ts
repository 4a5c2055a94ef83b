// A project's printers as every edge adds and changes them (the dashboard, the CLI): a printer the
// hub drives itself (its built-in agent's), or a printer a paired agent reported. One rule for the
// settings (printer-settings.ts), whoever adds it.
import { connectionOf, type PollingKind, pollingConnection } from '../domain/connection-uri.ts'
import { defaultProfileId } from '../profiles/catalog.ts'
import type { PaperWidth } from '../protocol/document.ts'
import type { PrinterRecord } from '../store/printers.ts'
import type { Store } from '../store/store.ts'
import type { Confinement } from '../transports/confine.ts'
import { checkPrinterSettings, type PrinterSettingsFields, type SettingProblem } from './printer-settings.ts'

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

/**
 * The hub's record of the printer that polls at `connection`, when it has one (other than
 * `except`): a printer that polls is one queue, and two records would offer it each other's jobs.
 */
function pollingTwin(store: Store, builtinId: string, connection: string, except?: string): PrinterRecord | undefined {
  if (!connection.startsWith('cloudprnt://') && !connection.startsWith('epson-sdp://')) return undefined
  return store.printers.ofAgent(builtinId).find((printer) => printer.connection === connection && printer.id !== except)
}

/** A printer the hub's built-in agent drives, for a project. */
export function addHubPrinter(
  store: Store,
  projectId: string,
  input: PrinterSettingsFields,
  confinement: Confinement,
): AddPrinterOutcome {
  if (!store.projects.get(projectId)) return { kind: 'unknown_project' }
  const checked = checkPrinterSettings({ ...input, confinement })
  if (!checked.ok) return { kind: 'invalid', problem: checked.problem }
  const builtin = store.agents.builtin()
  if (!builtin) return { kind: 'no_builtin_agent' }
  const { id, ...settings } = checked.settings
  // Printers and destinations share one namespace per project: applications post to either by name.
  if (store.destinations.get(projectId, id)) return { kind: 'taken', id }
  const same = pollingTwin(store, builtin.id, settings.connection)
  if (same) return { kind: 'mac_taken', printer: same }
  const printer = store.printers.add({ projectId, remoteId: id, ...settings, agentId: builtin.id })
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
export function adoptPollingPrinter(
  store: Store,
  projectId: string,
  adoption: Adoption,
  confinement: Confinement,
): AddPrinterOutcome {
  const found = pollingConnection(adoption.printer, adoption.kind)
  if (!found.ok) return { kind: 'invalid', problem: { field: 'connection', message: found.message } }
  const { printer: _printer, kind: _kind, ...settings } = adoption
  return addHubPrinter(store, projectId, { ...settings, connection: found.uri }, confinement)
}

/** Gives a project a printer a paired agent reported. */
export function assignAgentPrinter(store: Store, assignment: AgentPrinterAssignment): AddPrinterOutcome {
  if (!store.projects.get(assignment.projectId)) return { kind: 'unknown_project' }
  const agent = store.agents.get(assignment.agentId)
  if (!agent || agent.revokedAt) return { kind: 'unknown_agent' }
  const reported = store.agents.printer(assignment.agentId, assignment.agentPrinterId)
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
  if (store.destinations.get(assignment.projectId, id)) return { kind: 'taken', id }
  const printer = store.printers.add({
    projectId: assignment.projectId,
    remoteId: id,
    ...settings,
    agentId: reported.agentId,
    agentPrinterId: reported.printerId,
  })
  return printer ? { kind: 'added', printer } : { kind: 'taken', id }
}

/** Changes a printer's label, model, paper or (for the hub's own printers) connection. */
export function changePrinter(
  store: Store,
  printerId: string,
  change: {
    name?: string | null | undefined
    connection?: string | undefined
    profile?: string | undefined
    width?: number | undefined
  },
  confinement: Confinement,
): ChangePrinterOutcome {
  const printer = store.printers.get(printerId)
  if (!printer) return { kind: 'unknown_printer' }
  const hubDriven = printer.agentId === store.agents.builtin()?.id
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
  const twin = hubDriven ? pollingTwin(store, printer.agentId, settings.connection, printer.id) : undefined
  if (twin) return { kind: 'mac_taken', printer: twin }
  return { kind: 'changed', printer: store.printers.update(printer.id, settings)! }
}
