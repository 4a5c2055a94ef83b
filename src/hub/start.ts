// Starts the hub: opens the store, serves the API, and initialises the store on first start.
import { createSetupToken, hasAdminPassword } from '../services/admin-password.ts'
import { PrinterBoard } from '../services/printer-board.ts'
import { createApp, formatRequestLog, type RequestLog } from './app.ts'
import { Dispatcher } from '../dispatcher/dispatcher.ts'
import { Gateway } from '../gateway/gateway.ts'
import { MAX_WEBSOCKET_PAYLOAD, WEBSOCKET_IDLE_TIMEOUT_SECONDS } from '../api/routes/gateway.ts'
import { printhubServerVersion } from '../protocol/extensions.ts'
import { Store } from '../store/store.ts'
import { detectPrinters } from '../transports/detect.ts'
import { loadUsbBackend } from '../transports/usb-bulk.ts'
import { VirtualPrinters } from '../transports/virtual.ts'
import { type BuiltinAgent, startBuiltinAgent } from './builtin-agent.ts'
import { ConfigError, type HubConfig, isWildcardHost } from './config.ts'
import { initialize, type InitResult, serverIdentity } from '../services/init.ts'
import { LiveSettings } from '../services/live-settings.ts'
import { hubOnTheLan } from '../services/test-page.ts'

/** Handshake and authentication bounds of the reference server (section 3.5). */
const AUTHENTICATION_TIMEOUT_MS = 30_000
const HANDSHAKE_TIMEOUT_MS = 10_000
/** A stock agent never answers a cancellation; after this long without a report it is taken as done. */
const CANCEL_GRACE_MS = 30_000
/** How often expiry and cancellations are looked for. */
const SWEEP_MS = 500

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
  /** While no admin password is set: the one-time token of the dashboard's setup link (`/dashboard/setup#TOKEN`). */
  setupToken: string | undefined
  dispatcher: Dispatcher
  /** The built-in agent's virtual printers (what they printed). */
  virtualPrinters: VirtualPrinters
  builtinAgent: BuiltinAgent
  /** Stops accepting, lets in-flight requests finish, commits and closes the store. */
  stop(): Promise<void>
}

export interface StartOptions {
  log?: RequestLog
  /** Lines about agents and deliveries. */
  events?: (line: string) => void
  now?: () => number
}

export async function startHub(config: Readonly<HubConfig>, options: StartOptions = {}): Promise<Hub> {
  const now = options.now ?? Date.now
  const events = options.events ?? ((line) => console.log(line))
  const store = Store.open({ dataDir: config.dataDir, create: true, maxOpenJobsPerProject: config.maxOpenJobsPerProject, now, log: events })
  try {
    const serverId = config.serverId ?? serverIdentity(store)
    // The dashboard's settings change these objects in place: the dispatcher and the gateway read them at each use.
    const retry = { initialMs: config.retryInitialMs, maxMs: config.retryMaxMs, jitter: 0.2 }
    let builtinAgent: BuiltinAgent | undefined
    const isConnected = (agentId: string) => dispatcher.session(agentId) !== undefined
    const board = new PrinterBoard(store, { isConnected, builtinState: (printerId) => builtinAgent?.agent.printerState(printerId) })
    const dispatcher = new Dispatcher(store, {
      ackTimeoutMs: config.ackTimeoutMs,
      retry,
      agentChanged: (agentId) => board.recordAgent(agentId),
      cancelGraceMs: CANCEL_GRACE_MS,
      sweepMs: SWEEP_MS,
      now,
      log: events,
    })
    const gatewaySettings = {
      serverId,
      serverName: config.serverName,
      serverVersion: printhubServerVersion(config.serverVersion),
      challengeTtlMs: config.challengeTtlSeconds * 1000,
      authenticationTimeoutMs: AUTHENTICATION_TIMEOUT_MS,
      handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
      heartbeatIntervalMs: config.heartbeatIntervalMs,
      heartbeatTimeoutMs: config.heartbeatTimeoutMs,
      now,
      credential: (agentId: string, keyId: string) => store.agents.credential(agentId, keyId),
    }
    const gateway = new Gateway(gatewaySettings, dispatcher)
    const settings = new LiveSettings(store, config, (values) => {
      gatewaySettings.serverName = values.serverName
      retry.initialMs = values.retryInitialMs
      retry.maxMs = values.retryMaxMs
      store.jobs.openJobLimit = values.maxOpenJobsPerProject
    })
    const stopping = new AbortController()
    const app = createApp(
      {
        store,
        config,
        settings,
        serverId,
        now,
        gateway,
        jobCreated: (printerId) => dispatcher.created(printerId),
        board,
        startedAt: now(),
        lan: () => hubOnTheLan(settings.values.serverName, config.host, app.server?.port ?? config.port),
        isConnected,
        disconnectAgent: (agentId, code, reason) => dispatcher.disconnectAgent(agentId, code, reason),
        stopping: stopping.signal,
        detect: () => detectPrinters(undefined, loadUsbBackend),
      },
      options.log ?? ((entry) => console.log(formatRequestLog(entry))),
    )
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
        websocket: { maxPayloadLength: MAX_WEBSOCKET_PAYLOAD, idleTimeout: WEBSOCKET_IDLE_TIMEOUT_SECONDS, perMessageDeflate: false },
      })
    } catch (error) {
      throw new ConfigError(`cannot listen on ${config.host} port ${config.port}: ${(error as Error).message} (is the address right and the port free?)`)
    }
    // Only now that the hub is listening: a first start's API key must reach the person who started it.
    const init = await initialize(store, config.dataDir)
    // Never a default password: whoever started the hub gets a link to choose one.
    const setupToken = hasAdminPassword(store) ? undefined : createSetupToken(store, now())
    dispatcher.start()
    for (const printerId of store.jobStates.printersWithQueuedJobs()) dispatcher.kick(printerId)
    const virtualPrinters = new VirtualPrinters()
    const builtin = store.agents.builtin()!
    const started = startBuiltinAgent(store, config.dataDir, { agentId: builtin.id, keyId: builtin.keyId }, gateway, virtualPrinters, config.statusPollMs, events, () => board.recordAgent(builtin.id))
    builtinAgent = started
    const server = app.server!
    const host = isWildcardHost(config.host) ? '127.0.0.1' : config.host
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`,
      port: server.port!,
      store,
      serverId,
      init,
      setupToken,
      dispatcher,
      virtualPrinters,
      builtinAgent: started,
      async stop() {
        // The dispatcher first: attempts in flight stay as they are, to be sent again next start.
        // The agent takes no new job; while no new request is taken, it finishes the tickets
        // being written; then the database.
        dispatcher.stop()
        stopping.abort()
        const agentStopped = started.stop()
        await app.stop()
        await agentStopped
        store.close()
      },
    }
  } catch (error) {
    store.close()
    throw error
  }
}
