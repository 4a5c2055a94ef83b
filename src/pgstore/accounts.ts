// The dashboard's accounts on PostgreSQL, their sessions and admin tokens: the same records and rules as the SQLite
// store's (store/users.ts, admin-sessions.ts, admin-tokens.ts). A name is unique whatever its case (an index on
// lower(name)); a session's or a token's use is written at most once a quarter of an hour (storage/last-used.ts), by
// the statement that finds it.
import type { SQL } from 'bun'
import type { AdminSession, AdminToken, SessionLifetime, User } from '../domain/accounts.ts'
import type { AdminRole } from '../protocol/admin-api.ts'
import {
  type AdminTokenRow,
  adminTokenOf,
  type SessionRow,
  sessionOf,
  type UserRow,
  userOf,
} from '../storage/account-rows.ts'
import { newId } from '../storage/ids.ts'
import { useIsNews } from '../storage/last-used.ts'
import type {
  AdminSessionRepository,
  AdminTokenRepository,
  UserChange,
  UserRepository,
} from '../storage/repositories.ts'
import { int } from '../storage/rows.ts'
import { ADMIN_TOKEN_PATTERN, hashSecret, newAdminTokenSecret, randomBase64Url } from '../storage/secrets.ts'

const USER = 'id, name, role, password_hash, language, disabled_at, created_at, updated_at'
const SESSION = 'id, user_id, address, user_agent, created_at, last_seen_at, expires_at, revoked_at'
const TOKEN = 'id, user_id, name, token_prefix, created_at, last_used_at, revoked_at'

export class PgUsers implements UserRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async create(name: string, role: AdminRole, passwordHash: string): Promise<User | undefined> {
    const now = this.now()
    const [row] = await this.sql<UserRow[]>`INSERT INTO users (id, name, role, password_hash, created_at, updated_at)
      VALUES (${newId('usr')}, ${name}, ${role}, ${passwordHash}, ${now}, ${now})
      ON CONFLICT ((lower(name))) DO NOTHING RETURNING ${this.sql.unsafe(USER)}`
    return row ? userOf(row) : undefined
  }

  async get(id: string): Promise<User | undefined> {
    const [row] = await this.sql<UserRow[]>`SELECT ${this.sql.unsafe(USER)} FROM users WHERE id = ${id}`
    return row ? userOf(row) : undefined
  }

  async withHash(name: string): Promise<{ user: User; passwordHash: string } | undefined> {
    const [row] = await this.sql<UserRow[]>`SELECT ${this.sql.unsafe(USER)} FROM users
      WHERE lower(name) = lower(${name})`
    return row ? { user: userOf(row), passwordHash: row.password_hash } : undefined
  }

  async passwordHash(id: string): Promise<string | undefined> {
    const [row] = await this.sql<{ password_hash: string }[]>`SELECT password_hash FROM users WHERE id = ${id}`
    return row?.password_hash
  }

  async list(): Promise<User[]> {
    const rows = await this.sql<UserRow[]>`SELECT ${this.sql.unsafe(USER)} FROM users ORDER BY lower(name), name`
    return rows.map(userOf)
  }

  async count(): Promise<number> {
    const [row] = await this.sql<{ n: string }[]>`SELECT count(*) AS n FROM users`
    return int(row!.n)
  }

  async activeOwners(): Promise<number> {
    const [row] = await this.sql<{ n: string }[]>`SELECT count(*) AS n FROM users
      WHERE role = 'owner' AND disabled_at IS NULL`
    return int(row!.n)
  }

  async update(id: string, change: UserChange): Promise<User | undefined> {
    const now = this.now()
    const disabled = change.disabled === undefined ? null : change.disabled
    const [row] = await this.sql<UserRow[]>`UPDATE users SET role = coalesce(${change.role ?? null}::text, role),
        disabled_at = CASE WHEN ${disabled}::boolean IS NULL THEN disabled_at
          WHEN ${disabled}::boolean THEN coalesce(disabled_at, ${now}) ELSE NULL END,
        password_hash = coalesce(${change.passwordHash ?? null}::text, password_hash),
        language = CASE WHEN ${change.language !== undefined} THEN ${change.language ?? null}::text ELSE language END,
        updated_at = ${now}
      WHERE id = ${id} RETURNING ${this.sql.unsafe(USER)}`
    return row ? userOf(row) : undefined
  }
}

