import type { Database } from 'bun:sqlite'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import { useIsNews } from '../storage/last-used.ts'

/** Where a credential's last use is written: its table's column, through the group commit. */
export type UseRecord = { commits: GroupCommit; db: Database } & (
  | { table: 'api_keys' | 'admin_tokens'; column: 'last_used_at' }
  | { table: 'admin_sessions'; column: 'last_seen_at' }
)

/**
 * Records that the credential `id` was used at `now`, unless `last` (its recorded use) is recent;
 * returns the use to show. The use rides in the group commit (with the next change, or within
 * UNAWAITED_COMMIT_MS), flushed off the event loop: in a transaction of its own it would flush the
 * disk on the loop, which an SD card can hold for tens of milliseconds. A crash may lose it: a
 * use is a hint for people, and a session's last use errs towards ending it sooner.
 */
export function recordUse(where: UseRecord, id: string, last: number | null, now: number): number {
  if (last !== null && !useIsNews(last, now)) return last
  const { commits, db } = where
  commits.defer(() => db.run(`UPDATE ${where.table} SET ${where.column} = ? WHERE id = ?`, [now, id]))
  return now
}
