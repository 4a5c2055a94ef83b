// The store: the hub's one SQLite file and the repositories over it. All SQL lives in this folder.
import type { Database } from 'bun:sqlite'
import { AdminSessions, type SessionLifetime } from './admin-sessions.ts'
import { AdminTokens } from './admin-tokens.ts'
import { Agents } from './agents.ts'
import { ApiKeys } from './api-keys.ts'
import { HUB_SCHEMA, openHubDatabase } from './database.ts'
import { redoApplied, upgradeFileFormat } from '../sqlite/database.ts'
import { unlessLocked } from '../sqlite/errors.ts'
import { BatchedCommit } from '../sqlite/batched-commit.ts'
import { GroupCommit } from '../sqlite/group-commit.ts'
import { changeStamp } from '../sqlite/change-stamp.ts'
import { JobStates } from './job-states.ts'
import { Jobs } from './jobs.ts'
import { PairingCodes } from './pairing-codes.ts'
import { PrinterStates } from './printer-states.ts'
import { Printers } from './printers.ts'
import { ClockDeadlines } from './clock-deadlines.ts'
import { Retention } from './retention.ts'
import { Projects } from './projects.ts'
import { Settings } from './settings.ts'
import { Events } from './events.ts'
import { Webhooks } from './webhooks.ts'
import { ProjectImages } from './images.ts'
import { Destinations } from './destinations.ts'
import { JobLog } from './job-log.ts'
import { FanOuts } from './fan-outs.ts'
import { Users } from './users.ts'
import { AuditLog } from './audit.ts'
import { describeError, Log, type Logger } from '../platform/log.ts'
import { ADMIN_SESSION_LIFETIME } from '../domain/accounts.ts'

export interface StoreOptions {
  dataDir: string
  /** Create the data directory and database when missing (serve and init); otherwise refuse. */
  create: boolean
  /** Unfinished jobs one project may have (the entitlement limit): a number, or the live setting read at each use. */
  maxOpenJobsPerProject: number | (() => number)
  /** The clock, in milliseconds since the epoch. */
  now?: () => number
  /**
   * Where a failed commit is told (a disk error; the store goes on), and, for component `job`, each
   * job's state changes once on disk. Without it, failed commits go to stderr and jobs are not logged.
   */
  log?: Logger
  /** How long dashboard sessions last (default ADMIN_SESSION_LIFETIME). */
  sessionLifetime?: SessionLifetime
  /**
   * Batches made durable by the redo log (sqlite/redo-batch.ts): only for the process that owns the data directory
   * (the hub, holding its lock), never for the CLI beside it.
   */
  redo?: boolean
}

export { ADMIN_SESSION_LIFETIME }

export class Store {
  readonly settings: Settings
  readonly projects: Projects
  readonly apiKeys: ApiKeys
  readonly printers: Printers
  readonly jobs: Jobs
  /** The serving process's changes, committed once per turn of the event loop. */
  readonly commits: GroupCommit
  readonly jobStates: JobStates
  readonly agents: Agents
  readonly pairingCodes: PairingCodes
  readonly printerStates: PrinterStates
  readonly adminSessions: AdminSessions
  readonly adminTokens: AdminTokens
  readonly retention: Retention
  /** Every job change, once committed: the job log, and listeners in the process. */
  readonly jobChanges: JobLog
  /** Each project's events, for applications. */
  readonly events: Events
  /** Each project's webhooks and their outbox. */
  readonly webhooks: Webhooks
  /** Each project's stored images (logos). */
  readonly images: ProjectImages
  /** Each project's destinations (names for groups of printers). */
  readonly destinations: Destinations
  /** Jobs posted to a destination of mode "all": one child per printer, summarised by their parent. */
  readonly fanOuts: FanOuts
  /** The dashboard's accounts. */
  readonly users: Users
  /** Who did what, when, from where. */
  readonly audit: AuditLog
  /** What waits for a time to come, moved when the system clock jumps. */
  readonly clock: ClockDeadlines

