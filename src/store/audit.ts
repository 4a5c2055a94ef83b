// The audit log: who did what, when and from where, for every change made through the admin API
// or on the machine, and every sign-in (failed ones too). Entries are never changed; retention
// deletes the oldest as it does finished jobs.
import type { Database } from 'bun:sqlite'
import { auditEntryOf, type AuditLogRow } from '../storage/rows.ts'
import type { AuditEntry } from '../domain/accounts.ts'
import { auditRowOf } from '../storage/audit-row.ts'
import type { AuditRepository, NewAuditEntry } from '../storage/repositories.ts'

export type { AuditEntry, NewAuditEntry }

export class AuditLog implements AuditRepository {
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
    const row = auditRowOf(entry)
    this.insert.run(this.now(), row.userId, row.user, row.action, row.target, row.address)
  }

  /** Entries newest first, older than entry `before` when given, at most `limit`. */
  page(limit: number, before?: number): AuditEntry[] {
    return this.db
      .query<AuditLogRow, [number, number]>(
        'SELECT id, at, user_name, action, target, address FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?',
      )
      .all(before ?? Number.MAX_SAFE_INTEGER, limit)
      .map(auditEntryOf)
  }

  /** Deletes at most `limit` of the entries older than `before` (retention); how many went. */
  prune(before: number, limit: number): number {
    return this.db.run(
      'DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)',
      [before, limit],
    ).changes
  }
}
