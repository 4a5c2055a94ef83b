import type { Database } from 'bun:sqlite'

/** A credential's last use is written at most once a minute: a busy client costs no write per request. */
const LAST_USED_RESOLUTION_MS = 60_000

type UseColumn = { table: 'api_keys' | 'admin_tokens'; column: 'last_used_at' } | { table: 'admin_sessions'; column: 'last_seen_at' }

/** Records that the credential `id` was used at `now`, unless `last` (its recorded use) is recent; returns the use to show. */
export function recordUse(db: Database, where: UseColumn, id: string, last: number | null, now: number): number {
  if (last !== null && now - last < LAST_USED_RESOLUTION_MS) return last
  db.run(`UPDATE ${where.table} SET ${where.column} = ? WHERE id = ?`, [now, id])
  return now
}
