import type { Database } from 'bun:sqlite'

/** A credential's last use is written at most once a minute: a busy client costs no write per request. */
const LAST_USED_RESOLUTION_MS = 60_000

/** Records that the credential `row` of `table` was used now; updates `row` to match. */
export function recordUse(db: Database, table: 'api_keys' | 'admin_tokens', row: { id: string; last_used_at: number | null }, now: number): void {
  if (row.last_used_at !== null && now - row.last_used_at < LAST_USED_RESOLUTION_MS) return
  db.run(`UPDATE ${table} SET last_used_at = ? WHERE id = ?`, [now, row.id])
  row.last_used_at = now
}
