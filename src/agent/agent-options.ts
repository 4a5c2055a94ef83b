// What an agent (agent.ts) is given: its ledger, key and credentials, its printers' catalog, how it
// reaches its hub and its printers, and what it tells.
import type { PrinterState } from '../domain/printer-state.ts'
import type { Logger } from '../platform/log.ts'
import type { IntentRecorder } from './hand-over.ts'
import type { Confinement } from '../transports/confine.ts'
import type { DeviceFinder } from '../transports/devices.ts'
import type { Transports } from '../transports/submit.ts'
import type { VirtualPrinters } from '../transports/virtual.ts'
import type { PrinterCatalog } from './catalog.ts'
import type { Connector, Credentials } from './connection.ts'
import type { AgentKey } from './identity.ts'
import type { AgentLedger } from './agent-ledger.ts'
import type { Render } from './render-ahead.ts'

export interface AgentOptions {
  ledger: AgentLedger
  key: AgentKey
  credentials: Credentials
  catalog: PrinterCatalog
  connector: Connector
  virtuals: VirtualPrinters
  /** Where device files are (the system's unless a test says otherwise). */
  devices?: DeviceFinder
  /** What its printers may reach (transports/confine.ts): device files, its output folder, not the hub's own port. */
  confinement: Confinement
  version: string
  /** What the agent has to say (component agent): connections, refused jobs, its own failures. */
  log?: Logger
  /** How often idle printers are asked their status (default STATUS_POLL_MS.default, as the hub's). */
  statusPollMs?: number
  /** Told when a printer's state changes (the hub's dashboard shows it). */
  printerStateChanged?: (printerId: string, state: PrinterState) => void
  /**
   * The printers that poll the hub (Star CloudPRNT, Epson Server Direct Print): only the hub's own agent serves them.
   */
  polling?: Pick<Transports, 'cloudPrnt' | 'epsonSdp'>
  /**
   * Where the intent to print is recorded besides the ledger, before the first byte: a cluster node's database, under
   * the printer's lease (hub/node-agent.ts). A job whose intent it refuses is not printed (hand-over.ts).
   */
  intents?: IntentRecorder
  /**
   * Stopping, the work under way ends and is reported before the connection closes: for a ledger that keeps nothing
   * (a cluster node's agent, in memory), whose reports could not be sent later.
   */
  reportsBeforeClosing?: boolean
  /** How a document is rendered for its printer (renderOffThread; tests observe it). */
  render?: Render
}
