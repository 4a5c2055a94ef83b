// First start: the server identity, the built-in agent, a default project with an API key, and a
// demo printer.
import { THE_MACHINE } from './actor.ts'
import { recordChange } from './audit.ts'
import { API_KEY_SCOPES } from '../protocol/api-key.ts'
import { newId } from '../storage/ids.ts'
import type { Store } from '../store/store.ts'
import { DB, type Db } from '../storage/repositories.ts'
import { runNow, type Unit } from '../storage/unit.ts'
import type { AgentRecord, NewAgent } from '../domain/records.ts'
import { join } from 'node:path'
import type { Credentials } from '../agent/connection.ts'
import { AgentKey } from '../agent/identity.ts'
import { Ledger } from '../agent/ledger.ts'
import { VERSION } from '../domain/version.ts'

/** Where the built-in agent keeps its key, in the data directory. */
export const BUILTIN_AGENT_DIR = 'agent'
const AGENT_ID = 'agent_id'
const KEY_ID = 'key_id'

export const SERVER_ID_SETTING = 'server_id'
export const DEFAULT_PROJECT_NAME = 'default'
/** A virtual printer, so a fresh hub can take a job at once (documented, removable). */
export const DEMO_PRINTER = {
  remoteId: 'demo',
  name: 'Demo printer (virtual)',
  connection: 'virtual',
  profile: 'generic-80mm',
  width: 80,
} as const

export type InitResult =
  | {
      created: true
      projectId: string
      apiKey: string
      keyId: string
      keyPrefix: string
      printerId: string
      serverId: string
    }
  | { created: false; projectId: string; serverId: string }

const VERSION_SETTING = 'version'

/**
 * Notes in the audit log that this start runs another printhub than the last one did, or brought
 * an older database up to date (`hub.upgrade`, on this machine): once per change of version.
 */
export function noteUpgrade(store: Store, migrated: { from: number; to: number } | undefined, version = VERSION): void {
  const before = store.settings.get(VERSION_SETTING)
  if (before === version) return
  store.commits.write(() => {
    store.settings.set(VERSION_SETTING, version)
    // A new hub (no version, nothing migrated from) is a first start, not an upgrade.
    if (before === undefined && !(migrated && migrated.from > 0)) return
    const schema = migrated && migrated.from > 0 ? `, schema ${migrated.from} → ${migrated.to}` : ''
    recordChange(store, {
      actor: THE_MACHINE,
      action: 'hub.upgrade',
      target: `${before ?? 'an older printhub'} → ${version}${schema}`,
    })
  })
}

/** The stored server identity, generated once. */
export function serverIdentity(store: Store): string {
  return store.settings.getOrSet(SERVER_ID_SETTING, newId('srv'))
}

/**
 * Initialises an empty store; on an initialised one it creates nothing and says so. Either way
 * the built-in agent is paired (again, if its key was lost).
 */
export async function initialize(store: Store, dataDir: string): Promise<InitResult> {
  const { agentId } = await pairBuiltinAgent(store, dataDir)
  return store.atomically(() => runNow(firstStartUnit(DB, agentId), store))
}

/**
 * A first start's data, on either store: the server identity, a default project with an API key, and a demo printer
 * of the built-in agent `agentId`; on a store that has a project already, nothing.
 */
export function* firstStartUnit(db: Db, agentId: string): Unit<InitResult> {
  const serverId = yield* db.settings.getOrSet(SERVER_ID_SETTING, newId('srv'))
  const existing = (yield* db.projects.list())[0]
  if (existing) return { created: false, projectId: existing.id, serverId }
  const project = yield* db.projects.create(DEFAULT_PROJECT_NAME)
  const { key, secret } = yield* db.apiKeys.create(project.id, API_KEY_SCOPES, 'default')
  yield* db.printers.add({ projectId: project.id, agentId, ...DEMO_PRINTER })
  return {
    created: true,
    projectId: project.id,
    apiKey: secret,
    keyId: key.id,
    keyPrefix: key.keyPrefix,
    printerId: DEMO_PRINTER.remoteId,
    serverId,
  }
}

/** The cluster's built-in agent as a node or `init --store` makes it when the data has none: a key no one holds. */
export async function newBuiltinAgent(): Promise<NewAgent> {
  return {
    name: 'built-in',
    version: VERSION,
    platform: process.platform,
    installationId: 'installation_builtin',
    publicKey: await AgentKey.ephemeral().publicKey(),
  }
}

/**
 * A cluster's built-in agent (the newest not revoked, as one hub's): the one its data came with, else `agent`, made
 * now. Run as a serializable change: of two nodes that find none at the same moment, one makes it and the other,
 * run again, finds it. Each node's agent authenticates over the link in its own process (hub/node-agent.ts).
 */
export function* clusterBuiltinAgent(db: Db, agent: NewAgent, now: number): Unit<AgentRecord> {
  const known = yield* db.agents.builtin()
  if (known) return known
  const paired = yield* db.agents.insert(agent, now, { builtin: true })
  return (yield* db.agents.get(paired.id))!
}

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
      {
        name: 'built-in',
        version: VERSION,
        platform: process.platform,
        installationId: 'installation_builtin',
        publicKey: await key.publicKey(),
      },
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
