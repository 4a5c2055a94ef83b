// Starts the hub: opens the store, puts the parts together (the gateway and its session
// registry, the dispatcher, the services, the HTTP edges, the built-in agent), serves, and
// initialises the store on first start.
import type { AdminContext } from '../admin/context.ts'
import type { ApiContext } from '../api/context.ts'
import { Dispatcher } from '../dispatcher/dispatcher.ts'
import { Gateway } from '../gateway/gateway.ts'
import { SessionRegistry } from '../gateway/registry.ts'
import { logRequest, type RequestLog } from '../http/app.ts'
import { FailureRateLimit } from '../http/failure-rate-limit.ts'
import { SubmissionQuota } from '../http/submission-quota.ts'
import { HubClock } from '../platform/hub-clock.ts'
import { Log } from '../platform/log.ts'
import type { FailureCountsOf } from '../domain/failure-limit.ts'
import { VERSION } from '../domain/version.ts'
import { lockDataDir } from '../platform/data-dir-lock.ts'
import { printhubServerVersion } from '../protocol/extensions.ts'
import { initialize, type InitResult, noteUpgrade, serverIdentity } from '../services/init.ts'
import { DiskGuard } from '../workers/disk-guard.ts'
import {
  BackupRunner,
  BackupSchedule,
  clearDownloads,
  downloadBackup,
  type ScheduleTimes,
} from '../workers/backup-schedule.ts'
import { hubWorkers } from '../workers/hub-workers.ts'
import { ClockWatch } from '../services/clock.ts'
import { Housekeeping } from '../services/housekeeping.ts'
import { WebhookSender } from '../services/webhooks.ts'
import { Failover } from '../services/failover.ts'
import { JobService } from '../services/jobs.ts'
import { HubServices } from '../services/hub-services.ts'
import { LiveSettings } from '../services/live-settings.ts'
import { PrinterBoard } from '../services/printer-board.ts'
import { ReceiptImages } from '../workers/receipt-images.ts'
import { Store } from '../store/store.ts'
import { SqliteUnits } from '../store/units.ts'
import { VirtualPrinters } from '../transports/virtual.ts'
import { commonAdminParts, hubApp } from './app.ts'
import { IDLE_TIMEOUT_SECONDS, listenAsHub, localUrl } from './listen.ts'
import { backupInChildProcess } from './backup-process.ts'
import { type BuiltinAgent, startBuiltinAgent } from './builtin-agent.ts'
import { editableSettingsOf, type HubConfig } from './config.ts'
import { takeCommitRequests } from './open-services.ts'
import { CloudPrnt } from '../transports/cloudprnt.ts'
import { EpsonSdp } from '../transports/epson-sdp.ts'

/** Handshake and authentication bounds of the reference server (section 3.5). */
/** An agent answers the challenge at once; a stranger's connection is closed soon (gateway/admission.ts). */
export const AUTHENTICATION_TIMEOUT_MS = 10_000
export const HANDSHAKE_TIMEOUT_MS = 10_000
/** A stock agent never answers a cancellation; after this long without a report it is taken as done. */
export const CANCEL_GRACE_MS = 30_000
/** How often expiry and cancellations are looked for. */
export const SWEEP_MS = 500
/**
 * How long an agent that holds jobs may stay away before the hub gives up on those whose time ran
 * out: longer than a reconnecting agent's longest wait (60 s, +20 %).
 */
export const AGENT_RETURN_GRACE_MS = 120_000

export { IDLE_TIMEOUT_SECONDS }

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
  /** The agents connected now, each with its newest session. */
  sessions: SessionRegistry
  /** The built-in agent's virtual printers (what they printed). */
  virtualPrinters: VirtualPrinters
  /** The printers that poll the hub for their jobs (Star CloudPRNT, Epson Server Direct Print). */
  cloudPrnt: CloudPrnt
  epsonSdp: EpsonSdp
  builtinAgent: BuiltinAgent
  /** The scheduled backups (a look at the backup directory can be asked for at once). */
  backups: BackupSchedule
  /** Every route the hub answers, as its HTTP app has them (method and path). */
  routes(): { method: string; path: string }[]
  /** Stops accepting, lets in-flight requests finish, commits and closes the store. */
  stop(): Promise<void>
}

