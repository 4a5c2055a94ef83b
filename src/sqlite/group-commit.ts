// Group commit: changes share transactions, so one disk flush serves many of them. A change takes
// effect at once, for the code that made it, and is committed at the end of the current turn of
// the event loop with everything else changed in it. Whatever must not happen before a change is
// on disk (an answer to a client, an acknowledgement, bytes to a printer) waits for `durable()`.
// A change that can be learned again after a crash may be deferred: it rides along with the next
// commit, or is committed within UNAWAITED_COMMIT_MS. So may a turn's changes that nobody waits
// for, when the code that made them knows an urgent commit follows (`postponeTurnCommit`).
//
// A database in a file is flushed off the event loop (wal-flush.ts): its transactions commit with
// `synchronous = NORMAL`, and `durable()` settles once the write-ahead log has been flushed after
// them. What is said only of changes on disk (`afterCommit`) waits for that flush too. The hub's own
// store keeps its transaction open longer, made durable by a redo log meanwhile (batched-commit.ts).
import type { Database } from 'bun:sqlite'
import { fileOf } from './database.ts'
import { type Fsync, type Settle, WalFlush } from './wal-flush.ts'

/** Bounds one transaction, so one busy turn cannot hold the writer for long. */
export const MAX_WRITES_PER_COMMIT = 256
/** How long a deferred change may stay uncommitted; a crash within that time loses it. */
export const UNAWAITED_COMMIT_MS = 20

export interface Waiter {
  resolve: () => void
  reject: (error: unknown) => void
}

export class GroupCommit {
  protected open = false
  /** Counts the transactions opened: which one is open, for callers that note something once per transaction. */
  protected opened = 0
  /** Changes when a transaction opens and when a change in it is undone (`readEpoch`). */
  private epoch = 0
  protected writes = 0
  protected waiters: Waiter[] = []
  private commitThisTurnScheduled = false
  /** The open transaction holds a change something urgent waits for (`urgentlyDurable`). */
  protected urgent = false
  /** The end of this turn commits only if someone waits (`postponeTurnCommit`). */
  protected postponed = false
  protected commitLater: Timer | undefined
  /** Told once the open transaction is on disk; forgotten when it is rolled back. */
  protected committed: (() => void)[] = []
  /** Transactions committed and the changes they carried: how well flushes are shared. */
  readonly stats = { commits: 0, writes: 0 }
  // Each change in a savepoint of its own, and each transaction begun and committed, through
  // statements prepared once (a job makes about ten changes and two commits; preparing a statement
  // each time cost more than running it).
  private readonly begin
  private readonly end
  private readonly savepoint
  private readonly release
  private readonly rollbackTo
  /** The flush of a database in a file; none for one in memory (nothing to make durable). */
  protected readonly flush: WalFlush | undefined

  constructor(
    protected readonly db: Database,
    protected readonly onCommitError: (error: unknown) => void,
    /** Tests observe the flush; by default fdatasync(2) on the thread pool. */
    fsync?: Fsync,
  ) {
    this.begin = db.prepare('BEGIN IMMEDIATE')
    this.end = db.prepare('COMMIT')
    this.savepoint = db.prepare('SAVEPOINT change')
    this.release = db.prepare('RELEASE change')
    this.rollbackTo = db.prepare('ROLLBACK TO change')
    const file = fileOf(db)
    this.flush = file && isWal(db) ? new WalFlush(`${file}-wal`, fsync) : undefined
  }

  /**
   * Runs `change` in the open transaction, committed at the end of this turn (or, when the turn's
   * commit is postponed and nobody waits, with the next commit: `postponeTurnCommit`). A change
   * that throws undoes only itself (it runs in a savepoint); the others stay.
   */
  write<T>(change: () => T): T {
    const result = this.apply(change)
    this.commitThisTurn()
    return result
  }

  /** The write-ahead log's file was made anew (the journal mode changed): flushes go to the new one. */
  logReplaced(): void {
    this.flush?.reopen()
  }

  /** Like `write`, for a change that can be learned again after a crash: it need not cost a flush of its own. */
  defer<T>(change: () => T): T {
    return this.apply(change)
  }

  /** The open transaction's number (a new one for each), or undefined while none is open. */
  get transaction(): number | undefined {
    return this.open ? this.opened : undefined
  }

  /**
   * While a transaction is open, a number that stays the same as long as what this connection
   * reads can change only by its own writes: no other connection can commit meanwhile (the
   * transaction holds the write lock), and no change has been undone. It changes with each new
   * transaction, each group of changes (batched-commit.ts) and each change undone; undefined while
   * none is open. For what may be kept from one read to the next (printers looked up again and again in one turn).
   */
  get readEpoch(): number | undefined {
    return this.open ? this.epoch : undefined
  }

