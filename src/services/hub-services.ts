// The services as the edges get them: one object holding every operation that changes the hub's
// data (each checks its rules, writes through the store with its audit entry, and returns an
// outcome) and the reads the edges show. The edges (cli/, admin/, api/, dashboard/, polling/)
// never see the store: the hub (hub/start.ts) composes this over its store, the CLI opens one over
// a data directory's (hub/open-services.ts). A second store implements the repositories below this;
// nothing above changes.
import type { Store } from '../store/store.ts'
import { AccountService } from './accounts.ts'
import { AdminAccess } from './admin-access.ts'
import { type AgentConnections, AgentService } from './agents.ts'
import { AuditLog } from './audit.ts'
import { DestinationService } from './destinations.ts'
import { ImageService } from './images.ts'
import { clusterBuiltinAgent, firstStartUnit, initialize, type InitResult, newBuiltinAgent } from './init.ts'
import { JobQueries } from './job-queries.ts'
import { type Overview, type OverviewSources, overviewUnit } from './overview.ts'
import type { Liveness } from './printer-states.ts'
import { type EventSignal, ProjectEvents } from './project-events.ts'
import { type EditableSettings, LiveSettings } from './live-settings.ts'
import { JobService, type NewJobListener } from './jobs.ts'
import { type PrinterNews, PrinterService } from './printers.ts'
import { KeyService, ProjectService } from './projects.ts'
import { SqliteUnits } from '../store/units.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import { WebhookService } from './project-webhooks.ts'

/** A store's jobs outside a running hub (the CLI): no dispatcher hears of them; the hub's sweep finds what changed. */
const NO_DISPATCHER: NewJobListener = { jobCreated: () => {}, cancelRequested: () => {} }

/** What the running hub adds to its services; without them (the CLI), its data is changed where it is kept. */
export interface HubParts {
  /** The clock, in milliseconds since the epoch. */
  now?: () => number
  /** The hub's jobs: with its dispatcher, disk guard and failover. */
  jobs?: JobService
  /** The agents' connections, ended when an agent is revoked. */
  connections?: AgentConnections
  /** The printer board, told of printers added. */
  board?: PrinterNews
  /** The webhooks' sender, told when a delivery waits. */
  webhookSender?: { tick(): void }
  /** Where units of work run (the hub's, shared with its settings); by default at once on the store. */
  units?: UnitRunner
  /** Who tells of projects' new events: by default the SQLite store; a cluster's hints on PostgreSQL. */
  events?: EventSignal
  /** A mark that moves when the data may have changed (the dashboard's sign): by default the SQLite store's count. */
  changes?: () => Promise<string>
}

/** What is not yet written for both stores, asked of a hub on PostgreSQL: said so, naming what it needs. */
export class NotOnPostgresError extends Error {
  constructor(what: string) {
    super(
      `this is not offered on PostgreSQL (it needs the store's ${what}): see docs/cluster.md, "What runs on a cluster"`,
    )
    this.name = 'NotOnPostgresError'
  }
}

export class HubServices {
  /** Jobs submitted, reprinted and cancelled. */
  readonly jobs: JobService
  /** What the edges read of jobs. */
  readonly jobQueries: JobQueries
  readonly projects: ProjectService
  /** Projects' API keys. */
  readonly keys: KeyService
  readonly printers: PrinterService
  readonly destinations: DestinationService
  /** Paired agents and pairing codes. */
  readonly agents: AgentService
  readonly webhooks: WebhookService
  /** Projects' stored images (logos). */
  readonly images: ImageService
  /** Each project's events, for applications' streams. */
  readonly events: ProjectEvents
  /** The dashboard's accounts. */
  readonly accounts: AccountService
  /** Signing in, sessions and admin tokens. */
  readonly access: AdminAccess
  /** The audit log's pages, and the backups noted in it. */
  readonly audit: AuditLog
  /** Where the services ported to units of work run them. */
  private readonly units: UnitRunner

  /** The SQLite store (none on PostgreSQL), for what is not yet written for both stores. */
  private readonly sqlite: Store | undefined
  private readonly now: () => number
  private readonly changeMark: (() => Promise<string>) | undefined

  /** Over a SQLite store, or (`store` undefined) over `parts.units`, a PostgreSQL store's. */
  constructor(store: Store | undefined, parts: HubParts = {}) {
    const now = parts.now ?? Date.now
    this.now = now
    this.sqlite = store
    this.changeMark = parts.changes
    // The services ported to units of work run them here (storage/unit.ts): on this store, at once.
    const units = parts.units ?? (store && new SqliteUnits(store))
    if (!units) throw new TypeError('the services need a store')
    this.units = units
    this.jobs = parts.jobs ?? new JobService({ store, units, listener: NO_DISPATCHER })
    this.jobQueries = new JobQueries(units)
    this.projects = new ProjectService(units)
    this.keys = new KeyService(units)
    this.printers = new PrinterService(units, this.jobs, parts.board)
    this.destinations = new DestinationService(units)
    this.agents = new AgentService(units, this.jobs, parts.connections, now)
    this.webhooks = new WebhookService(units, now, () => parts.webhookSender?.tick())
    this.images = new ImageService(units, this.jobs.capacity)
    this.events = new ProjectEvents(
      units,
      parts.events ?? { listen: (told) => this.store('events').events.listen(told) },
    )
    this.accounts = new AccountService(units, now)
    this.access = new AdminAccess(units)
    this.audit = new AuditLog(units)
  }

  /**
   * Initialises the data directory's store on its first start (the server identity, a default project with an API key,
   * a demo printer); on an initialised one it creates nothing and says so. The built-in agent is paired either way.
   */
  async initialize(dataDir: string): Promise<InitResult> {
    if (this.sqlite) return initialize(this.sqlite, dataDir)
    // A cluster's: its built-in agent has no key to keep (each node's agent makes its own), so nothing of it is in
    // `dataDir`.
    const agent = await newBuiltinAgent()
    const now = this.now()
    return this.units.write(function* (db) {
      const builtin = yield* clusterBuiltinAgent(db, agent, now)
      return yield* firstStartUnit(db, builtin.id)
    })
  }

  /**
   * The settings the dashboard changes while the hub runs, as saved over `defaults` (the configuration's); `pinned`
   * (the environment's) stay as they are: the one holder every part of the hub reads them from, at each use.
   */
  liveSettings(defaults: EditableSettings, pinned: LiveSettings['pinned'] = []): Promise<LiveSettings> {
    return LiveSettings.open(this.units, defaults, pinned)
  }

  /** What the dashboard's overview shows: the printers, today's jobs, the hub, its agents, connected as `live` says. */
  overview(sources: OverviewSources, live: Liveness): Promise<Overview> {
    return this.units.read((db) => overviewUnit(db, sources, live))
  }

  /** Settles once every change made so far is on disk (an answer that must not come before). */
  durable(): Promise<void> {
    return this.units.durable()
  }

  /** A mark that moves when the hub's data changed, whatever changed it: the dashboard's sign that something did. */
  async changes(): Promise<string> {
    return this.changeMark ? this.changeMark() : String(this.store('count of changes').changes())
  }

  /** A mark that moves whenever any stored row may have changed (see Store.changeStamp). */
  changeStamp(): string | undefined {
    return this.sqlite?.changeStamp()
  }

  /** The SQLite store, for `what` is not yet written for both stores. */
  private store(what: string): Store {
    if (!this.sqlite) throw new NotOnPostgresError(what)
    return this.sqlite
  }
}
