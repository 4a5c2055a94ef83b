// What SQLite says when the disk is the problem: the database or the disk is full (SQLITE_FULL),
// or writing failed (SQLITE_IOERR and its extended codes). Whatever the transaction held was
// rolled back; the caller answers that storage is full rather than with a server error. And a write lock another
// connection holds, for who would rather not wait for it.
import { type Database, SQLiteError } from 'bun:sqlite'

export function isStorageError(error: unknown): boolean {
  return error instanceof SQLiteError && /^SQLITE_(FULL|IOERR)/.test(error.code ?? '')
}

/**
 * Runs `work` (which takes the write lock: `BEGIN IMMEDIATE`) without waiting for a lock another connection holds:
 * `locked` when one does (a running hub's batch), else what `work` returned. The busy timeout is as it was after.
 */
export function unlessLocked<T>(db: Database, work: () => T): { locked: true } | { locked: false; value: T } {
  const timeout = db.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()!.timeout
  db.run('PRAGMA busy_timeout = 0')
  try {
    return { locked: false, value: work() }
  } catch (error) {
    if (error instanceof SQLiteError && error.code?.startsWith('SQLITE_BUSY')) return { locked: true }
    throw error
  } finally {
    db.run(`PRAGMA busy_timeout = ${timeout}`)
  }
}
