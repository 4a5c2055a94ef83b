// Projects' API keys on PostgreSQL: the same records and rules as the SQLite store's (store/api-keys.ts). A key's use
// is written at most once a minute (storage/last-used.ts), by the statement that finds it.
import type { SQL } from 'bun'
import type { ApiKey } from '../domain/records.ts'
import { API_KEY_PATTERN, type ApiKeyScope } from '../protocol/api-key.ts'
import { newId } from '../storage/ids.ts'
import { useIsNews } from '../storage/last-used.ts'
import type { ApiKeyRepository } from '../storage/repositories.ts'
import { hashSecret, newApiKeySecret } from '../storage/secrets.ts'
import { int, time, timeOrNull } from './rows.ts'

interface ApiKeyRow {
  id: string
  project_id: string
  name: string | null
  key_prefix: string
  scopes: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
}

const COLUMNS = 'id, project_id, name, key_prefix, scopes, created_at, last_used_at, revoked_at'

const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  keyPrefix: row.key_prefix,
  scopes: row.scopes.split(' ') as ApiKeyScope[],
  createdAt: time(row.created_at),
  lastUsedAt: timeOrNull(row.last_used_at),
  revokedAt: timeOrNull(row.revoked_at),
})

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
    return { key: toApiKey(row!), secret }
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
    return toApiKey(row)
  }

  async get(id: string): Promise<ApiKey | undefined> {
    const [row] = await this.sql<ApiKeyRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM api_keys WHERE id = ${id}`
    return row ? toApiKey(row) : undefined
  }

  async list(projectId: string): Promise<ApiKey[]> {
    const rows = await this.sql<ApiKeyRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM api_keys
      WHERE project_id = ${projectId} ORDER BY created_at, id`
    return rows.map(toApiKey)
  }

  async revoke(id: string): Promise<boolean> {
    const rows = await this.sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${this.now()})
      WHERE id = ${id} RETURNING id`
    return rows.length > 0
  }
}
