// The audit log: who did what, when and from where, for every change made through the admin API
// or on the machine, and every sign-in (failed ones too). Entries are never changed; retention
// deletes the oldest as it does finished jobs.
import type { Database } from 'bun:sqlite'
import { iso } from './time.ts'
import type { AuditEntry } from '../domain/accounts.ts'

export type { AuditEntry }

export interface NewAuditEntry {
  userId: string | null
  user: string | null
  action: string
  target?: string | null
  address?: string | null
}

interface AuditRow {
  id: number
  at: number
  user_name: string | null
  action: string
  target: string | null
  address: string | null
}

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  at: iso(row.at),
  user: row.user_name,
  action: row.action,
  target: row.target,
  address: row.address,
})

export class AuditLog {
  private readonly insert

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {
    this.insert = db.query<never, [number, string | null, string | null, string, string | null, string | null]>(
      'INSERT INTO audit_log (at, user_id, user_name, action, target, address) VALUES (?, ?, ?, ?, ?, ?)',
    )
  }

  /** Appends an entry (in the open transaction, or on its own). */
  record(entry: NewAuditEntry): void {
    this.insert.run(
      this.now(),
      entry.userId,
      entry.user?.slice(0, 128) ?? null,
      entry.action,
      entry.target?.slice(0, 256) ?? null,
      entry.address?.slice(0, 64) ?? null,
    )
  }

  /** Entries newest first, older than entry `before` when given, at most `limit`. */
  page(limit: number, before?: number): AuditEntry[] {
    return this.db
      .query<AuditRow, [number, number]>(
        'SELECT id, at, user_name, action, target, address FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?',
      )
      .all(before ?? Number.MAX_SAFE_INTEGER, limit)
      .map(toEntry)
  }

  /** Deletes at most `limit` of the entries older than `before` (retention); how many went. */
  prune(before: number, limit: number): number {
    return this.db.run(
      'DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)',
      [before, limit],
    ).changes
  }
}
