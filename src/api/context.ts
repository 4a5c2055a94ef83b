import type { Gateway } from '../gateway/gateway.ts'
import type { HubConfig } from '../hub/config.ts'
import type { LiveSettings } from '../services/live-settings.ts'
import type { Store } from '../store/store.ts'

/** What the routes work with: the store, the configuration, the server's identity, the gateway. */
export interface ApiContext {
  store: Store
  config: Readonly<HubConfig>
  /** The settings the dashboard changes while the hub runs (the server name among them). */
  settings: LiveSettings
  serverId: string
  now: () => number
  /** Where agent connections go. */
  gateway: Gateway
  /** Called for each job created, as soon as it is written and before it is committed. */
  jobCreated(printerId: string): void
}
