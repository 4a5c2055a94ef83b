import type { Database } from 'bun:sqlite'
import { newId } from '../storage/ids.ts'
import { recordUse } from './last-used.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import { hashSecret, randomBase64Url } from '../storage/secrets.ts'
import { sessionOf as toSession, type SessionRow } from '../storage/account-rows.ts'
import type { AdminSessionRepository } from '../storage/repositories.ts'
import { int } from '../storage/rows.ts'
import { bound } from '../sqlite/bound.ts'
import type { AdminSession, SessionLifetime } from '../domain/accounts.ts'

export type { AdminSession, SessionLifetime }

/** Dashboard sessions, each one account's: the browser holds the token, the store only its hash. */
export class AdminSessions implements AdminSessionRepository {
  constructor(
    private readonly db: Database,
    private readonly commits: GroupCommit,
    private readonly now: () => number,
    private readonly lifetime: SessionLifetime,
  ) {}

  create(userId: string, address: string, userAgent: string): { session: AdminSession; token: string } {
    const token = randomBase64Url(32)
    const now = this.now()
    const row = this.db
      .query<SessionRow, [string, string, Uint8Array, string, string, number, number, number]>(
        `INSERT INTO admin_sessions (id, user_id, token_hash, address,
          user_agent, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?,
          ?, ?, ?) RETURNING *`,
      )
      .get(
        newId('ses'),
        userId,
        hashSecret(token),
        address.slice(0, 64),
        userAgent.slice(0, 256),
        now,
        now,
        now + this.lifetime.maxMs,
      )!
    return { session: toSession(row), token }
  }

  /**
   * The live session of this token, its use recorded; undefined when unknown, revoked, idle too long, expired, or its
   * account is disabled.
   */
  use(token: string): AdminSession | undefined {
    const now = this.now()
    const row = this.db
      .query<SessionRow, [Uint8Array, number, number]>(
        `SELECT s.* FROM admin_sessions s JOIN users u ON u.id = s.user_id
         WHERE s.token_hash = ${bound('?1', 'BLOB')} AND s.revoked_at IS NULL AND s.expires_at > ?2
           AND s.last_seen_at > ?2 - ?3 AND u.disabled_at IS NULL`,
      )
      .get(hashSecret(token), now, this.lifetime.idleMs)
    if (!row) return undefined
    row.last_seen_at = recordUse(
      { commits: this.commits, db: this.db, table: 'admin_sessions', column: 'last_seen_at' },
      row.id,
      int(row.last_seen_at),
      now,
    )
    return toSession(row)
  }

  /** The account's sessions that may still be used, newest first. */
  listLive(userId: string): AdminSession[] {
    const now = this.now()
    return this.db
      .query<SessionRow, [number, number, string]>(
        `SELECT * FROM admin_sessions WHERE revoked_at IS NULL AND expires_at >
          ?1 AND last_seen_at > ?1 - ?2 AND user_id = ${bound('?3')} ORDER BY
          created_at DESC`,
      )
      .all(now, this.lifetime.idleMs, userId)
      .map(toSession)
  }

  /** Ends one of the account's sessions. */
  revoke(userId: string, id: string): boolean {
    return (
      this.db.run('UPDATE admin_sessions SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL', [
        this.now(),
        id,
        userId,
      ]).changes === 1
    )
  }

  /**
   * Ends every session of the account but `keepId` (after a password change, "sign out everywhere", the account
   * disabled).
   */
  revokeAll(userId: string, keepId?: string): number {
    return this.db.run(
      'UPDATE admin_sessions SET revoked_at = ? WHERE revoked_at IS NULL AND user_id = ? AND id IS NOT ?',
      [this.now(), userId, keepId ?? null],
    ).changes
  }
}
