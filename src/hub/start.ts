// Starts the hub: opens the store, initialises it on first start, and serves the API.
import { createApp, type RequestLog } from '../api/app.ts'
import { MAX_FRAME_BYTES } from '../protocol/limits.ts'
import { Store } from '../store/store.ts'
import type { HubConfig } from './config.ts'
import { initialize, type InitResult } from './init.ts'

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
    const init = initialize(store)
    const serverId = config.serverId ?? init.serverId
    const app = createApp({ store, config, serverId, now }, options.log ?? ((line) => console.log(line)))
    app.listen({
      hostname: config.host,
      port: config.port,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      // A backstop only: routes refuse oversized bodies themselves, in the error envelope, without
      // reading them; beyond this Bun itself answers a bare 413.
      maxRequestBodySize: 4 * MAX_FRAME_BYTES,
    })
    const server = app.server!
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
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
