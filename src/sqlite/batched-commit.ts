// The group commit of the process that owns a database file (the hub): its transaction, a batch, stays open for up to
// REDO_BATCH_MS across turns of the event loop. What must be on disk at the end of a turn (an answer, bytes to a
// printer) is written as one record of the redo log and flushed (redo-batch.ts); the batch is committed to SQLite
// once, each page it changed written once. The same promises as GroupCommit's: `durable()` settles once the changes are
// on disk (in the log, or committed), `afterCommit` runs then, never for changes undone.
//
// While a batch is open the hub holds SQLite's write lock: another process that writes (the CLI) waits for it, at most
// REDO_BATCH_MS, and another connection reads what the last batch committed. After a batch, once every REDO_BATCH_MS,
// the hub leaves the lock free between its turns for YIELD_MS, its changes committed each turn as GroupCommit's are
// (SQLite lets a waiting writer in only when it finds the lock free, looking every 100 ms at most: without the gap a
// busy hub starves it).
import type { Database } from 'bun:sqlite'
import { fileOf } from './database.ts'
import { GroupCommit, settleOf } from './group-commit.ts'
import { REDO_BATCH_MS, RedoBatch } from './redo-batch.ts'
import type { Fsync, Settle } from './wal-flush.ts'

/** After a batch, how long the hub's changes are committed each turn, leaving the lock free between turns. */
export const YIELD_MS = 120
/**
 * A batch with no record for this long is committed: a burst of jobs shares one commit, and another process (the CLI)
 * reads what the hub changed a moment after it went quiet, not up to REDO_BATCH_MS later.
 */
export const IDLE_COMMIT_MS = 50

export class BatchedCommit extends GroupCommit {
  private readonly redo: RedoBatch
  private readonly batchMs: number
  private readonly idleMs: number
  private batchLater: Timer | undefined
  private idleLater: Timer | undefined
  /** The batch being committed is committed for being quiet. */
  private quiet = false
  /** When the last record was written. */
  private recordedAt = 0
  /** The open transaction is a batch (else a transaction of one turn, during a yield). */
  private batching = false
  /** When the next transaction may be a batch again. */
  private batchingFrom = 0
  /** When the last yield began. */
  private yielded = 0

  constructor(
    db: Database,
    onCommitError: (error: unknown) => void,
    /** How long a batch stays open at most, and once quiet (tests change them). */
    timing: { batchMs?: number; idleMs?: number } = {},
    fsync?: Fsync,
  ) {
    super(db, onCommitError, fsync)
    this.batchMs = timing.batchMs ?? REDO_BATCH_MS
    this.idleMs = timing.idleMs ?? IDLE_COMMIT_MS
    const file = fileOf(db)
    if (!file || !this.flush) throw new Error('batched commits need a database file in WAL mode')
    this.redo = new RedoBatch(db, file, fsync)
  }

  /** Whether changes written are not yet in a record of the redo log (or committed). */
  override get unsettled(): boolean {
    if (!this.batching) return this.open
    return this.open && (this.writes > 0 || this.waiters.length > 0 || this.committed.length > 0)
  }

  /** The notes of the redo log's capture, which `total_changes()` counts with the database's rows. */
  override get ownChanges(): number {
    return this.redo.noise()
  }

  protected override get flushing(): boolean {
    return this.flush!.pending || this.redo.pending
  }

  /** Commits the batch now, and flushes it on this thread. */
  override commit(): void {
    const seq = this.open ? this.beforeCommit() : undefined
    super.commit()
    if (seq !== undefined) this.redo.committed(seq)
  }

  /** The changes so far as a record of the redo log, flushed on this thread (a commit, when it does not fit). */
  override flushNow(): void {
    if (!this.open || !this.batching) return this.commit()
    const group = this.nextGroup()
    const settle = settleOf(group.waiters, group.committed)
    let recorded: boolean
    try {
      recorded = this.redo.recordNow(this.flush!)
    } catch (error) {
      settle(error as Error)
      this.onCommitError(error)
      throw error
    }
    if (!recorded) {
      this.waiters = group.waiters
      this.committed = group.committed
      return this.commit()
    }
    this.recorded()
    settle()
  }

