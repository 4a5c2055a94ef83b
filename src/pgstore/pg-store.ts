// The cluster's store: one PostgreSQL database that every node serves from (docs/cluster.md). It runs the services'
// units of work (storage/unit.ts): a change in one transaction, awaiting each statement; a read on its own. A node
// serves only from a database of its own schema (migrate.ts names both otherwise).
import { SQL } from 'bun'
import { runAwaiting, type Unit } from '../storage/unit.ts'
import { DB, type Db, type Fence, type Repositories, type WriteOptions } from '../storage/repositories.ts'
import type { ClusterStore, HeldLease } from '../storage/cluster-store.ts'
import { type ClusterNode, DB_NOW, type LeaseStates, PgLeases } from './leases.ts'
import type { Job } from '../protocol/job.ts'
import { StoreUnavailableError } from '../storage/unavailable.ts'
import { HINTS_CHANNEL } from './hints.ts'
import { PgApiKeys } from './api-keys.ts'
import { PgAuditLog } from './audit.ts'
import { schemaState, unservable } from './migrate.ts'
import { PgProjects } from './projects.ts'
import { PgSettings } from './settings.ts'
import { PgPrinterStates, PgPrinters } from './printers.ts'
import { PgDestinations } from './destinations.ts'
import { PgImages } from './images.ts'
import { PgAdminSessions, PgAdminTokens, PgUsers } from './accounts.ts'
import { PgAgents, PgPairingCodes } from './agents.ts'
import { PgWebhooks } from './webhooks.ts'
import { PgRetention } from './retention.ts'
import { PgClockDeadlines } from './clock-deadlines.ts'
import { PgFailureCounts } from './failure-counts.ts'
import type { FailureLimit, LockoutListener } from '../domain/failure-limit.ts'
import { PgEvents } from './events.ts'
import { MAX_OPEN_JOBS } from '../domain/settings.ts'
import { OPEN_BYTES_PER_PROJECT } from '../storage/job-creation.ts'
import { type JobLimits, PgFanOuts, PgJobs } from './jobs.ts'
import { PgJobStates } from './job-states.ts'
import { ADMIN_SESSION_LIFETIME, type SessionLifetime } from '../domain/accounts.ts'

export interface PgStoreOptions {
  /** The clock, in milliseconds since the epoch (the times the store writes). */
  now?: () => number
  /** Connections this node keeps to the database at most. */
  connections?: number
  /** How the database is named in messages: its URL without the password. */
  shown: string
  /** How long a dashboard session lives unused, and at most. */
  sessionLifetime?: SessionLifetime
  /** How many unfinished jobs, and bytes of their documents, one project may have. */
  jobLimits?: JobLimits
}

/**
 * PostgreSQL's errors of a transaction that may succeed when run again: a serialization failure, a deadlock, and a
 * unique violation (a concurrent change that made the same key first: run again, the unit reads it and answers as
 * it would have, a duplicate; PostgreSQL turns most of those into serialization failures, not every one).
 */
const RUN_AGAIN = new Set(['40001', '40P01', '23505'])
/**
 * How long one change may be run again before its error is the caller's: many changes at once to the same rows (a
 * project's images, say) commit one by one, each of the others running again.
 */
const RUN_AGAIN_WITHIN_MS = 10_000
/** The longest wait before a change is run again (a random wait up to it, doubling from 1 ms). */
const MOST_WAIT_MS = 50
/** How long a transaction may wait for its node's next statement before the server ends it (a stalled node). */
const STALLED_TRANSACTION_MS = 5_000

/**
 * Whether an error says the database could not be reached, or went away during the statement (its connection
 * refused, closed or timed out; the server shutting down or in recovery), rather than refusing the statement.
 */
export function isUnreachable(error: unknown): boolean {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown }
  if (typeof code === 'string' && /^ERR_POSTGRES_(CONNECTION|.*TIMEOUT)/.test(code)) return true
  return typeof errno === 'string' && (errno.startsWith('08') || /^57P0[1-3]$/.test(errno))
}

/** The database cannot be served from: no schema, an older or a newer one (the message names both versions). */
export class UnservableStoreError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UnservableStoreError'
  }
}

