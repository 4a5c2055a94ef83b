// Opens the cluster's store, a PostgreSQL database, for the commands that work on it: its schema brought up to date
// (`printhub migrate`), and where it stands. A database that cannot be reached, or refuses, is a ConfigError naming it
// without its password.
import { SQL } from 'bun'
import { shownStoreUrl } from '../domain/store-url.ts'
import { type Migrated, migrate, type SchemaState, schemaState } from '../pgstore/migrate.ts'
import { PgStore, type PgStoreOptions, UnservableStoreError } from '../pgstore/pg-store.ts'
import { ConfigError } from './config.ts'
import { importHub, type RowSource, StoreNotEmptyError } from '../pgstore/import-hub.ts'
import { exportHub, NotExportableError, type RowSink } from '../pgstore/export-hub.ts'

/** How long reaching the database may take before it is said to be unreachable. */
const CONNECT_TIMEOUT_SECONDS = 10

/** An error of the database's client in words, without the URL's password; a ConfigError as it is. */
function inWords(url: string, error: unknown): ConfigError {
  if (error instanceof ConfigError) return error
  const password = new URL(url).password
  const message = (error as Error).message ?? String(error)
  const said = password === '' ? message : message.replaceAll(decodeURIComponent(password), '***')
  return new ConfigError(`the database ${shownStoreUrl(url)}: ${said}`)
}

/**
 * Opens the cluster's store at `url` for a node or a command: refused (a ConfigError naming both schemas and what
 * to run) when its schema is not this program's, or when it cannot be reached.
 */
export async function openPostgresStore(url: string, options: Omit<PgStoreOptions, 'shown'> = {}): Promise<PgStore> {
  try {
    return await PgStore.open(url, { ...options, shown: shownStoreUrl(url) })
  } catch (error) {
    if (error instanceof UnservableStoreError) throw new ConfigError(error.message)
    throw inWords(url, error)
  }
}

/** Runs `work` on one connection to the database at `url`, closed afterwards. */
async function withDatabase<T>(url: string, work: (sql: SQL) => Promise<T>): Promise<T> {
  const sql = new SQL(url, { max: 1, connectionTimeout: CONNECT_TIMEOUT_SECONDS, idleTimeout: 1 })
  try {
    return await work(sql)
  } catch (error) {
    throw inWords(url, error)
  } finally {
    await sql.close({ timeout: 1 })
  }
}

/** Brings the database's schema to this program's (`printhub migrate`). */
export function migrateStore(url: string): Promise<Migrated> {
  return withDatabase(url, (sql) => migrate(sql))
}

/** Copies a hub's rows into the (empty) database at `url` (`printhub export --to`); rows copied, by table. */
export function importIntoStore(url: string, source: RowSource): Promise<Record<string, number>> {
  return withDatabase(url, (sql) =>
    importHub(sql, source, shownStoreUrl(url)).catch((error: unknown) => {
      throw error instanceof StoreNotEmptyError ? new ConfigError(error.message) : error
    }),
  )
}

/** Reads the cluster's rows at `url` into `sink` (`printhub export --from`); rows read, by table. */
export function exportFromStore(url: string, sink: RowSink): Promise<Record<string, number>> {
  return withDatabase(url, (sql) =>
    exportHub(sql, sink, shownStoreUrl(url)).catch((error: unknown) => {
      throw error instanceof NotExportableError ? new ConfigError(error.message) : error
    }),
  )
}

/** The schema the database has against this program's. */
export function storeSchemaState(url: string): Promise<SchemaState> {
  return withDatabase(url, (sql) => schemaState(sql))
}
