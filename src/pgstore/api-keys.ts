// Projects' API keys on PostgreSQL: the same records and rules as the SQLite store's (store/api-keys.ts). A key's use
// is written at most once a minute (storage/last-used.ts), by the statement that finds it.
import type { SQL } from 'bun'
import type { ApiKey } from '../domain/records.ts'
import { API_KEY_PATTERN, type ApiKeyScope } from '../protocol/api-key.ts'
import { newId } from '../storage/ids.ts'
import { useIsNews } from '../storage/last-used.ts'
import type { ApiKeyRepository } from '../storage/repositories.ts'
import { hashSecret, newApiKeySecret } from '../storage/secrets.ts'
import { apiKeyOf, type ApiKeyRow, int } from '../storage/rows.ts'

const COLUMNS = 'id, project_id, name, key_prefix, scopes, created_at, last_used_at, revoked_at'

export class PgApiKeys implements ApiKeyRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async create(projectId: string, scopes: readonly ApiKeyScope[], name: string | null) {
    const { secret, prefix } = newApiKeySecret()
    const [row] = await this.sql<ApiKeyRow[]>`INSERT INTO api_keys
        (id, project_id, name, key_prefix, secret_hash, scopes, created_at)
      VALUES (${newId('apk')}, ${projectId}, ${name}, ${prefix}, ${hashSecret(secret)},
        ${[...new Set(scopes)].sort().join(' ')}, ${this.now()})
      RETURNING ${this.sql.unsafe(COLUMNS)}`
    return { key: apiKeyOf(row!), secret }
  }

  async use(secret: string): Promise<ApiKey | undefined> {
    if (!API_KEY_PATTERN.test(secret)) return undefined
    const [row] = await this.sql<ApiKeyRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM api_keys
      WHERE secret_hash = ${hashSecret(secret)} AND revoked_at IS NULL`
    if (!row) return undefined
    // Written at most once a minute: a busy application costs no write per request.
    const now = this.now()
    if (useIsNews(row.last_used_at === null ? null : int(row.last_used_at), now)) {
      await this.sql`UPDATE api_keys SET last_used_at = ${now}
        WHERE id = ${row.id} AND (last_used_at IS NULL OR last_used_at < ${now})`
      row.last_used_at = String(now)
    }
    return apiKeyOf(row)
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const [row] = await this.sql<ApiKeyRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM api_keys WHERE id = ${id}`
    return row ? apiKeyOf(row) : undefined
  }

  async list(projectId: string): Promise<ApiKey[]> {
    const rows = await this.sql<ApiKeyRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM api_keys
      WHERE project_id = ${projectId} ORDER BY created_at, id`
    return rows.map(apiKeyOf)
  }

  async revoke(id: string): Promise<boolean> {
    const rows = await this.sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${this.now()})
      WHERE id = ${id} RETURNING id`
    return rows.length > 0
  }
}
