// The hub's own agent: paired at the first start like any agent (its key in <data>/agent, its
// public key in the hub's store), and connected to the gateway through the in-memory pipe. Its
// ledger lives in the hub's database. The printers added with `printhub printers add` are its printers.
import { join } from 'node:path'
import { Agent } from '../agent/agent.ts'
import type { Confinement } from '../transports/confine.ts'
import type { PrinterCatalog } from '../agent/catalog.ts'
import type { Credentials } from '../agent/connection.ts'
import { AgentKey } from '../agent/identity.ts'
import { BuiltinLedger } from '../agent/builtin-ledger.ts'
import { builtinAgentRecords } from './builtin-records.ts'
import type { Gateway } from '../gateway/gateway.ts'
import type { Logger } from '../platform/log.ts'
import { inMemoryConnector } from './in-memory-link.ts'
import type { Store } from '../store/store.ts'
import type { VirtualPrinters } from '../transports/virtual.ts'
import type { CloudPrnt } from '../transports/cloudprnt.ts'
import type { EpsonSdp } from '../transports/epson-sdp.ts'
import { VERSION } from '../domain/version.ts'
import { BUILTIN_AGENT_DIR } from '../services/init.ts'

/** The hub's printer records of the built-in agent, as its catalog. */
function hubCatalog(store: Store, agentId: string): PrinterCatalog {
  return {
    printers: () =>
      store.printers.ofAgent(agentId).map((record) => ({
        id: record.agentPrinterId,
        name: record.name ?? record.remoteId,
        connection: record.connection,
        profile: record.profile,
        width: record.width,
      })),
  }
}

export interface BuiltinAgent {
  agent: Agent
  stop(): Promise<void>
}

/** What the built-in agent runs with. */
export interface BuiltinAgentOptions {
  store: Store
  dataDir: string
  credentials: Credentials
  gateway: Gateway
  virtuals: VirtualPrinters
  /** What its printers may reach: the hub's output folder, device files, not the hub's own port. */
  confinement: Confinement
  statusPollMs: number
  log: Logger
  /** Told when a printer's own status changed. */
  printerStateChanged: () => void
  /** The printers that poll the hub for their jobs. */
  polling: { cloudPrnt: CloudPrnt; epsonSdp: EpsonSdp }
}

export function startBuiltinAgent({
  store,
  dataDir,
  credentials,
  gateway,
  virtuals,
  confinement,
  statusPollMs,
  log,
  printerStateChanged,
  polling,
}: BuiltinAgentOptions): BuiltinAgent {
  const dir = join(dataDir, BUILTIN_AGENT_DIR)
  const ledger = new BuiltinLedger(store.db, store.commits, builtinAgentRecords(store, credentials.agentId))
  const agent = new Agent({
    ledger,
    key: AgentKey.load(dir)!,
    credentials,
    catalog: hubCatalog(store, credentials.agentId),
    // Its ledger is in the hub's database: jobs may reach it in the turn they are created.
    connector: inMemoryConnector(gateway, { sharesCommits: true }),
    virtuals,
    confinement,
    version: VERSION,
    log,
    statusPollMs,
    printerStateChanged,
    polling,
  })
  agent.start()
  return {
    agent,
    async stop() {
      await agent.stop()
      ledger.close()
    },
  }
}