export class PgStore implements ClusterStore {
  private constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
    private readonly limits: { sessionLifetime: SessionLifetime; jobLimits: JobLimits; shown: string },
    /** The lease this store's delivery writes are conditioned on (fenced()), if any. */
    private readonly fence?: Fence,
  ) {}

  /** Connects to the database at `url`; refuses one whose schema is not this program's. */
  static async open(url: string, options: PgStoreOptions): Promise<PgStore> {
    const sql = new SQL(url, {
      max: options.connections ?? 10,
      idleTimeout: 30,
      connectionTimeout: 10,
      // A node that stalls in the middle of a transaction (paused, swapping) would hold its rows' locks, and every
      // node's writes to them would wait: the server ends such a session, its transaction rolled back.
      connection: { idle_in_transaction_session_timeout: STALLED_TRANSACTION_MS },
    })
    try {
      const problem = unservable(await schemaState(sql), options.shown)
      if (problem) throw new UnservableStoreError(problem)
    } catch (error) {
      await sql.close({ timeout: 1 })
      throw error
    }
    return new PgStore(sql, options.now ?? Date.now, {
      shown: options.shown,
      sessionLifetime: options.sessionLifetime ?? ADMIN_SESSION_LIFETIME,
      jobLimits: options.jobLimits ?? { openJobs: () => MAX_OPEN_JOBS.default, openBytes: OPEN_BYTES_PER_PROJECT },
    })
  }

  /**
   * The same store, its job state steps conditioned on `fence`: each changes nothing once another node took the
   * lease. Shares this store's connections (closing either closes both).
   */
  fenced(fence: Fence): PgStore {
    return new PgStore(this.sql, this.now, this.limits, fence)
  }

  /**
   * A change: the unit in one serializable transaction, committed when it ends, rolled back when it throws. Units are
   * written as if nothing else ran meanwhile (as on SQLite, where nothing can): PostgreSQL makes that true across
   * nodes, refusing a transaction that a concurrent one would contradict, which is then run again from its start.
   */
  async write<T>(work: (db: Db) => Unit<T>, options: WriteOptions = {}): Promise<T> {
    const deadline = performance.now() + RUN_AGAIN_WITHIN_MS
    const isolation = options.lockedRows ? 'isolation level read committed' : 'isolation level serializable'
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.sql.begin(isolation, (tx) => runAwaiting(work(DB), this.repositories(tx)))
      } catch (error) {
        if (isUnreachable(error)) throw new StoreUnavailableError(this.limits.shown, error)
        const again = RUN_AGAIN.has((error as { errno?: string }).errno ?? '') && performance.now() < deadline
        if (!again) throw error
        await Bun.sleep(Math.random() * Math.min(MOST_WAIT_MS, 2 ** attempt))
      }
    }
  }

  /** Every change is on disk once its transaction committed: nothing to wait for. */
  async durable(): Promise<void> {}

  /** A read, outside any transaction. */
  async read<T>(work: (db: Db) => Unit<T>): Promise<T> {
    try {
      return await runAwaiting(work(DB), this.repositories(this.sql))
    } catch (error) {
      throw isUnreachable(error) ? new StoreUnavailableError(this.limits.shown, error) : error
    }
  }

  /** Says this node is in the cluster (again, after a restart: the same ID). */
  joinCluster(node: ClusterNode): Promise<void> {
    return new PgLeases(this.sql).join(node)
  }

  takeLease(resource: string, nodeId: string, ttlMs: number): Promise<HeldLease | undefined> {
    return new PgLeases(this.sql).take(resource, nodeId, ttlMs)
  }

  /** Says this node is alive now; how many nodes were seen within `withinMs`. */
  async nodesAlive(nodeId: string, withinMs: number): Promise<number> {
    try {
      return await new PgLeases(this.sql).alive(nodeId, withinMs)
    } catch (error) {
      throw isUnreachable(error) ? new StoreUnavailableError(this.limits.shown, error) : error
    }
  }

  /** The resources whose leases hold now: the agents connected to some node, the printers some node drives. */
  async liveLeases(): Promise<Set<string>> {
    try {
      return await new PgLeases(this.sql).live()
    } catch (error) {
      throw isUnreachable(error) ? new StoreUnavailableError(this.limits.shown, error) : error
    }
  }

  /** The leases that hold now, and when each of the others ran out. */
  async leaseStates(): Promise<LeaseStates> {
    try {
      return await new PgLeases(this.sql).states()
    } catch (error) {
      throw isUnreachable(error) ? new StoreUnavailableError(this.limits.shown, error) : error
    }
  }

  /**
   * A change made only while the lease `lease` names has run out under that number (no node took it since): its row
   * stays locked until the change commits, so a node taking the lease meanwhile waits, and what that node writes comes
   * after. Undefined, and nothing changed, when the lease was taken.
   */
  async whileRanOut<T>(lease: Fence, work: (db: Db) => Unit<T>): Promise<T | undefined> {
    try {
      return await this.sql.begin('isolation level read committed', async (tx) => {
        const [row] = await tx`SELECT 1 FROM leases WHERE resource = ${lease.resource} AND fence = ${lease.fence}
          AND expires_at <= ${tx.unsafe(DB_NOW)} FOR SHARE`
        return row ? runAwaiting(work(DB), this.repositories(tx)) : undefined
      })
    } catch (error) {
      throw isUnreachable(error) ? new StoreUnavailableError(this.limits.shown, error) : error
    }
  }

  async releaseLease(resource: string, nodeId: string, fence: number): Promise<void> {
    await new PgLeases(this.sql).release(resource, nodeId, fence)
  }

  giveUpOnGoneAgents(awaySince: number, limit: number): Promise<Job[]> {
    return this.jobStates(undefined, (states) => states.giveUpOnGoneAgents(awaySince, limit))
  }

  recordIntent(fence: Fence, jobId: string, attempt: number): Promise<boolean> {
    return this.jobStates(fence, (states) => states.recordIntent(jobId, attempt))
  }

  takeOverPrinter(fence: Fence, printerId: string): Promise<Job[]> {
    return this.jobStates(fence, (states) => states.takeOverPrinter(printerId))
  }

  /** Job state steps in one transaction on the locks they take, fenced by `fence` when given. */
  private jobStates<T>(fence: Fence | undefined, work: (states: PgJobStates) => Promise<T>): Promise<T> {
    return this.sql
      .begin('isolation level read committed', (tx) => {
        const events = new PgEvents(tx, this.now)
        return work(new PgJobStates(tx, this.now, events, { fanOuts: new PgFanOuts(tx, this.now, events), fence }))
      })
      .catch((error: unknown) => {
        throw isUnreachable(error) ? new StoreUnavailableError(this.limits.shown, error) : error
      })
  }

  /** Failed attempts of `scope`, counted in the database (a limit that holds across nodes). */
  failureCounts(scope: string, bounds: FailureLimit, lockedOut?: LockoutListener): PgFailureCounts {
    return new PgFailureCounts(this.sql, scope, {
      bounds,
      now: this.now,
      lockedOut,
      unavailable: (error) => (isUnreachable(error) ? new StoreUnavailableError(this.limits.shown, error) : error),
    })
  }

  /** Sends a hint to every node (after the change it tells of committed: a hint is never ahead of the data). */
  async notify(hint: string): Promise<void> {
    await this.sql.notify(HINTS_CHANNEL, hint)
  }

  async listen(heard: (hint: string) => void): Promise<() => Promise<void>> {
    const subscription = await this.sql.listen(HINTS_CHANNEL, heard)
    return () => subscription.unlisten()
  }

  /**
   * A mark that moves when what the dashboard shows may have changed: a job's step (its timeline), a project's event,
   * a printer's state, anything audited (every change an operator makes). A hint for open pages to ask again, never
   * a version of the data: a row committed after one with a higher number moves it at the next change.
   */
  async changeMark(): Promise<string> {
    const [row] = await this.sql<{ mark: string }[]>`SELECT concat_ws('.', (SELECT max(seq) FROM job_events),
      (SELECT max(id) FROM events), (SELECT max(seq) FROM printer_states), (SELECT max(id) FROM audit_log)) AS mark`
    return row!.mark
  }

  /**
   * The projects with events written after event `afterId`, and the newest event ID now; with no `afterId`, only
   * the newest (where a watcher starts).
   */
  async eventsSince(afterId: number | undefined): Promise<{ projects: string[]; newest: number }> {
    if (afterId !== undefined) return new PgEvents(this.sql, this.now).since(afterId)
    const [row] = await this.sql<{ id: string | null }[]>`SELECT max(id) AS id FROM events`
    return { projects: [], newest: Number(row?.id ?? 0) }
  }

  async close(): Promise<void> {
    await this.sql.close({ timeout: 5 })
  }

  private repositories(sql: SQL): Repositories {
    const events = new PgEvents(sql, this.now)
    const fanOuts = new PgFanOuts(sql, this.now, events)
    return {
      jobs: new PgJobs(sql, this.now, this.limits.jobLimits, { events, fanOuts }),
      fanOuts,
      events,
      jobStates: new PgJobStates(sql, this.now, events, { fanOuts, fence: this.fence }),
      settings: new PgSettings(sql),
      printers: new PgPrinters(sql, this.now),
      printerStates: new PgPrinterStates(sql, this.now),
      destinations: new PgDestinations(sql, this.now),
      images: new PgImages(sql, this.now),
      projects: new PgProjects(sql, this.now),
      apiKeys: new PgApiKeys(sql, this.now),
      audit: new PgAuditLog(sql, this.now),
      users: new PgUsers(sql, this.now),
      adminSessions: new PgAdminSessions(sql, this.now, this.limits.sessionLifetime),
      adminTokens: new PgAdminTokens(sql, this.now),
      agents: new PgAgents(sql, this.now),
      pairingCodes: new PgPairingCodes(sql, this.now),
      webhooks: new PgWebhooks(sql, this.now),
      retention: new PgRetention(sql),
      clock: new PgClockDeadlines(sql),
    }
  }
}