  /** Settles once every change written so far is committed (rejects if that commit failed). */
  durable(): Promise<void> {
    if (!this.unsettled) {
      if (!this.flushing) return Promise.resolve()
      return new Promise((resolve, reject) => this.whenFlushed((error) => (error ? reject(error) : resolve())))
    }
    this.commitThisTurn()
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }))
  }

  /**
   * Like `durable()`, for a change the next step waits for on the critical path (the intent to
   * print, before the job's first byte): its commit's flush starts at once, beside any flush
   * already running, instead of after it.
   */
  urgentlyDurable(): Promise<void> {
    if (this.open) this.urgent = true
    return this.durable()
  }

  /**
   * Like `urgentlyDurable()`, committed now instead of at the end of the turn: what is written
   * after this call goes into the next commit, while this one is flushed. For the intent to print
   * when something is to be done during its flush (the printer's previous job recorded).
   */
  commitUrgently(): Promise<void> {
    if (!this.open) return this.durable()
    const flushed = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }))
    this.urgent = true
    this.commitScheduled()
    return flushed
  }

  /**
   * The changes of this turn need not be committed at its end unless someone waits for them
   * (`durable()`): they ride along with the next commit, which the caller knows comes soon and
   * urgently (a printer's next job: its intent to print), or within UNAWAITED_COMMIT_MS. For
   * changes a crash of the process cannot lose the knowledge of (a job marked printed,
   * agent/hand-over-marks.ts).
   */
  postponeTurnCommit(): void {
    if (this.open) this.postponed = true
  }

  /**
   * Takes `postponeTurnCommit()` back: what is open is committed at the end of the turn after all.
   * For a change nothing comes to carry (a printer's last job), when a postponement asked for in
   * an earlier turn is still pending (its turn's end has not come yet).
   */
  commitTurn(): void {
    this.postponed = false
    this.commitThisTurn()
  }

  /**
   * Runs `then` once every change written so far is committed (at once when none is open); never
   * when they are rolled back instead. For what must only be said of changes that are on disk (the
   * log of job states), without waiting for the disk as `durable()` does.
   */
  afterCommit(then: () => void): void {
    if (this.unsettled) this.committed.push(then)
    else if (this.flushing) this.whenFlushed((error) => error || runEach([then]))
    else then()
  }

  /** Whether changes written are not yet committed: what is read now may still be undone. */
  get unsettled(): boolean {
    return this.open
  }

  /** Rows this class changed itself (none here), which SQLite's `total_changes()` counts with the database's. */
  get ownChanges(): number {
    return 0
  }

  /** Whether a flush of changes made runs or waits. */
  protected get flushing(): boolean {
    return this.flush?.pending === true
  }

  /**
   * Commits now what is open, and flushes it on this thread; at shutdown, and where a change must
   * be on disk before going on. Throws if the commit failed; what it held is then rolled back.
   */
  commit(): void {
    const settle = this.open ? this.endTransaction() : undefined
    if (settle || this.flush?.pending) {
      try {
        this.flush?.flushNow()
      } catch (error) {
        settle?.(error as Error)
        this.onCommitError(error)
        throw error
      }
    }
    settle?.()
  }

  /**
   * Makes every change so far durable here and now, on this thread: for the intent to print while no other printer is
   * at work, so that the bytes follow in the same turn. Throws if it could not.
   */
  flushNow(): void {
    this.commit()
  }

  /** Commits now, for another process that waits to read or write the database (hub/open-services.ts). */
  commitForOthers(): void {
    this.commit()
  }

  /** Commits on disk no flush follows (the store closes after this). */
  close(): void {
    this.commit()
    this.flush?.close()
  }

  /**
   * COMMITs the open transaction and returns what settles its waiters once it is on disk (with
   * the flush's error if it could not be made so). Throws if the commit failed; what it held is
   * then rolled back and its waiters told.
   */
  protected endTransaction(): Settle {
    const { waiters, committed } = this.nextGroup()
    this.open = false
    try {
      this.end.run()
    } catch (error) {
      // A failed COMMIT may leave the transaction open; what it held is lost either way.
      if (this.db.inTransaction) this.db.run('ROLLBACK')
      this.fullFlushes()
      for (const waiter of waiters) waiter.reject(error)
      this.rolledBack()
      throw error
    }
    this.ended()
    this.fullFlushes()
    this.stats.commits++
    return settleOf(waiters, committed)
  }

  /** After a COMMIT. */
  protected ended(): void {}

  /** After the open transaction was rolled back, with what it held. */
  protected rolledBack(): void {}

  /** Settles once every change made so far is on disk. */
  protected whenFlushed(then: Settle): void {
    if (this.flush) this.flush.whenFlushed(then)
    else then()
  }

  /** The connection's own setting (FULL) is back after each group transaction, for anything else it writes. */
  protected fullFlushes(): void {
    if (this.flush) this.db.run('PRAGMA synchronous = FULL')
  }

  private apply<T>(change: () => T): T {
    if (!this.open) this.beginTransaction()
    this.commitLater ??= setTimeout(() => {
      this.commitLater = undefined
      this.commitScheduled()
    }, UNAWAITED_COMMIT_MS)
    let result: T
    this.savepoint.run()
    try {
      result = change()
    } catch (error) {
      // Only this change is undone (savepoints nest: a change may make changes of its own).
      this.epoch++
      if (this.db.inTransaction) {
        try {
          this.rollbackTo.run()
          this.release.run()
        } catch {
          // The savepoint went with the transaction: said below.
        }
      }
      // On some errors (a full disk, an I/O error) SQLite rolls the whole transaction back, not
      // only this change: everything written since the last commit is lost, and whoever waits
      // for it must hear so.
      if (!this.db.inTransaction) this.lost(error)
      throw error
    }
    this.release.run()
    this.stats.writes++
    if (++this.writes >= MAX_WRITES_PER_COMMIT) this.commitScheduled()
    return result
  }

  protected beginTransaction(): void {
    // Run as text each time: SQLite applies a setting pragma when it is prepared, not when a prepared one runs again.
    if (this.flush) this.db.run('PRAGMA synchronous = NORMAL')
    // IMMEDIATE: the write lock is taken now, so the commit cannot find another writer in the way.
    this.begin.run()
    this.open = true
    this.opened++
    this.epoch++
  }

  /** The open transaction was rolled back under us: its waiters are told, and the next change opens a new one. */
  private lost(error: unknown): void {
    const { waiters } = this.nextGroup()
    this.open = false
    this.fullFlushes()
    for (const waiter of waiters) waiter.reject(error)
    this.onCommitError(error)
    this.rolledBack()
  }

  private commitThisTurn(): void {
    if (!this.open || this.commitThisTurnScheduled) return
    this.commitThisTurnScheduled = true
    // setImmediate runs after the turn's I/O callbacks: everything they change joins this commit.
    setImmediate(() => {
      this.commitThisTurnScheduled = false
      if (this.postponed) {
        this.postponed = false
        if (this.waiters.length === 0) return
      }
      this.commitScheduled()
    })
  }

  /** Commits what is open; it is flushed off the event loop (or at once, for a database in memory). */
  protected commitScheduled(): void {
    if (this.open) this.commitBatch()
  }

  /** What waits for the changes made so far; the next changes are another group's. */
  protected nextGroup(): { waiters: Waiter[]; committed: (() => void)[]; urgent: boolean } {
    const group = { waiters: this.waiters, committed: this.committed, urgent: this.urgent }
    this.waiters = []
    this.committed = []
    this.urgent = false
    this.postponed = false
    this.writes = 0
    clearTimeout(this.commitLater)
    this.commitLater = undefined
    // Events are announced once a group (store/events.ts); what was kept for a read epoch is kept no longer (a batch
    // lasts many turns: batched-commit.ts).
    this.opened++
    this.epoch++
    return group
  }

  /** Commits the open transaction, flushed off the event loop; `onFlushed` is told first when the flush ends. */
  protected commitBatch(onFlushed?: (error?: Error) => void): void {
    const urgent = this.urgent
    let settle: Settle
    try {
      settle = this.endTransaction()
    } catch (error) {
      this.onCommitError(error)
      return
    }
    if (!this.flush) return settle()
    const settleOrTell: Settle = (error) => {
      onFlushed?.(error)
      settle(error)
      if (error) this.onCommitError(error)
    }
    if (urgent) this.flush.afterUrgentCommit(settleOrTell)
    else this.flush.afterCommit(settleOrTell)
  }
}

export function settleOf(waiters: readonly Waiter[], committed: readonly (() => void)[]): Settle {
  return (error) => {
    if (error) {
      for (const waiter of waiters) waiter.reject(error)
      return
    }
    for (const waiter of waiters) waiter.resolve()
    runEach(committed)
  }
}

function runEach(callbacks: readonly (() => void)[]): void {
  for (const then of callbacks) {
    try {
      then()
    } catch {
      // What is told of a commit cannot make it fail: the changes are on disk.
    }
  }
}

function isWal(db: Database): boolean {
  return db.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get()?.journal_mode === 'wal'
}
