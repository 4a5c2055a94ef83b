// The dashboard's accounts: a name (unique whatever its case), a role, a password hash (the
// services hash and check it), and whether the account is disabled. Each session and admin token
// is one account's (admin-sessions.ts, admin-tokens.ts).
import type { Database } from 'bun:sqlite'
import type { AdminRole } from '../protocol/admin-api.ts'
import { newId } from '../storage/ids.ts'
import type { User } from '../domain/accounts.ts'
import { userOf as toUser, type UserRow } from '../storage/account-rows.ts'
import type { UserChange, UserRepository } from '../storage/repositories.ts'

export type { User }

export class Users implements UserRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  /** A new account; undefined when the name is taken (whatever its case). */
  create(name: string, role: AdminRole, passwordHash: string): User | undefined {
    const now = this.now()
    const row = this.db
      .query<UserRow, [string, string, string, string, number, number]>(
        `INSERT INTO users (id, name, role, password_hash, created_at,
          updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING
          RETURNING *`,
      )
      .get(newId('usr'), name, role, passwordHash, now, now)
    return row ? toUser(row) : undefined
  }

  get(id: string): User | undefined {
    const row = this.db.query<UserRow, [string]>('SELECT * FROM users WHERE id = ?').get(id)
    return row ? toUser(row) : undefined
  }

  /** The account of this name (whatever its case), with its password hash, to check a sign-in against. */
  withHash(name: string): { user: User; passwordHash: string } | undefined {
    const row = this.db.query<UserRow, [string]>('SELECT * FROM users WHERE name = ?').get(name)
    return row ? { user: toUser(row), passwordHash: row.password_hash } : undefined
  }

  passwordHash(id: string): string | undefined {
    return this.db.query<{ password_hash: string }, [string]>('SELECT password_hash FROM users WHERE id = ?').get(id)
      ?.password_hash
  }

  /** Every account, by name. */
  list(): User[] {
    return this.db.query<UserRow, []>('SELECT * FROM users ORDER BY name').all().map(toUser)
  }

  /** How many accounts there are (0: the hub waits for its first owner). */
  count(): number {
    return this.db.query<{ n: number }, []>('SELECT count(*) AS n FROM users').get()!.n
  }

  /** How many owners can sign in. */
  activeOwners(): number {
    return this.db
      .query<{ n: number }, []>("SELECT count(*) AS n FROM users WHERE role = 'owner' AND disabled_at IS NULL")
      .get()!.n
  }

  update(id: string, change: UserChange): User | undefined {
    const now = this.now()
    const row = this.db
      .query<
        UserRow,
        [string | null, number | null, number | null, string | null, number, string | null, number, string]
      >(
        `UPDATE users SET role = coalesce(?1, role),
           disabled_at = CASE WHEN ?2 IS NULL THEN disabled_at WHEN ?2 = 1 THEN coalesce(disabled_at, ?3) ELSE NULL END,
           password_hash = coalesce(?4, password_hash),
           language = CASE WHEN ?5 = 1 THEN ?6 ELSE language END,
           updated_at = ?7
         WHERE id = ?8 RETURNING *`,
      )
      .get(
        change.role ?? null,
        change.disabled === undefined ? null : change.disabled ? 1 : 0,
        now,
        change.passwordHash ?? null,
        change.language === undefined ? 0 : 1,
        change.language ?? null,
        now,
        id,
      )
    return row ? toUser(row) : undefined
  }
}
