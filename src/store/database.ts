// Opens a SQLite file of printhub (the hub's, or an agent's ledger) with durable settings and brings its schema up to date.
import { Database } from 'bun:sqlite'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { MIGRATIONS, type Migration } from './migrations.ts'

export const DATABASE_FILE = 'printhub.db'

export class DatabaseTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(`The database was written by a newer printhub (schema version ${found}; this program knows up to ${known}). Install a newer printhub, or use another data directory.`)
  }
}

export class NoDatabaseError extends Error {
  constructor(readonly dataDir: string) {
    super(`There is no printhub data in ${dataDir}. Run "printhub init" (or "printhub serve") first, or pass --data DIR.`)
  }
}

/**
 * Opens (or, with `create`, creates) the database in `dataDir` and applies pending migrations,
 * recorded in `migrationsTable`.
 */
export function openDatabase(dataDir: string, create: boolean, migrations: readonly Migration[] = MIGRATIONS, fileName = DATABASE_FILE, migrationsTable = 'schema_migrations'): Database {
  const file = join(dataDir, fileName)
  if (!create && !existsSync(file)) throw new NoDatabaseError(dataDir)
  mkdirSync(dataDir, { recursive: true, mode: 0o750 })
  const db = new Database(file, { create: true, strict: true })
  try {
    db.run('PRAGMA busy_timeout = 5000')
    db.run('PRAGMA journal_mode = WAL')
    // FULL: a commit is on disk before we answer; an accepted job survives a power cut.
    db.run('PRAGMA synchronous = FULL')
    db.run('PRAGMA foreign_keys = ON')
    // Statement journals of multi-row changes stay in memory, not in a temp file per statement.
    db.run('PRAGMA temp_store = MEMORY')
    migrate(db, migrations, migrationsTable)
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

/**
 * Applies the migrations not yet recorded in `table`. One database may hold several schemas, each
 * with its own table of versions (the hub's holds the built-in agent's ledger too).
 */
export function migrate(db: Database, migrations: readonly Migration[], table: string): void {
  db.run(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`)
  const current = db.query<{ version: number | null }, []>(`SELECT max(version) AS version FROM ${table}`).get()?.version ?? 0
  const known = migrations.at(-1)?.version ?? 0
  if (current > known) throw new DatabaseTooNewError(current, known)
  for (const migration of migrations) {
    if (migration.version <= current) continue
    // IMMEDIATE: two processes starting at once cannot both apply the same migration.
    db.transaction(() => {
      const done = db.query(`SELECT 1 FROM ${table} WHERE version = ?`).get(migration.version)
      if (done) return
      db.run(migration.sql)
      db.run(`INSERT INTO ${table} (version, applied_at) VALUES (?, ?)`, [migration.version, Date.now()])
    }).immediate()
  }
}
