// Group commit: changes share transactions, so one disk flush serves many of them. A change takes
// effect at once, for the code that made it. Whatever must not happen before the change is on
// disk (an answer to a client, an acknowledgement, bytes to a printer) waits for `durable()`,
// which commits at the end of the current turn of the event loop, with everything else changed
// in it. Changes nobody waits for ride along with the next such commit, or are committed within
// UNAWAITED_COMMIT_MS.
import type { Database } from 'bun:sqlite'

/** Bounds one transaction, so one busy turn cannot hold the writer for long. */
export const MAX_WRITES_PER_COMMIT = 256
/**
 * How long a change nobody waits for may stay uncommitted. A crash within that time loses it, so
 * only changes that can be learned again are left unawaited.
 */
export const UNAWAITED_COMMIT_MS = 20

interface Waiter {
  resolve: () => void
  reject: (error: unknown) => void
}

export class GroupCommit {
  private open = false
  private writes = 0
  private waiters: Waiter[] = []
  private commitThisTurn = false
  private commitLater: Timer | undefined
  /** Transactions committed and the changes they carried: how well flushes are shared. */
  readonly stats = { commits: 0, writes: 0 }

  constructor(
    private readonly db: Database,
    private readonly onCommitError: (error: unknown) => void,
  ) {}

  /**
   * Runs `change` in the open transaction. A change that throws undoes only itself (it runs in a
   * savepoint); the others stay.
   */
  write<T>(change: () => T): T {
    if (!this.open) {
      // IMMEDIATE: the write lock is taken now, so the commit cannot find another writer in the way.
      this.db.run('BEGIN IMMEDIATE')
      this.open = true
      this.commitLater = setTimeout(() => this.commitScheduled(), UNAWAITED_COMMIT_MS)
    }
    const result = this.db.transaction(change)()
    this.stats.writes++
    if (++this.writes >= MAX_WRITES_PER_COMMIT) this.commit()
    return result
  }

  /** Settles once every change written so far is committed (rejects if that commit failed). */
  durable(): Promise<void> {
    if (!this.open) return Promise.resolve()
    if (!this.commitThisTurn) {
      this.commitThisTurn = true
      // setImmediate runs after the turn's I/O callbacks: everything they change joins this commit.
      setImmediate(() => {
        this.commitThisTurn = false
        this.commitScheduled()
      })
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }))
  }

  /**
   * Commits now what is open; at shutdown, and where a change must be on disk before going on.
   * Throws if the commit failed; what it held is then rolled back.
   */
  commit(): void {
    if (!this.open) return
    const waiters = this.waiters
    this.waiters = []
    this.open = false
    this.writes = 0
    clearTimeout(this.commitLater)
    try {
      this.db.run('COMMIT')
    } catch (error) {
      // A failed COMMIT may leave the transaction open; what it held is lost either way.
      if (this.db.inTransaction) this.db.run('ROLLBACK')
      for (const waiter of waiters) waiter.reject(error)
      throw error
    }
    this.stats.commits++
    for (const waiter of waiters) waiter.resolve()
  }

  private commitScheduled(): void {
    try {
      this.commit()
    } catch (error) {
      this.onCommitError(error)
    }
  }
}
