// The audit log on PostgreSQL: the same entries as the SQLite store's (store/audit.ts), cut to the same lengths.
import type { SQL } from 'bun'
import type { AuditEntry } from '../domain/accounts.ts'
import { auditRowOf } from '../storage/audit-row.ts'
import type { AuditRepository, NewAuditEntry } from '../storage/repositories.ts'
import { auditEntryOf, type AuditLogRow } from '../storage/rows.ts'

export class PgAuditLog implements AuditRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async record(entry: NewAuditEntry): Promise<void> {
    const row = auditRowOf(entry)
    await this.sql`INSERT INTO audit_log (at, user_id, user_name, action, target, address)
      VALUES (${this.now()}, ${row.userId}, ${row.user}, ${row.action}, ${row.target}, ${row.address})`
  }

  async page(limit: number, before?: number): Promise<AuditEntry[]> {
    const rows = await this.sql<AuditLogRow[]>`SELECT id, at, user_name, action, target, address FROM audit_log
      WHERE id < ${before ?? Number.MAX_SAFE_INTEGER} ORDER BY id DESC LIMIT ${limit}`
    return rows.map(auditEntryOf)
  }

  async prune(before: number, limit: number): Promise<number> {
    const rows = await this.sql`DELETE FROM audit_log
      WHERE id IN (SELECT id FROM audit_log WHERE at < ${before} ORDER BY at LIMIT ${limit}) RETURNING id`
    return rows.length
  }
}