  private constructor(
    readonly db: Database,
    options: StoreOptions,
  ) {
    const now = options.now ?? Date.now
    const log =
      options.log ??
      new Log({ format: 'text', level: 'warn', journal: false }, (line) => console.error(line)).for('store')
    const onCommitError = (error: unknown) =>
      log.error(
        'a commit failed (rolled back) or could not be flushed to disk',
        { error: describeError(error) },
        { limit: 'commit failed' },
      )
    this.commits = options.redo ? new BatchedCommit(db, onCommitError) : new GroupCommit(db, onCommitError)
    this.webhooks = new Webhooks(db, now)
    this.images = new ProjectImages(db, now)
    this.destinations = new Destinations(db, now)
    this.events = new Events(db, this.commits, now, this.webhooks)
    this.fanOuts = new FanOuts(db, (fanOut, children) => this.jobs.insertFanOut(fanOut, children))
    // Each job change leaves its event in the project's log, in the change's own transaction; a
    // fan-out's child's change, its parent's too when it changed the parent's state.
    const jobLog = new JobLog(
      this.commits,
      options.log?.for('job'),
      (from, id, now) => {
        const job = now ?? this.jobs.get(id)
        if (job) this.events.jobChanged(from, job)
        const fanOut = from === 'new' ? undefined : this.fanOuts.changedBy(id, from)
        if (fanOut) this.events.jobChanged(fanOut.previous, fanOut.parent)
      },
      (printerId) => this.printers.nameOf(printerId),
    )
    this.jobChanges = jobLog
    this.settings = new Settings(db)
    this.projects = new Projects(db, now)
    this.apiKeys = new ApiKeys(db, this.commits, now)
    this.printers = new Printers(db, now, () => this.commits.readEpoch)
    const limit = options.maxOpenJobsPerProject
    this.jobs = new Jobs({
      db,
      commits: this.commits,
      printers: this.printers,
      openJobLimit: typeof limit === 'function' ? limit : () => limit,
      now,
      log: jobLog,
      fanOuts: this.fanOuts,
    })
    this.jobStates = new JobStates(db, this.commits, now, jobLog)
    this.agents = new Agents(db, this.commits, now)
    this.pairingCodes = new PairingCodes(db, now)
    this.printerStates = new PrinterStates(db, now)
    this.users = new Users(db, now)
    this.audit = new AuditLog(db, now)
    this.adminSessions = new AdminSessions(db, this.commits, now, options.sessionLifetime ?? ADMIN_SESSION_LIFETIME)
    this.adminTokens = new AdminTokens(db, this.commits, now)
    this.retention = new Retention(db, this.commits)
    this.clock = new ClockDeadlines(db)
  }

  static open(options: StoreOptions): Store {
    return new Store(openHubDatabase(options.dataDir, options.create, options.redo), options)
  }

  /** How many rows the hub has changed so far, whatever changed them: the dashboard's sign that something did. */
  changes(): number {
    return this.db.query<{ n: number }, []>('SELECT total_changes() AS n').get()!.n - this.commits.ownChanges
  }

  /**
   * The schema versions the migrations applied since `since` (the system clock, in ms) went from and
   * to: an upgraded database, when this start brought it up to date. Undefined when none ran.
   */
  migratedSince(since: number): { from: number; to: number } | undefined {
    const row = this.db
      .query<{ first: number | null; last: number | null }, [number]>(
        `SELECT min(version) AS first, max(version) AS last FROM ${HUB_SCHEMA.migrationsTable} WHERE applied_at >= ?`,
      )
      .get(since)
    return row?.first == null || row.last == null ? undefined : { from: row.first - 1, to: row.last }
  }

  /** How many records of the redo log the open applied (what a crash or a power cut had left only there). */
  redoApplied(): number {
    return redoApplied(this.db)
  }

  /** Gives an older database a new one's file format (once, at the hub's start): sqlite/database.ts says what. */
  upgradeFileFormat(): ReturnType<typeof upgradeFileFormat> {
    this.commits.commit()
    try {
      return upgradeFileFormat(this.db)
    } finally {
      // Whether or not the file was rewritten, its log may have been made anew.
      this.commits.logReplaced()
    }
  }

  /**
   * A mark that moves whenever any stored row may have changed, by this process or another;
   * undefined while a change is open. What is read under one mark may be kept until it moves.
   */
  changeStamp(): string | undefined {
    return this.commits.unsettled ? undefined : changeStamp(this.db, true)
  }

  /**
   * Waits, in another process than the hub's, until what the hub has said is on disk is in the database file too: when
   * a connection holds the write lock (the hub's batch, sqlite/batched-commit.ts), `ask` asks it to commit, and this
   * waits for the lock (SQLite's busy timeout). Changes nothing.
   */
  catchUp(ask: () => void): void {
    const tryLock = () => {
      this.db.run('BEGIN IMMEDIATE')
      this.db.run('ROLLBACK')
    }
    if (!unlessLocked(this.db, tryLock).locked) return
    ask()
    tryLock()
  }

  /** Runs `work` as one transaction that takes the write lock at once (first-start set-up). */
  atomically<T>(work: () => T): T {
    return this.db.transaction(work).immediate()
  }

  /** Commits what is open and closes the file cleanly (the WAL is checkpointed). */
  close(): void {
    try {
      this.commits.close()
    } finally {
      this.db.close(true)
    }
  }
}
