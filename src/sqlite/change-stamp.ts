// A mark of what a connection reads, for answers kept while nothing they were made from changed.
// Two counters of SQLite's cover every way a row changes: `total_changes()` counts the rows this
// connection inserted, updated or deleted (triggers and foreign key actions included; a change
// rolled back stays counted, so undoing one changes the mark too), and `data_version` changes when
// another connection (the CLI, a second process) commits.
import type { Database } from 'bun:sqlite'

const STAMP_SQL = 'SELECT total_changes() AS changes, data_version AS version FROM pragma_data_version'

/**
 * The mark of the database's rows as `db` reads them now; undefined inside a transaction, whose
 * changes are not settled yet (nothing read there may be kept), unless the caller knows they are (`settled`: a
 * group commit's batch whose changes are all in its redo log, and which holds the write lock).
 */
export function changeStamp(db: Database, settled = false): string | undefined {
  if (db.inTransaction && !settled) return undefined
  const { changes, version } = db.query<{ changes: number; version: number }, []>(STAMP_SQL).get()!
  return `${changes}.${version}`
}
