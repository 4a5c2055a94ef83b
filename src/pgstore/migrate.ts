// Applies the PostgreSQL schema's migrations (schema.ts) and says where a database stands. All pending migrations go
// in one transaction under a transaction-level advisory lock, so nodes or technicians that migrate at the same time
// apply each migration once: the second waits for the first, then finds nothing left to do. A failed migration
// leaves the database as it was (PostgreSQL's DDL is transactional).
import type { SQL } from 'bun'
import { VERSION } from '../domain/version.ts'
import { PG_MIGRATIONS, PG_SCHEMA_VERSION, type PgMigration } from './schema.ts'

/** The advisory lock migrations take (any number; this one is printhub's). */
const MIGRATION_LOCK = 0x7072_6e74

/** Where a database stands against this program: the schema it has (0: none) and the one this program serves. */
export interface SchemaState {
  current: number
  expected: number
}

export interface Migrated {
  from: number
  to: number
  /** The migrations applied now, in order. */
  applied: Pick<PgMigration, 'version' | 'description'>[]
}

const CREATE_MIGRATIONS_TABLE = `
  CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    description text NOT NULL,
    applied_at bigint NOT NULL,
    applied_by text NOT NULL
  )`

/** The schema the database has: 0 when printhub's schema was never applied to it. */
export async function schemaState(sql: SQL): Promise<SchemaState> {
  const [table] = await sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`
  if (!table.present) return { current: 0, expected: PG_SCHEMA_VERSION }
  const [row] = await sql`SELECT COALESCE(max(version), 0)::int AS version FROM schema_migrations`
  return { current: row.version, expected: PG_SCHEMA_VERSION }
}

/**
 * Brings the database to this program's schema. Refuses (throws) a database of a newer schema than this program
 * knows, changing nothing.
 */
export async function migrate(sql: SQL, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<Migrated> {
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    await tx.unsafe(CREATE_MIGRATIONS_TABLE)
    const [row] = await tx`SELECT COALESCE(max(version), 0)::int AS version FROM schema_migrations`
    const from: number = row.version
    const to = migrations.at(-1)?.version ?? 0
    if (from > to) throw new NewerSchemaError({ current: from, expected: to })
    const applied: Migrated['applied'] = []
    for (const migration of migrations) {
      if (migration.version <= from) continue
      await tx.unsafe(migration.sql)
      await tx`INSERT INTO schema_migrations (version, description, applied_at, applied_by)
        VALUES (${migration.version}, ${migration.description}, ${Date.now()}, ${`printhub ${VERSION}`})`
      applied.push({ version: migration.version, description: migration.description })
    }
    return { from, to: Math.max(from, to), applied }
  })
}

/** The database's schema is newer than this program's: a later printhub migrated it. */
export class NewerSchemaError extends Error {
  constructor(readonly state: SchemaState) {
    super(
      `the database has schema ${state.current}, newer than this printhub's ${state.expected} ` +
        `(printhub ${VERSION}): a later printhub migrated it; run that one, or a later one`,
    )
    this.name = 'NewerSchemaError'
  }
}

/** Why a node cannot serve from a database in this state, in words; undefined when it can. */
export function unservable(state: SchemaState, store: string): string | undefined {
  if (state.current === state.expected) return undefined
  if (state.current === 0)
    return (
      `the database ${store} has no printhub schema (this printhub serves schema ${state.expected}): ` +
      `run printhub migrate --store URL first`
    )
  if (state.current < state.expected)
    return (
      `the database ${store} has schema ${state.current}, older than this printhub's ${state.expected}: ` +
      `run printhub migrate --store URL first`
    )
  return new NewerSchemaError(state).message.replace('the database', `the database ${store}`)
}
