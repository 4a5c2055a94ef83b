// The hub's own agent: paired at the first start like any agent (its key in <data>/agent, its
// public key in the hub's store), and connected to the gateway through the in-memory pipe. Its
// ledger lives in the hub's database. The printers added with `printhub printers add` are its printers.
import { join } from 'node:path'
import { Agent } from '../agent/agent.ts'
import type { PrinterCatalog } from '../agent/catalog.ts'
import type { Credentials } from '../agent/connection.ts'
import { AgentKey } from '../agent/identity.ts'
import { Ledger } from '../agent/ledger.ts'
import type { Gateway } from '../gateway/gateway.ts'
import { inMemoryConnector } from './in-memory-link.ts'
import type { Store } from '../store/store.ts'
import type { VirtualPrinters } from '../transports/virtual.ts'
import { VERSION } from '../domain/version.ts'

export const BUILTIN_AGENT_DIR = 'agent'
const AGENT_ID = 'agent_id'
const KEY_ID = 'key_id'

/** The built-in agent's pairing, made on the first start and checked on every start. */
export async function pairBuiltinAgent(store: Store, dataDir: string): Promise<Credentials> {
  const dir = join(dataDir, BUILTIN_AGENT_DIR)
  const ledger = Ledger.within(store.db, store.commits)
  try {
    const agentId = ledger.setting(AGENT_ID)
    const keyId = ledger.setting(KEY_ID)
    const known = agentId && keyId ? store.agents.credential(agentId, keyId) : undefined
    if (agentId && keyId && known && !known.revoked && AgentKey.load(dir)) return { agentId, keyId }
    const key = AgentKey.create(dir)
    const paired = store.agents.insert(
      { name: 'built-in', version: VERSION, platform: process.platform, installationId: 'installation_builtin', publicKey: await key.publicKey() },
      Date.now(),
      { builtin: true },
    )
    ledger.setSettings({ [AGENT_ID]: paired.id, [KEY_ID]: paired.keyId })
    store.printers.adoptForBuiltinAgent(paired.id)
    return { agentId: paired.id, keyId: paired.keyId }
  } finally {
    ledger.close()
  }
}

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

export function startBuiltinAgent(
  store: Store,
  dataDir: string,
  credentials: Credentials,
  gateway: Gateway,
  virtuals: VirtualPrinters,
  statusPollMs: number,
  log: (line: string) => void,
  /** Told when a printer's own status changed. */
  printerStateChanged: () => void,
): BuiltinAgent {
  const dir = join(dataDir, BUILTIN_AGENT_DIR)
  const ledger = Ledger.within(store.db, store.commits)
  const agent = new Agent({
    ledger,
    key: AgentKey.load(dir)!,
    credentials,
    catalog: hubCatalog(store, credentials.agentId),
    // Its ledger is in the hub's database: jobs may reach it in the turn they are created.
    connector: inMemoryConnector(gateway, { sharesCommits: true }),
    virtuals,
    version: VERSION,
    log,
    statusPollMs,
    printerStateChanged,
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
