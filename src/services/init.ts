// First start: the server identity, the built-in agent, a default project with an API key, and a
// demo printer.
import { API_KEY_SCOPES } from '../protocol/api-key.ts'
import { newId } from '../store/ids.ts'
import type { Store } from '../store/store.ts'
import { pairBuiltinAgent } from '../hub/builtin-agent.ts'

export const SERVER_ID_SETTING = 'server_id'
export const DEFAULT_PROJECT_NAME = 'default'
/** A virtual printer, so a fresh hub can take a job at once (documented, removable). */
export const DEMO_PRINTER = { remoteId: 'demo', name: 'Demo printer (virtual)', connection: 'virtual', profile: 'generic-80mm', width: 80 } as const

export type InitResult =
  | { created: true; projectId: string; apiKey: string; keyId: string; keyPrefix: string; printerId: string; serverId: string }
  | { created: false; projectId: string; serverId: string }

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
  return store.db
    .transaction((): InitResult => {
      const serverId = serverIdentity(store)
      const existing = store.projects.list()[0]
      if (existing) return { created: false, projectId: existing.id, serverId }
      const project = store.projects.create(DEFAULT_PROJECT_NAME)
      const { key, secret } = store.apiKeys.create(project.id, API_KEY_SCOPES, 'default')
      store.printers.add({ projectId: project.id, agentId, ...DEMO_PRINTER })
      return { created: true, projectId: project.id, apiKey: secret, keyId: key.id, keyPrefix: key.keyPrefix, printerId: DEMO_PRINTER.remoteId, serverId }
    })
    .immediate()
}