export class PgAdminSessions implements AdminSessionRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
    private readonly lifetime: SessionLifetime,
  ) {}

  async create(userId: string, address: string, userAgent: string) {
    const token = randomBase64Url(32)
    const now = this.now()
    const [row] = await this.sql<SessionRow[]>`INSERT INTO admin_sessions
        (id, user_id, token_hash, address, user_agent, created_at, last_seen_at, expires_at)
      VALUES (${newId('ses')}, ${userId}, ${hashSecret(token)}, ${address.slice(0, 64)}, ${userAgent.slice(0, 256)},
        ${now}, ${now}, ${now + this.lifetime.maxMs})
      RETURNING ${this.sql.unsafe(SESSION)}`
    return { session: sessionOf(row!), token }
  }

  async use(token: string): Promise<AdminSession | undefined> {
    const now = this.now()
    const [row] = await this.sql<SessionRow[]>`SELECT ${this.sql.unsafe(SESSION.replace(/(\w+)/g, 's.$1'))}
      FROM admin_sessions s JOIN users u ON u.id = s.user_id
      WHERE s.token_hash = ${hashSecret(token)} AND s.revoked_at IS NULL AND s.expires_at > ${now}
        AND s.last_seen_at > ${now - this.lifetime.idleMs} AND u.disabled_at IS NULL`
    if (!row) return undefined
    if (useIsNews(int(row.last_seen_at), now)) {
      await this.sql`UPDATE admin_sessions SET last_seen_at = ${now} WHERE id = ${row.id} AND last_seen_at < ${now}`
      row.last_seen_at = now
    }
    return sessionOf(row)
  }

  async listLive(userId: string): Promise<AdminSession[]> {
    const now = this.now()
    const rows = await this.sql<SessionRow[]>`SELECT ${this.sql.unsafe(SESSION)} FROM admin_sessions
      WHERE revoked_at IS NULL AND expires_at > ${now} AND last_seen_at > ${now - this.lifetime.idleMs}
        AND user_id = ${userId}
      ORDER BY created_at DESC`
    return rows.map(sessionOf)
  }

  async revoke(userId: string, id: string): Promise<boolean> {
    const rows = await this.sql`UPDATE admin_sessions SET revoked_at = ${this.now()}
      WHERE id = ${id} AND user_id = ${userId} AND revoked_at IS NULL RETURNING id`
    return rows.length === 1
  }

  async revokeAll(userId: string, keepId?: string): Promise<number> {
    const rows = await this.sql`UPDATE admin_sessions SET revoked_at = ${this.now()}
      WHERE revoked_at IS NULL AND user_id = ${userId} AND id IS DISTINCT FROM ${keepId ?? null}::text RETURNING id`
    return rows.length
  }
}

export class PgAdminTokens implements AdminTokenRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async create(userId: string, name: string) {
    const { secret, prefix } = newAdminTokenSecret()
    const [row] = await this.sql<AdminTokenRow[]>`INSERT INTO admin_tokens
        (id, user_id, name, token_prefix, token_hash, created_at)
      VALUES (${newId('adt')}, ${userId}, ${name}, ${prefix}, ${hashSecret(secret)}, ${this.now()})
      RETURNING ${this.sql.unsafe(TOKEN)}`
    return { token: adminTokenOf(row!), secret }
  }

  async use(secret: string): Promise<AdminToken | undefined> {
    if (!ADMIN_TOKEN_PATTERN.test(secret)) return undefined
    const [row] = await this.sql<AdminTokenRow[]>`SELECT ${this.sql.unsafe(TOKEN.replace(/(\w+)/g, 't.$1'))}
      FROM admin_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_hash = ${hashSecret(secret)} AND t.revoked_at IS NULL AND u.disabled_at IS NULL`
    if (!row) return undefined
    const now = this.now()
    if (useIsNews(row.last_used_at === null ? null : int(row.last_used_at), now)) {
      await this.sql`UPDATE admin_tokens SET last_used_at = ${now}
        WHERE id = ${row.id} AND (last_used_at IS NULL OR last_used_at < ${now})`
      row.last_used_at = now
    }
    return adminTokenOf(row)
  }

  async list(userId?: string): Promise<AdminToken[]> {
    const rows = await this.sql<AdminTokenRow[]>`SELECT ${this.sql.unsafe(TOKEN)} FROM admin_tokens
      WHERE ${userId ?? null}::text IS NULL OR user_id = ${userId ?? null}::text ORDER BY created_at, id`
    return rows.map(adminTokenOf)
  }

  async revoke(id: string, userId?: string): Promise<boolean> {
    const rows = await this.sql`UPDATE admin_tokens SET revoked_at = ${this.now()}
      WHERE id = ${id} AND (${userId ?? null}::text IS NULL OR user_id = ${userId ?? null}::text)
        AND revoked_at IS NULL RETURNING id`
    return rows.length === 1
  }
}
