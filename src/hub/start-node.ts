// Starts a node of a cluster (docs/cluster.md): the same program as one hub, serving from the cluster's PostgreSQL
// database instead of a data directory's SQLite file. Its data directory keeps only what is the node's own: its
// lock, its identity in the cluster. It joins the cluster, takes the agents that connect to it and the built-in
// agent's printers under leases, drives those printers (dispatcher/cluster.ts), and serves the public API over the
// shared data: a job accepted by any node is printed once, by the node that holds its printer.
//
// What a node serves so far: the public API (jobs, their events, the printers and their states across nodes,
// pairing, discovery, the gateway), the admin API and the dashboard over the same data, and the built-in agent's
// printers it took, driven by its own agent (node-agent.ts): the network printers spread over the nodes, each printer
// that polls driven by the node it polls.
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import type { ApiContext } from '../api/context.ts'
import { ClusterDispatcher } from '../dispatcher/cluster.ts'
import { VERSION } from '../domain/version.ts'
import { Gateway } from '../gateway/gateway.ts'
import { SessionRegistry } from '../gateway/registry.ts'
import type { AdminContext } from '../admin/context.ts'
import { conflict } from '../http/errors.ts'
import { logRequest } from '../http/app.ts'
import { SubmissionQuota } from '../http/submission-quota.ts'
import { PgEventSignal } from '../pgstore/event-signal.ts'
import type { PgStore } from '../pgstore/pg-store.ts'
import type { FailureCountsOf } from '../domain/failure-limit.ts'
import { lockDataDir } from '../platform/data-dir-lock.ts'
import { writeFileDurably } from '../platform/durable-file.ts'
import { Log } from '../platform/log.ts'
import { commonAdminParts, hubApp } from './app.ts'
import { attachedHere } from '../transports/attached.ts'
import { CloudPrnt } from '../transports/cloudprnt.ts'
import { DeviceFinder } from '../transports/devices.ts'
import { loadUsbBackend } from '../transports/usb-bulk.ts'
import { EpsonSdp } from '../transports/epson-sdp.ts'
import { ReceiptImages } from '../workers/receipt-images.ts'
import { printhubServerVersion } from '../protocol/extensions.ts'
import { HubServices } from '../services/hub-services.ts'
import { nodeBoard } from './node-board.ts'
import type { BuiltinAgent } from './builtin-agent.ts'
import { clusterBuiltinAgent, newBuiltinAgent, SERVER_ID_SETTING } from '../services/init.ts'
import { JobService } from '../services/jobs.ts'
import { LiveSettings } from '../services/live-settings.ts'
import { Housekeeping } from '../services/housekeeping.ts'
import {
  FAILOVER_WATCH_MS,
  RETENTION_FIRST_MS,
  RETENTION_MS,
  SETTINGS_RELOAD_MS,
  WEBHOOKS_MS,
} from '../workers/hub-workers.ts'
import { Failover } from '../services/failover.ts'
import { Workers } from '../workers/workers.ts'
import { DELIVERY_TIMEOUT_MS, WebhookSender } from '../services/webhooks.ts'
import { OPEN_BYTES_PER_PROJECT } from '../storage/job-creation.ts'
import { newId } from '../storage/ids.ts'
import { ConfigError, editableSettingsOf, type HubConfig } from './config.ts'
import { listenAsHub, localUrl } from './listen.ts'
import { openPostgresStore } from './postgres-store.ts'
import { startNodeAgent } from './node-agent.ts'
import {
  AGENT_RETURN_GRACE_MS,
  AUTHENTICATION_TIMEOUT_MS,
  CANCEL_GRACE_MS,
  HANDSHAKE_TIMEOUT_MS,
  type StartOptions,
  SWEEP_MS,
} from './start.ts'

/** The node's identity in the cluster, kept in its data directory: the same after a restart. */
const NODE_ID_FILE = 'node-id'
/** How often a node looks at every printer it drives, whatever hints it heard. */
const POLL_MS = 1_000
/** How often a node records the states of the printers it drives, beside each change its agent tells. */
const PRINTER_STATES_MS = 2_000
/** How often the maintenance node looks for printers whose driver's lease ran out. */
const LOST_PRINTERS_MS = 2_000
/** A webhook's claim outlasts its delivery's longest wait by this much. */
const WEBHOOK_CLAIM_SLACK_MS = 5_000

