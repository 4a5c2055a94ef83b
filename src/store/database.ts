// The hub's SQLite file: its name and its schema.
import type { Database } from 'bun:sqlite'
import { openDatabase, type Schema } from '../sqlite/database.ts'
import { MIGRATIONS } from './migrations.ts'

export const DATABASE_FILE = 'printhub.db'

export const HUB_SCHEMA: Schema = { file: DATABASE_FILE, migrations: MIGRATIONS, migrationsTable: 'schema_migrations' }

/**
 * Opens (or, with `create`, creates) the hub's database in `dataDir`, its schema up to date; `owner`: the hub itself
 * (sqlite/database.ts).
 */
export function openHubDatabase(dataDir: string, create: boolean, owner = false): Database {
  return openDatabase(dataDir, create, HUB_SCHEMA, { owner })
}
