// Keeps the hub's database bounded while it runs for years: finished jobs older than the retention
// period are deleted with everything that belongs to them, then the oldest finished jobs of any
// project whose history holds more than its budget of bytes (so one busy project cannot fill the
// disk for the others), old records and applications' events, and the pages they held given back
// to the file system. In
// the background, a batch at a time with the event loop free between batches, so submissions and
// deliveries never wait for it.
import { CLOCK_JUMP_SETTING, cutoffBeforeJump, recordedJump } from '../domain/clock.ts'
import { RETENTION_DAYS } from '../domain/settings.ts'
import { EVENT_RETENTION_DAYS, MAX_EVENTS } from '../store/events.ts'
import { describeError, type Logger } from '../platform/log.ts'
import type { Db, UnitRunner, WriteOptions } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import type { Store } from '../store/store.ts'
import { SqliteUnits } from '../store/units.ts'

/**
 * Jobs deleted in one step: a few milliseconds of work (each takes its document, its timeline and
 * its counters with it; 100 a step held the event loop up to 10 ms at the p99).
 */
export const PRUNE_BATCH = 50
/** How long past the retention period a pruned job is remembered by its ID. */
export const PRUNED_JOBS_REMEMBERED_DAYS = 60
/** Events deleted in one step (a row each, no document or timeline). */
const EVENT_PRUNE_BATCH = 500
/** Free pages given back to the file system in one step, and steps in one pass at most. */
const RELEASE_PAGES = 512
const RELEASE_STEPS = 16

export interface HousekeepingSources {
  /** The retention period now (the dashboard and `printhub settings set` change it). */
  retentionDays(): number
  /** The bytes of finished jobs' documents one project keeps at most. */
  historyBytesPerProject(): number
  /**
   * The disk is close to full (the disk guard's low): finished jobs are then kept only the shortest
   * retention period, so that printing goes on at the cost of history.
   */
  diskLow(): boolean
  now(): number
  /** What each pass deleted, and passes that stopped (component retention). */
  log: Logger
}

export interface PassResult {
  jobs: number
  /** Of them, deleted before their time because their project was over its history budget. */
  overBudget: number
  records: number
  releasedPages: number
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A deletion a crash takes back is simply done again: it needs no flush of its own. */
const DEFERRED: WriteOptions = { deferred: true }

/** The file's free pages, given back to the file system a few at a time (SQLite's; PostgreSQL's are its own). */
export interface FreeSpace {
  freePages(): number
  releaseSpace(pages: number): void
}

export class Housekeeping {
  private running: Promise<PassResult> | undefined
  /** Aborted: the pass under way ends after its step (the hub is stopping). */
  private signal: AbortSignal | undefined

  constructor(
    private readonly units: UnitRunner,
    private readonly sources: HousekeepingSources,
    private readonly space?: FreeSpace,
  ) {}

  /** One step of deleting: how many rows went. */
  private step(work: (db: Db) => Unit<number>): Promise<number> {
    return this.units.write(work, DEFERRED)
  }

  /** One pass now (none starts while another runs): what it deleted and gave back; ends early once `signal` aborts. */
  pass(signal?: AbortSignal): Promise<PassResult> {
    this.running ??= this.work(signal).finally(() => (this.running = undefined))
    return this.running
  }

  private get stopped(): boolean {
    return this.signal?.aborted === true
  }

