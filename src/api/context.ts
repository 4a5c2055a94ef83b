import type { HubConfig } from '../hub/config.ts'
import type { Store } from '../store/store.ts'

/** What the routes work with: the store, the resolved configuration and the server's identity. */
export interface ApiContext {
  store: Store
  config: Readonly<HubConfig>
  serverId: string
  now: () => number
}
