// Moves a hub's data from its data directory's SQLite file into a cluster's PostgreSQL database (`printhub export
// --to URL`), so that a venue that outgrows one Pi loses no history: every row of every table the two stores share,
// as it is (IDs, times, counters, timelines, events, hashes), in one transaction (pgstore/import-hub.ts). The tables
// are the same column for column (test/pgstore/migrate.test.ts keeps them so); SQLite's rowid, where it orders rows,
// is PostgreSQL's `seq`. The data directory must not be served meanwhile (its lock is taken). And back (`--from`): a
// cluster's rows into a new data directory (pgstore/export-hub.ts read them, store/import-rows.ts writes them).
import { MAX_OPEN_JOBS } from '../domain/settings.ts'
import { shownStoreUrl } from '../domain/store-url.ts'
import { lockDataDir } from '../platform/data-dir-lock.ts'
import { parseWireJobId } from '../dispatcher/wire-identity.ts'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from './config.ts'
import { Store } from '../store/store.ts'
import { exportFromStore, importIntoStore, openPostgresStore } from './postgres-store.ts'
import { DataDirNotEmptyError, ROWID_COLUMNS, RowsImport } from '../store/import-rows.ts'
import { DATABASE_FILE } from '../store/database.ts'

export interface Exported {
  /** The database, without its password: where the rows went, or came from. */
  to?: string
  from?: string
  /** Rows copied, by table. */
  tables: Record<string, number>
  ms: number
}

export async function exportToPostgres(dataDir: string, url: string): Promise<Exported> {
  const started = performance.now()
  const lock = lockDataDir(dataDir, 'restore')
  let store: Store | undefined
  try {
    // Brought up to this printhub's schema first, as serve would: the one PostgreSQL's tables are the same as.
    store = Store.open({ dataDir, create: false, maxOpenJobsPerProject: MAX_OPEN_JOBS.default })
    const db = store.db
    // The schema is checked, as a node checks it: this printhub's, or refused naming both.
    await (await openPostgresStore(url)).close()
    const source = {
      tables: new Set(
        db
          .query<{ name: string }, []>(`SELECT name FROM sqlite_master WHERE type = 'table'`)
          .all()
          .map((row) => row.name),
      ),
      rows(table: string, columns: readonly string[]): Iterable<unknown[]> {
        const rowid = ROWID_COLUMNS[table]
        const selected = columns.map((column) => (column === rowid ? `rowid AS ${column}` : column))
        return db
          .query<unknown[], []>(`SELECT ${selected.join(', ')} FROM ${table}${rowid ? ' ORDER BY rowid' : ''}`)
          .values()
      },
      // Every job the built-in agent began (not only received): one it printed whose end the hub had not recorded yet
      // is as uncertain as one it was printing.
      *intents(): Iterable<{ jobId: string; attempt: number }> {
        if (!this.tables.has('ledger_intents')) return
        for (const { job_id } of db
          .query<{ job_id: string }, []>(`SELECT job_id FROM ledger_intents WHERE state <> 'received'`)
          .all()) {
          const wire = parseWireJobId(job_id)
          if (wire) yield wire
        }
      },
    }
    const tables = await importIntoStore(url, source)
    return { to: shownStoreUrl(url), tables, ms: Math.round(performance.now() - started) }
  } finally {
    store?.close()
    lock.release()
  }
}

/**
 * Fills a new data directory with a cluster's data (`printhub export --from URL`): refused while nodes serve from the
 * database, and into a data directory that holds a hub already. A hub started on the directory serves it as it was.
 */
export async function importFromPostgres(dataDir: string, url: string): Promise<Exported> {
  const started = performance.now()
  mkdirSync(dataDir, { recursive: true, mode: 0o750 })
  const lock = lockDataDir(dataDir, 'restore')
  const made = !existsSync(join(dataDir, DATABASE_FILE))
  let target: RowsImport | undefined
  try {
    // The schema is checked, as a node checks it: this printhub's, or refused naming both.
    await (await openPostgresStore(url)).close()
    target = RowsImport.open(dataDir)
    target.begin()
    const tables = await exportFromStore(url, target)
    target.finish()
    return { from: shownStoreUrl(url), tables, ms: Math.round(performance.now() - started) }
  } catch (error) {
    target?.abort()
    target?.close()
    target = undefined
    // A database made for this export, and left empty: gone again.
    if (made) for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, DATABASE_FILE + suffix), { force: true })
    throw error instanceof DataDirNotEmptyError ? new ConfigError(error.message) : error
  } finally {
    target?.close()
    lock.release()
  }
}