export interface ClusterNode {
  url: string
  /** While the cluster has no account: the one-time token of the dashboard's setup link this node made. */
  setupToken: string | undefined
  port: number
  nodeId: string
  serverId: string
  store: PgStore
  dispatcher: ClusterDispatcher
  sessions: SessionRegistry
  /** Gives its agents up (other nodes take them at once), stops serving, closes its connections to the database. */
  stop(): Promise<void>
}

/** The node's ID: read from its data directory, or made there on its first start. */
function nodeIdentity(dataDir: string): string {
  const file = join(dataDir, NODE_ID_FILE)
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim()
    if (/^node_[0-9a-f]{16}$/.test(id)) return id
    throw new ConfigError(`${file} is not a node's identity: remove it, and the node takes a new one`)
  }
  const id = `node_${randomBytes(8).toString('hex')}`
  writeFileDurably(file, `${id}\n`, 0o640)
  return id
}

export async function startClusterNode(
  config: Readonly<HubConfig>,
  storeUrl: string,
  options: StartOptions = {},
): Promise<ClusterNode> {
  const now = options.now ?? Date.now
  const logs =
    options.logger ??
    new Log({ format: 'text', level: 'info', journal: false }, options.events ?? ((line) => console.log(line)))
  const lock = lockDataDir(config.dataDir, 'serve')
  let settings: LiveSettings | undefined
  let store: PgStore
  try {
    store = await openPostgresStore(storeUrl, {
      now,
      jobLimits: {
        openJobs: () => settings?.values.maxOpenJobsPerProject ?? config.maxOpenJobsPerProject,
        openBytes: OPEN_BYTES_PER_PROJECT,
      },
    })
  } catch (error) {
    lock.release()
    throw error
  }
  try {
    const nodeId = nodeIdentity(config.dataDir)
    await store.joinCluster({ id: nodeId, name: hostname(), address: null, version: VERSION })
    const live = await LiveSettings.open(store, editableSettingsOf(config), config.pinned)
    settings = live
    // The server's identity, one for the whole cluster (what agents pair with), kept in the database's settings.
    const serverId =
      config.serverId ?? (await store.write((db) => db.settings.getOrSet(SERVER_ID_SETTING, newId('srv'))))
    const sessions = new SessionRegistry(logs.for('gateway'))
    // The cluster's built-in agent: its printers (`printhub printers add --store`) driven by this node's own agent.
    const made = await newBuiltinAgent()
    const builtin = await store.write((db) => clusterBuiltinAgent(db, made, now()))
    // Printers that poll, heard by this node: each driven by the node it polls (its requests routed to one node).
    const receipts = new ReceiptImages()
    let nodeAgent: BuiltinAgent | undefined
    const polling = {
      cloudPrnt: new CloudPrnt({
        now,
        confirmTimeoutMs: config.cloudPrntConfirmMs,
        toPng: (bytes, model) => receipts.printed(bytes, model),
        changed: () => nodeAgent?.agent.printerNews(),
      }),
      epsonSdp: new EpsonSdp({
        now,
        confirmTimeoutMs: config.cloudPrntConfirmMs,
        changed: () => nodeAgent?.agent.printerNews(),
      }),
    }
    // Printers attached to one machine: each taken by a node on its machine.
    const devices = new DeviceFinder()
    const dispatcher = new ClusterDispatcher(
      store,
      sessions,
      {
        nodeId,
        leaseMs: () => live.values.clusterLeaseSeconds * 1000,
        pollMs: POLL_MS,
        ackTimeoutMs: config.ackTimeoutMs,
        retry: () => ({ initialMs: live.values.retryInitialMs, maxMs: live.values.retryMaxMs, jitter: 0.2 }),
        cancelGraceMs: CANCEL_GRACE_MS,
        sweepMs: SWEEP_MS,
        agentReturnGraceMs: AGENT_RETURN_GRACE_MS,
        now,
        log: logs.for('dispatcher'),
        agentChanged: (agentId) => board.recordAgent(agentId),
        attachedHere: (connection) => attachedHere(connection, { devices, usb: loadUsbBackend }),
        heardPolling: (connection) =>
          connection.kind === 'cloudprnt'
            ? polling.cloudPrnt.lastHeard(connection.mac)
            : polling.epsonSdp.lastHeard(connection.id),
      },
      builtin.id,
    )
    const board = nodeBoard(store, {
      printers: dispatcher.nodePrinters,
      // What the printer said of itself, else what the node's agent says of it (as one hub reads its agent's
      // inventory).
      learned: (agentPrinterId) =>
        nodeAgent?.agent.printerState(agentPrinterId) ?? nodeAgent?.agent.printerAvailability(agentPrinterId),
      now,
      log: logs.for('printer'),
    })
    const gateway = new Gateway(
      {
        serverId,
        serverName: () => live.values.serverName,
        serverVersion: printhubServerVersion(config.serverVersion),
        challengeTtlMs: config.challengeTtlSeconds * 1000,
        authenticationTimeoutMs: AUTHENTICATION_TIMEOUT_MS,
        handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
        heartbeatIntervalMs: config.heartbeatIntervalMs,
        heartbeatTimeoutMs: config.heartbeatTimeoutMs,
        now,
        credential: (agentId, keyId) => store.read((db) => db.agents.credential(agentId, keyId)),
        log: logs.for('gateway'),
      },
      sessions,
    )
    // A failover destination's job goes to its first printer that can print, as the leases said within a second.
    const jobs = new JobService({ units: store, listener: dispatcher, liveness: () => board.recentLiveness() })
    const failover = new Failover(
      store,
      () => board.liveness(),
      (printerId) => dispatcher.jobCreated(printerId),
      {
        afterMs: config.failoverAfterMs,
        now,
        log: logs.for('failover'),
      },
    )
    const events = new PgEventSignal(store)
    // Each webhook's deliveries sent by one node at a time, under a lease while it sends one.
    const webhooks = new WebhookSender(
      {
        units: store,
        events,
        claim: async (webhookId) => {
          const resource = `webhook:${webhookId}`
          const lease = await store.takeLease(resource, nodeId, DELIVERY_TIMEOUT_MS + WEBHOOK_CLAIM_SLACK_MS)
          return lease && (() => store.releaseLease(resource, nodeId, lease.fence))
        },
      },
      { now, log: logs.for('webhooks') },
    )
    const services = new HubServices(undefined, {
      now,
      jobs,
      connections: sessions,
      units: store,
      events,
      webhookSender: webhooks,
      changes: () => store.changeMark(),
    })
    const stopping = new AbortController()
    // Failed attempts of what is guessed by trying (pairing codes, passwords) counted in the database: their limits
    // hold across nodes.
    const failureCounts: FailureCountsOf = (scope, bounds, lockedOut) => store.failureCounts(scope, bounds, lockedOut)
    const api: ApiContext = {
      services,
      serverId,
      serverName: () => live.values.serverName,
      serverVersion: config.serverVersion,
      challengeTtlSeconds: config.challengeTtlSeconds,
      now,
      gateway,
      capacity: jobs.capacity,
      submissions: new SubmissionQuota(
        () => ({ jobsPerMinute: config.keyJobsPerMinute, bytesPerMinute: config.keyMbPerMinute * 1_048_576 }),
        now,
      ),
      // Printers' states across the cluster: connected while some node holds the lease of their agent (or, for the
      // built-in agent's, their own); what a printer said of itself, as the node driving it recorded it.
      board,
      // Pairing attempts counted in the database: their limit holds across nodes.
      failureCounts,
      stopping: stopping.signal,
    }
    const admin: AdminContext = {
      // `Detect` finds the printers plugged into this node's machine (one attached there belongs to an agent on it).
      ...commonAdminParts(
        config,
        { log: logs.for('admin'), services, settings: live, serverId, now, receipts },
        () => app.server?.port ?? config.port,
      ),
      liveness: () => board.liveness(),
      // Wrong passwords counted in the database, as pairing attempts are.
      failureCounts,
      stopping: stopping.signal,
      downloadBackup: () => {
        throw conflict(
          "The cluster's data is in PostgreSQL: back it up with PostgreSQL's own tools (pg_dump, or the " +
            'continuous archiving the database runs with); see docs/cluster.md.',
        )
      },
      pollingPrinters: () => [...polling.cloudPrnt.list(), ...polling.epsonSdp.list()],
    }
    const requests = logs.for('api')
    const app = hubApp({
      api,
      admin,
      polling,
      requests: options.log ?? ((entry) => logRequest(requests, entry)),
      errors: requests,
      firstWork: options.firstWork,
    })
    listenAsHub(app, config)
    // While the cluster has no account: a link to make the first owner, unless another node's is still valid.
    const setupToken = await services.accounts.setupLink({ keepValid: true })
    // The node's background work: the settings another process saved, the webhooks' outbox, and, on the node that
    // does the cluster's maintenance, retention.
    const housekeeping = new Housekeeping(store, {
      retentionDays: () => live.values.retentionDays,
      historyBytesPerProject: () => live.values.historyMbPerProject * 1_048_576,
      // The database's disk is its server's, watched by its operator: the retention period is kept as set.
      diskLow: () => false,
      now,
      log: logs.for('retention'),
    })
    let stopListening = () => {}
    const workers = new Workers(logs.for('hub'))
      .add({ name: 'settings', everyMs: SETTINGS_RELOAD_MS, pass: () => live.reload() })
      .add({ name: 'receipt pictures', stop: () => receipts.close() })
      .add({
        name: 'webhooks',
        log: logs.for('webhooks'),
        everyMs: WEBHOOKS_MS,
        firstAfterMs: 0,
        pass: () => webhooks.tick(),
        start: (wake) => (stopListening = webhooks.listen(wake)),
        stop: () => {
          stopListening()
          webhooks.stop()
        },
      })
      // Failover's watch, for every destination of the cluster, on the node that does the maintenance.
      .add({
        name: 'failover',
        log: logs.for('failover'),
        everyMs: FAILOVER_WATCH_MS,
        pass: async () => void (dispatcher.maintaining && (await failover.watch())),
      })
      // What the printers this node drives say of themselves, recorded where every node reads it: at each change its
      // agent tells, and now and then, for what it learned without telling (a printer it has just taken).
      .add({
        name: 'printer states',
        log: logs.for('printer'),
        everyMs: PRINTER_STATES_MS,
        pass: () => void ((dispatcher.nodePrinters?.leases.size ?? 0) > 0 && board.recordAgent(builtin.id)),
      })
      // The printers of a node that died, recorded offline (with their events) once their leases ran out a while.
      .add({
        name: 'lost printers',
        log: logs.for('printer'),
        everyMs: LOST_PRINTERS_MS,
        pass: async () =>
          void (dispatcher.maintaining && (await board.recordLost(live.values.clusterLeaseSeconds * 1000))),
      })
      .add({
        name: 'retention',
        log: logs.for('retention'),
        everyMs: RETENTION_MS,
        firstAfterMs: RETENTION_FIRST_MS,
        pass: async (signal) => void (dispatcher.maintaining && (await housekeeping.pass(signal))),
      })
    await dispatcher.start()
    workers.start()
    const port = app.server!.port!
    const agent = (nodeAgent = await startNodeAgent({
      nodeId,
      printers: dispatcher.nodePrinters!,
      gateway,
      confinement: admin.printerConfinement(),
      statusPollMs: config.statusPollMs,
      log: logs.for('agent'),
      // What a printer says of itself is recorded where every node reads it (its history, as one hub keeps it).
      printerStateChanged: () => board.recordAgent(builtin.id),
      polling,
    }))
    logs.for('hub').info(`node ${nodeId} of the cluster serves on port ${port}`, { node: nodeId, port })
    return {
      url: localUrl(config, port),
      setupToken,
      port,
      nodeId,
      serverId,
      store,
      dispatcher,
      sessions,
      async stop() {
        stopping.abort()
        await workers.stop()
        // Its agent first: what it prints ends before another node may take its printers.
        await agent.stop()
        await dispatcher.stop()
        polling.cloudPrnt.stop()
        polling.epsonSdp.stop()
        await app.stop()
        await store.close()
        lock.release()
        logs.flush()
      },
    }
  } catch (error) {
    await store.close()
    lock.release()
    throw error
  }
}
