import type { Database } from 'bun:sqlite'
import { API_KEY_PATTERN, type ApiKeyScope } from '../protocol/api-key.ts'
import { newId } from '../storage/ids.ts'
import { recordUse } from './last-used.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import { hashSecret, newApiKeySecret } from '../storage/secrets.ts'
import { apiKeyOf, type ApiKeyRow, int } from '../storage/rows.ts'
import { bound } from '../sqlite/bound.ts'
import type { ApiKey } from '../domain/records.ts'
import type { ApiKeyRepository } from '../storage/repositories.ts'

export type { ApiKey }

export class ApiKeys implements ApiKeyRepository {
  constructor(
    private readonly db: Database,
    private readonly commits: GroupCommit,
    private readonly now: () => number,
  ) {}

  /** Creates a key; the secret is returned here once and stored only as a hash. */
  create(projectId: string, scopes: readonly ApiKeyScope[], name: string | null): { key: ApiKey; secret: string } {
    const { secret, prefix } = newApiKeySecret()
    const row = this.db
      .query<ApiKeyRow, [string, string, string | null, string, Uint8Array, string, number]>(
        `INSERT INTO api_keys (id, project_id, name, key_prefix, secret_hash, scopes, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(
        newId('apk'),
        projectId,
        name,
        prefix,
        hashSecret(secret),
        [...new Set(scopes)].sort().join(' '),
        this.now(),
      )!
    return { key: apiKeyOf(row), secret }
  }

  /** The active key with this secret, its use recorded; undefined for a malformed, unknown or revoked one. */
  use(secret: string): ApiKey | undefined {
    if (!API_KEY_PATTERN.test(secret)) return undefined
    const row = this.db
      .query<ApiKeyRow, [Uint8Array]>('SELECT * FROM api_keys WHERE secret_hash = ? AND revoked_at IS NULL')
      .get(hashSecret(secret))
    if (!row) return undefined
    row.last_used_at = recordUse(
      { commits: this.commits, db: this.db, table: 'api_keys', column: 'last_used_at' },
      row.id,
      row.last_used_at === null ? null : int(row.last_used_at),
      this.now(),
    )
    return apiKeyOf(row)
  }

  get(id: string): ApiKey | undefined {
    const row = this.db.query<ApiKeyRow, [string]>('SELECT * FROM api_keys WHERE id = ?').get(id)
    return row ? apiKeyOf(row) : undefined
  }

  list(projectId: string): ApiKey[] {
    return this.db
      .query<ApiKeyRow, [string]>(`SELECT * FROM api_keys WHERE project_id = ${bound()} ORDER BY created_at, id`)
      .all(projectId)
      .map(apiKeyOf)
  }

  /** Revokes a key; false when there is no such key. Revoking twice keeps the first time. */
  revoke(id: string): boolean {
    const found = this.db.query('SELECT 1 FROM api_keys WHERE id = ?').get(id)
    if (!found) return false
    this.db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [this.now(), id])
    return true
  }
}
