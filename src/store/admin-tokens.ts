import type { Database } from 'bun:sqlite'
import { newId } from '../storage/ids.ts'
import { recordUse } from './last-used.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import { ADMIN_TOKEN_PATTERN, hashSecret, newAdminTokenSecret } from '../storage/secrets.ts'
import { adminTokenOf as toToken, type AdminTokenRow as TokenRow } from '../storage/account-rows.ts'
import type { AdminTokenRepository } from '../storage/repositories.ts'
import { int } from '../storage/rows.ts'
import { bound } from '../sqlite/bound.ts'
import type { AdminToken } from '../domain/accounts.ts'

export type { AdminToken }

/** Tokens that give scripts the admin API as one account; the secret is shown once and stored only as a hash. */
export class AdminTokens implements AdminTokenRepository {
  constructor(
    private readonly db: Database,
    private readonly commits: GroupCommit,
    private readonly now: () => number,
  ) {}

  create(userId: string, name: string): { token: AdminToken; secret: string } {
    const { secret, prefix } = newAdminTokenSecret()
    const row = this.db
      .query<TokenRow, [string, string, string, string, Uint8Array, number]>(
        `INSERT INTO admin_tokens (id, user_id, name, token_prefix, token_hash,
          created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(newId('adt'), userId, name, prefix, hashSecret(secret), this.now())!
    return { token: toToken(row), secret }
  }

  /**
   * The active token with this secret, its use recorded; undefined for a malformed, unknown or revoked one, or one of a
   * disabled account.
   */
  use(secret: string): AdminToken | undefined {
    if (!ADMIN_TOKEN_PATTERN.test(secret)) return undefined
    const row = this.db
      .query<TokenRow, [Uint8Array]>(
        `SELECT t.* FROM admin_tokens t JOIN users u ON u.id = t.user_id WHERE
          t.token_hash = ${bound('?', 'BLOB')} AND t.revoked_at IS NULL AND
          u.disabled_at IS NULL`,
      )
      .get(hashSecret(secret))
    if (!row) return undefined
    row.last_used_at = recordUse(
      { commits: this.commits, db: this.db, table: 'admin_tokens', column: 'last_used_at' },
      row.id,
      row.last_used_at === null ? null : int(row.last_used_at),
      this.now(),
    )
    return toToken(row)
  }

  /** The account's tokens (every account's without one), oldest first. */
  list(userId?: string): AdminToken[] {
    return this.db
      .query<TokenRow, [string | null]>(
        `SELECT * FROM admin_tokens WHERE ?1 IS NULL OR user_id = ${bound('?1')} ORDER BY created_at, id`,
      )
      .all(userId ?? null)
      .map(toToken)
  }

  /** Revokes one of the account's tokens (any account's, without one). */
  revoke(id: string, userId?: string): boolean {
    return (
      this.db.run(
        'UPDATE admin_tokens SET revoked_at = ? WHERE id = ? AND (?3 IS NULL OR user_id = ?3) AND revoked_at IS NULL',
        [this.now(), id, userId ?? null],
      ).changes === 1
    )
  }
}