  /** Commits the batch now, and leaves the lock free between turns for a moment: another process waits for it. */
  override commitForOthers(): void {
    this.commit()
    this.yielded = performance.now()
    this.batchingFrom = this.yielded + YIELD_MS
  }

  override close(): void {
    super.close()
    this.redo.close()
  }

  protected override beginTransaction(): void {
    this.redo.opened()
    super.beginTransaction()
    this.batching = performance.now() >= this.batchingFrom
    if (this.batching) this.batchLater = setTimeout(() => this.endBatch(), this.batchMs)
  }

  protected override ended(): void {
    if (!this.batching) return
    clearTimeout(this.batchLater)
    clearTimeout(this.idleLater)
    this.idleLater = undefined
    this.redo.ended()
    // A batch committed for being quiet leaves the lock free anyway.
    if (this.quiet) return
    const now = performance.now()
    if (now - this.yielded < this.batchMs) return
    this.yielded = now
    this.batchingFrom = now + YIELD_MS
  }

  /**
   * The batch was rolled back under us (its COMMIT failed: a full disk): its records, said durable, are applied again
   * in a new one. If they cannot be, they stay in the redo log, which the next start applies.
   */
  protected override rolledBack(): void {
    if (!this.batching) return
    clearTimeout(this.batchLater)
    clearTimeout(this.idleLater)
    this.idleLater = undefined
    try {
      // A batch again, whatever the time: its records are not in the database, and only a batch's commit says which
      // records the database holds (a transaction of one turn holding them would leave them to be applied again).
      this.batchingFrom = 0
      this.beginTransaction()
      this.redo.reapply()
    } catch (error) {
      if (this.db.inTransaction) this.db.run('ROLLBACK')
      this.open = false
      clearTimeout(this.batchLater)
      this.fullFlushes()
      this.onCommitError(error)
    }
  }

  protected override whenFlushed(then: Settle): void {
    this.redo.whenFlushed((error) => (error ? then(error) : this.flush!.whenFlushed(then)))
  }

  /**
   * What changed since the last record becomes the next, and whoever waits for it is told once it is flushed; the
   * batch stays open. When it does not fit in the log, the batch is committed now instead.
   */
  protected override commitScheduled(): void {
    if (!this.open) return
    if (!this.batching) {
      this.redo.forget()
      return this.commitBatch()
    }
    const { waiters, committed, urgent } = this.nextGroup()
    const settle = settleOf(waiters, committed)
    let recorded: boolean
    try {
      recorded = this.redo.record(urgent, this.flush!, (error) => {
        settle(error)
        if (error) this.onCommitError(error)
      })
    } catch {
      // The record could not be written (an I/O error): its changes are still in the batch, whose commit carries them.
      recorded = false
    }
    if (recorded) return this.recorded()
    this.waiters = waiters
    this.committed = committed
    this.urgent = urgent
    this.endBatch()
  }

  /** After a record: the batch is committed once its records fill half a file, or once quiet. */
  private recorded(): void {
    this.stats.commits++
    if (this.redo.full) return this.endBatch()
    this.recordedAt = performance.now()
    this.idleLater ??= setTimeout(() => this.commitIfIdle(), this.idleMs)
  }

  /** Commits the batch once no record was written for `idleMs`; looks again then otherwise. */
  private commitIfIdle(): void {
    this.idleLater = undefined
    if (!this.open || !this.batching) return
    const quiet = performance.now() - this.recordedAt
    if (quiet < this.idleMs) {
      this.idleLater = setTimeout(() => this.commitIfIdle(), this.idleMs - quiet)
      return
    }
    this.quiet = true
    try {
      this.endBatch()
    } finally {
      this.quiet = false
    }
  }

  /** Before a COMMIT: the last record the database holds, for a batch (else its changes are in no record). */
  private beforeCommit(): number | undefined {
    if (this.batching) return this.redo.beforeCommit()
    this.redo.forget()
    return undefined
  }

  /** Commits the batch (its changes since the last record with it), flushed off the event loop. */
  private endBatch(): void {
    if (!this.open) return
    let seq: number
    try {
      seq = this.redo.beforeCommit()
    } catch (error) {
      this.onCommitError(error)
      // Tried again later: the batch stays open meanwhile.
      this.batchLater = setTimeout(() => this.endBatch(), this.batchMs)
      return
    }
    this.commitBatch((error) => error || this.redo.committed(seq))
  }
}
