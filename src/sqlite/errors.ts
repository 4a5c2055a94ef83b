// What SQLite says when the disk is the problem: the database or the disk is full (SQLITE_FULL),
// or writing failed (SQLITE_IOERR and its extended codes). Whatever the transaction held was
// rolled back; the caller answers that storage is full rather than with a server error.
import { SQLiteError } from 'bun:sqlite'

export function isStorageError(error: unknown): boolean {
  return error instanceof SQLiteError && /^SQLITE_(FULL|IOERR)/.test(error.code ?? '')
}