export interface StartOptions {
  /** The hub's log (serve's, with its format and level); by default text lines to `events`. */
  logger?: Log
  /** Where request lines go, when not to the hub's log (tests that read them). */
  log?: RequestLog
  /** Where the default log writes its lines (stdout when not given). */
  events?: (line: string) => void
  now?: () => number
  /** Called once, with the first request that is not a liveness check (serve: the normal JIT policy from then on). */
  firstWork?: () => void
  /** The scheduled backups' timing (tests make it short), and the printhub that makes backups (this one by default). */
  backups?: { times?: ScheduleTimes; printhub?: string[] }
}

export async function startHub(config: Readonly<HubConfig>, options: StartOptions = {}): Promise<Hub> {
  // The hub's time runs on the monotonic clock from the start, and follows the wall clock's jumps only as the clock
  // watch moves what waits with them (services/clock.ts). Tests that give a time keep it.
  const clock = options.now ? undefined : new HubClock()
  const now = options.now ?? clock!.now
  // Rate windows and lockouts live in memory only: measured on the monotonic clock itself, never moved by a jump.
  const elapsed = options.now ?? (() => performance.now())
  const logs =
    options.logger ??
    new Log({ format: 'text', level: 'info', journal: false }, options.events ?? ((line) => console.log(line)))
  const log = logs.for('hub')
  // One hub per data directory: taken before the database is opened, held until stop().
  const lock = lockDataDir(config.dataDir, 'serve')
  let store: Store
  // The settings the dashboard changes, read at each use by every part (the store's limit of unfinished jobs too):
  // saved in the store, so they are there once it is open.
  let settings: LiveSettings | undefined
  // Migrations are stamped with the system clock: those applied from here on are this start's.
  const opening = Date.now()
  try {
    store = Store.open({
      dataDir: config.dataDir,
      create: true,
      maxOpenJobsPerProject: () => settings?.values.maxOpenJobsPerProject ?? config.maxOpenJobsPerProject,
      now,
      log: logs.for('store'),
      redo: true,
    })
  } catch (error) {
    lock.release()
    throw error
  }
  // A command beside the hub asks it to commit its batch now (hub/open-services.ts).
  const stopCommitRequests = takeCommitRequests(() => store.commits.commitForOthers())
  try {
    // A database of an older printhub brought up to date: an upgrade, said once (a new one is not).
    const migrated = store.migratedSince(opening)
    if (migrated && migrated.from > 0)
      log.info(`upgraded the database from schema ${migrated.from} to ${migrated.to} (printhub ${VERSION})`, {
        from: migrated.from,
        to: migrated.to,
        version: VERSION,
      })
    noteUpgrade(store, migrated)
    const applied = store.redoApplied()
    if (applied > 0)
      log.info(
        `the last run ended without closing the database (a crash or a power cut): ${applied} records of its redo ` +
          'log, changes that were on disk there only, were applied',
        { records: applied },
      )
    // A database in an older file format (4 KB pages, no pages given back): rewritten once.
    const format = store.upgradeFileFormat()
    if (format === 'rewritten')
      log.info(
        'the database was rewritten once in the newest file format: space freed by retention goes back to the ' +
          'disk, and a job writes less to it',
      )
    else if (format !== 'unchanged')
      log.warn(
        'the database could not be rewritten in the newest file format; it works as it is, and the next ' +
          'start tries again',
        { error: format.failed },
      )
    const serverId = config.serverId ?? serverIdentity(store)
    // Units of work run on this store at once (storage/unit.ts): the settings' and the services' alike.
    const units = new SqliteUnits(store)
    const live = await LiveSettings.open(units, editableSettingsOf(config), config.pinned)
    settings = live
    let builtinAgent: BuiltinAgent | undefined
    const sessions = new SessionRegistry(logs.for('gateway'))
    const isConnected = (agentId: string) => sessions.isConnected(agentId)
    const board = new PrinterBoard(
      store,
      { isConnected, builtinState: (printerId) => builtinAgent?.agent.printerState(printerId), now },
      logs.for('printer'),
    )
    const dispatcher = new Dispatcher(store, sessions, {
      ackTimeoutMs: config.ackTimeoutMs,
      retry: () => ({ initialMs: live.values.retryInitialMs, maxMs: live.values.retryMaxMs, jitter: 0.2 }),
      agentChanged: (agentId) => board.recordAgent(agentId),
      cancelGraceMs: CANCEL_GRACE_MS,
      sweepMs: SWEEP_MS,
      agentReturnGraceMs: AGENT_RETURN_GRACE_MS,
      now,
      log: logs.for('dispatcher'),
    })
    const gatewaySettings = {
      serverId,
      serverName: () => live.values.serverName,
      serverVersion: printhubServerVersion(config.serverVersion),
      challengeTtlMs: config.challengeTtlSeconds * 1000,
      authenticationTimeoutMs: AUTHENTICATION_TIMEOUT_MS,
      handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
      heartbeatIntervalMs: config.heartbeatIntervalMs,
      heartbeatTimeoutMs: config.heartbeatTimeoutMs,
      now,
      credential: (agentId: string, keyId: string) => store.agents.credential(agentId, keyId),
      log: logs.for('gateway'),
    }
    const gateway = new Gateway(gatewaySettings, sessions)
    const disk = new DiskGuard(config.dataDir, () => live.values.minFreeMb, logs.for('disk'))
    const failover = new Failover(
      units,
      () => board.live,
      (printerId) => dispatcher.jobCreated(printerId),
      {
        afterMs: config.failoverAfterMs,
        now,
        log: logs.for('failover'),
      },
    )
    const jobs = new JobService({ store, units, listener: dispatcher, capacity: disk, liveness: () => board.live })
    // What the edges get instead of the store: every change through one operation of the services.
    const webhooks = new WebhookSender(
      { units, events: store.events, wanted: (projectId) => store.webhooks.wanted(projectId) },
      { now, log: logs.for('webhooks') },
    )
    const services = new HubServices(store, { now, jobs, connections: sessions, board, webhookSender: webhooks, units })
    const housekeeping = new Housekeeping(
      units,
      {
        retentionDays: () => live.values.retentionDays,
        historyBytesPerProject: () => live.values.historyMbPerProject * 1_048_576,
        diskLow: () => disk.now().low,
        now,
        log: logs.for('retention'),
      },
      store.retention,
    )
    const backupRunner = new BackupRunner(backupInChildProcess(config.dataDir, options.backups?.printhub))
    const backups = new BackupSchedule(
      backupRunner,
      // Its backups are known by the server ID the database keeps (what their manifest says), even when
      // PRINTHUB_SERVER_ID overrides it.
      {
        dir: () => live.values.backupDir,
        keep: () => live.values.backupKeep,
        serverName: () => live.values.serverName,
        serverId: serverIdentity(store),
        now,
        log: logs.for('backup'),
      },
      options.backups?.times,
    )
    clearDownloads(config.dataDir)
    const stopping = new AbortController()
    const serverName = () => live.values.serverName
    const submissions = new SubmissionQuota(
      () => ({ jobsPerMinute: config.keyJobsPerMinute, bytesPerMinute: config.keyMbPerMinute * 1_048_576 }),
      elapsed,
    )
    const failureCounts: FailureCountsOf = (_scope, bounds, lockedOut) =>
      new FailureRateLimit(bounds, elapsed, lockedOut)
    const api: ApiContext = {
      services,
      serverId,
      serverName,
      serverVersion: config.serverVersion,
      challengeTtlSeconds: config.challengeTtlSeconds,
      now,
      gateway,
      capacity: disk,
      submissions,
      failureCounts,
      board,
      stopping: stopping.signal,
    }
    const receipts = new ReceiptImages()
    // Printers that poll: a job offered, fetched and confirmed; one that says something new is asked
    // again at once. A job fetched as a picture is drawn in the receipt worker, off the event loop.
    const cloudPrnt = new CloudPrnt({
      now,
      confirmTimeoutMs: config.cloudPrntConfirmMs,
      toPng: (bytes, model) => receipts.printed(bytes, model),
      changed: () => builtinAgent?.agent.printerNews(),
    })
    const epsonSdp = new EpsonSdp({
      now,
      confirmTimeoutMs: config.cloudPrntConfirmMs,
      changed: () => builtinAgent?.agent.printerNews(),
    })
    const admin: AdminContext = {
      ...commonAdminParts(
        config,
        { log: logs.for('admin'), services, settings: live, serverId, now, receipts },
        () => app.server?.port ?? config.port,
      ),
      liveness: async () => board.live,
      failureCounts,
      stopping: stopping.signal,
      downloadBackup: () =>
        downloadBackup(backupRunner, {
          dataDir: config.dataDir,
          serverName: serverName(),
          now: now(),
          log: logs.for('backup'),
        }),
      pollingPrinters: () => [...cloudPrnt.list(), ...epsonSdp.list()],
    }
    const requests = logs.for('api')
    const app = hubApp({
      api,
      admin,
      polling: { cloudPrnt, epsonSdp },
      requests: options.log ?? ((entry) => logRequest(requests, entry)),
      errors: requests,
      firstWork: options.firstWork,
    })
    listenAsHub(app, config)
    // Only now that the hub is listening: a first start's API key must reach the person who started it.
    const init = await initialize(store, config.dataDir)
    // Never a default password: whoever started the hub gets a link to make the first owner.
    const setupToken = await services.accounts.setupLink()
    // The background work, scheduled in one place: retention, failover's watch, the webhooks' outbox, the disk's
    // free space, the scheduled backups, the settings `printhub settings set` saved from another process.
    const workers = hubWorkers({
      settings: live,
      disk,
      failover,
      webhooks,
      housekeeping,
      backups,
      receipts,
      clock:
        clock &&
        new ClockWatch(units, clock, logs.for('clock'), [
          (byMs) => cloudPrnt.clockJumped(byMs),
          (byMs) => epsonSdp.clockJumped(byMs),
        ]),
      logs,
    })
    dispatcher.start()
    workers.start()
    for (const printerId of store.jobStates.printersWithQueuedJobs()) dispatcher.scheduleDispatch(printerId)
    const virtualPrinters = new VirtualPrinters()
    const builtin = store.agents.builtin()!
    const started = startBuiltinAgent({
      store,
      dataDir: config.dataDir,
      credentials: { agentId: builtin.id, keyId: builtin.keyId },
      gateway,
      virtuals: virtualPrinters,
      confinement: admin.printerConfinement(),
      statusPollMs: config.statusPollMs,
      log: logs.for('agent'),
      printerStateChanged: () => board.recordAgent(builtin.id),
      polling: { cloudPrnt, epsonSdp },
    })
    builtinAgent = started
    const server = app.server!
    return {
      url: localUrl(config, server.port!),
      port: server.port!,
      store,
      serverId,
      init,
      setupToken,
      dispatcher,
      sessions,
      virtualPrinters,
      cloudPrnt,
      epsonSdp,
      builtinAgent: started,
      backups,
      routes: () => app.routes.map((route) => ({ method: route.method, path: route.path })),
      async stop() {
        // The dispatcher first: attempts in flight stay as they are, to be sent again next start.
        // The agent takes no new job; while no new request is taken, it finishes the tickets
        // being written; then the database.
        dispatcher.stop()
        const workersStopped = workers.stop()
        stopping.abort()
        const agentStopped = started.stop()
        // Once the agent knows it is stopping: a job offered to a printer that polls stays the agent's, for the next
        // start.
        cloudPrnt.stop()
        epsonSdp.stop()
        await app.stop()
        await agentStopped
        await workersStopped
        stopCommitRequests()
        store.close()
        lock.release()
        // Counts of lines left out, while they still mean something.
        logs.flush()
      },
    }
  } catch (error) {
    stopCommitRequests()
    store.close()
    lock.release()
    throw error
  }
}