  private async work(signal: AbortSignal | undefined): Promise<PassResult> {
    this.signal = signal
    const setting = this.sources.retentionDays()
    const squeezed = this.sources.diskLow() && setting > RETENTION_DAYS.min
    const days = squeezed ? RETENTION_DAYS.min : setting
    // Timestamps written before a jump of the system clock are on the other clock (domain/clock.ts).
    const jump = recordedJump(await this.units.read((db) => db.settings.get(CLOCK_JUMP_SETTING)))
    const before = cutoffBeforeJump(this.sources.now() - days * 86_400_000, jump)
    const result: PassResult = { jobs: 0, overBudget: 0, records: 0, releasedPages: 0 }
    try {
      for (let deleted = PRUNE_BATCH; deleted === PRUNE_BATCH && !this.stopped; await nextTurn()) {
        deleted = await this.step((db) => db.retention.pruneJobs(before, PRUNE_BATCH))
        result.jobs += deleted
      }
      const budget = this.sources.historyBytesPerProject()
      for (const { projectId } of await this.units.read((db) => db.retention.projectsOverBudget(budget))) {
        for (
          let over = await this.overBy(projectId, budget);
          over > 0 && !this.stopped;
          await nextTurn(), over = await this.overBy(projectId, budget)
        ) {
          const deleted = await this.step((db) => db.retention.pruneOldestOfProject(projectId, over, PRUNE_BATCH))
          if (deleted === 0) break
          result.overBudget += deleted
        }
      }
      result.jobs += result.overBudget
      for (let deleted = PRUNE_BATCH; deleted === PRUNE_BATCH && !this.stopped; await nextTurn()) {
        deleted = await this.step((db) => db.retention.pruneRecords(before, PRUNE_BATCH))
        result.records += deleted
      }
      // The audit log: kept as long as finished jobs.
      for (let deleted = PRUNE_BATCH; deleted === PRUNE_BATCH && !this.stopped; await nextTurn()) {
        deleted = await this.units.write((db) => db.audit.prune(before, PRUNE_BATCH))
        result.records += deleted
      }
      // Pruned jobs are remembered by ID (a reprint of one is told it was pruned) for a while past the retention
      // period.
      const forgetBefore = cutoffBeforeJump(
        this.sources.now() - (days + PRUNED_JOBS_REMEMBERED_DAYS) * 86_400_000,
        jump,
      )
      for (let deleted = PRUNE_BATCH; deleted === PRUNE_BATCH && !this.stopped; await nextTurn()) {
        deleted = await this.step((db) => db.retention.forgetPrunedJobs(forgetBefore, PRUNE_BATCH))
        result.records += deleted
      }
      // Applications' events: their own period, whatever the jobs' (a bound on their number too).
      const eventsBefore = cutoffBeforeJump(this.sources.now() - EVENT_RETENTION_DAYS * 86_400_000, jump)
      for (let deleted = EVENT_PRUNE_BATCH; deleted === EVENT_PRUNE_BATCH && !this.stopped; await nextTurn()) {
        deleted = await this.step((db) => db.events.prune(eventsBefore, MAX_EVENTS, EVENT_PRUNE_BATCH))
        result.records += deleted
      }
      // Webhook deliveries are kept as long as events (the dashboard shows the recent ones).
      for (let deleted = EVENT_PRUNE_BATCH; deleted === EVENT_PRUNE_BATCH && !this.stopped; await nextTurn()) {
        deleted = await this.step((db) => db.webhooks.prune(eventsBefore, EVENT_PRUNE_BATCH))
        result.records += deleted
      }
      for (let step = 0; this.space && step < RELEASE_STEPS && !this.stopped; step++, await nextTurn()) {
        const free = this.space.freePages()
        if (free === 0) break
        this.space.releaseSpace(RELEASE_PAGES)
        result.releasedPages += Math.min(free, RELEASE_PAGES)
      }
    } catch (error) {
      // A full or failing disk: the next pass tries again; nothing half deleted stays (each step is a transaction).
      this.sources.log.error(
        'a pass stopped; the next one tries again',
        { error: describeError(error) },
        { limit: 'retention failed' },
      )
    }
    if (result.overBudget > 0) {
      const mb = Math.round(this.sources.historyBytesPerProject() / 1_048_576)
      this.sources.log.info(
        `deleted ${result.overBudget} of the oldest finished jobs of projects ` +
          `whose finished jobs held more than ${mb} MB`,
        { jobs: result.overBudget, historyMb: mb },
      )
    }
    if (result.jobs > result.overBudget || result.records > 0) {
      const kept = squeezed ? `kept ${days} day instead of ${setting}: the disk is close to full` : `kept ${days} days`
      const fields = {
        jobs: result.jobs - result.overBudget,
        records: result.records,
        before: new Date(before).toISOString(),
        days,
        squeezed: squeezed || undefined,
      }
      this.sources.log.info(
        `deleted ${fields.jobs} finished jobs and ${result.records} old records from before ${fields.before} (${kept})`,
        fields,
      )
    }
    return result
  }

  /** How many bytes the project's finished jobs hold over `budget` (0: within it). */
  private async overBy(projectId: string, budget: number): Promise<number> {
    return Math.max(0, (await this.units.read((db) => db.retention.finishedBytes(projectId))) - budget)
  }
}

/** Housekeeping of a SQLite store: its units, and the pages its file gives back. */
export function sqliteHousekeeping(store: Store, sources: HousekeepingSources): Housekeeping {
  return new Housekeeping(new SqliteUnits(store), sources, store.retention)
}
