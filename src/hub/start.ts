// Starts the hub: opens the store, serves the API, and initialises the store on first start.
import { createApp, formatRequestLog, type RequestLog } from '../api/app.ts'
import { Store } from '../store/store.ts'
import { ConfigError, type HubConfig, isWildcardHost } from './config.ts'
import { initialize, type InitResult, serverIdentity } from './init.ts'

/** Idle connections close after this many seconds; bodies have their own deadline. */
export const IDLE_TIMEOUT_SECONDS = 30

export interface Hub {
  /** Where the hub answers, e.g. http://127.0.0.1:8080. */
  url: string
  port: number
  store: Store
  serverId: string
  /** What the first start created, or that nothing was. */
  init: InitResult
  /** Stops accepting, lets in-flight requests finish, commits and closes the store. */
  stop(): Promise<void>
}

export interface StartOptions {
  log?: RequestLog
  now?: () => number
}

export async function startHub(config: Readonly<HubConfig>, options: StartOptions = {}): Promise<Hub> {
  const now = options.now ?? Date.now
  const store = Store.open({ dataDir: config.dataDir, create: true, maxOpenJobsPerProject: config.maxOpenJobsPerProject, now })
  try {
    const serverId = config.serverId ?? serverIdentity(store)
    const app = createApp({ store, config, serverId, now }, options.log ?? ((entry) => console.log(formatRequestLog(entry))))
    try {
      app.listen({
        hostname: config.host,
        port: config.port,
        idleTimeout: IDLE_TIMEOUT_SECONDS,
        // Elysia would share the port with another process; two hubs on one port would split
        // agents and jobs between two databases.
        reusePort: false,
        // The routes bound every body themselves, reading at most their limit, and answer in the
        // error envelope; Bun streams bodies, so it needs no limit of its own.
        maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      })
    } catch (error) {
      throw new ConfigError(`cannot listen on ${config.host} port ${config.port}: ${(error as Error).message} (is the address right and the port free?)`)
    }
    // Only now that the hub is listening: a first start's API key must reach the person who started it.
    const init = initialize(store)
    const server = app.server!
    const host = isWildcardHost(config.host) ? '127.0.0.1' : config.host
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`,
      port: server.port!,
      store,
      serverId,
      init,
      async stop() {
        await app.stop()
        store.close()
      },
    }
  } catch (error) {
    store.close()
    throw error
  }
}
