// Opening a SQLite file of printhub (the hub's store, or an agent's ledger) with durable settings,
// and its numbered, embedded, append-only migrations. Both the store and the ledger use this kit.
import { Database } from 'bun:sqlite'
import { closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { redoMark, replayRedo, setRedoMark } from './redo-changes.ts'
import { readRedo, redoFiles } from './redo-log.ts'

/** One step of a schema. Never edit a released one: add the next number. */
export interface Migration {
  version: number
  description: string
  sql: string
}

/** Where a database keeps its migrations, and which file it is. */
export interface Schema {
  file: string
  migrations: readonly Migration[]
  /** The table recording the versions applied (one database may hold several schemas). */
  migrationsTable: string
  /**
   * Brings a file of an earlier layout (released before the schema took its present names) to the
   * names the migrations expect, inside the migrations' transaction; does nothing on other files.
   */
  adopt?: (db: Database) => void
}

export class DatabaseTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
    readonly file: string,
  ) {
    super(
      `${file} was written by a newer printhub (schema version ${found}; this ` +
        `printhub knows up to version ${known}), so it is left untouched. ` +
        `Either install the newer printhub again, or go back to the data as it was before the upgrade: ` +
        `printhub restore FILE --data ${dirname(file)} --force (FILE: the ` +
        `pre-upgrade backup printhub upgrade made, in ${dirname(file)}-backups or ` +
        `the backup-dir setting).`,
    )
  }
}

export class NoDatabaseError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `There is no printhub data in ${dataDir}. Run "printhub init" (or "printhub serve") first, or pass --data DIR.`,
    )
  }
}

/** The file a database lives in; undefined for one in memory. */
export function fileOf(db: Database): string | undefined {
  const file = db.filename
  return file !== '' && file !== ':memory:' && !file.startsWith('file::memory:') ? file : undefined
}

/**
 * The databases' page size. A commit writes every page it changed, whole, to the write-ahead log, and a job's two
 * commits touch some 19 b-tree pages each (the job, its indexes, its timeline and events, its project's counters):
 * with SQLite's default of 4 KB that was about 170 KB written a job to an SD card. 1 KB pages write a quarter of that
 * per page, for b-trees a level deeper (`bun run bench disk`; docs/raspberry-pi.md).
 */
export const PAGE_SIZE = 1024
/**
 * Pages of write-ahead log before SQLite checkpoints it into the database file (SQLite's default: 1,000). A
 * checkpoint writes each page the log holds once, however often it changed: fewer of them write the hot pages (the
 * newest leaves of each index) fewer times. At 1 KB pages the log stays under about 10 MB.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000

const replayed = new WeakMap<Database, number>()

/** How many records of its redo log the opening of `db` applied: a hub stopped by a crash or a power cut left them. */
export function redoApplied(db: Database): number {
  return replayed.get(db) ?? 0
}

/** Opens (or, with `create`, creates) the schema's database in `dataDir` and applies pending migrations. */
export function openDatabase(
  dataDir: string,
  create: boolean,
  schema: Schema,
  /** The process owns the data directory (the hub, holding its lock): it waits to apply the redo log (replayRedo). */
  { owner = false }: { owner?: boolean } = {},
): Database {
  const file = join(dataDir, schema.file)
  const exists = existsSync(file)
  if (!create && !exists) throw new NoDatabaseError(dataDir)
  mkdirSync(dataDir, { recursive: true, mode: 0o750 })
  const db = new Database(file, { create: true, strict: true })
  try {
    // Pages freed by deletions can be given back to the file system bit by bit; small pages (both set before the
    // first table).
    if (!exists) {
      db.run(`PRAGMA page_size = ${PAGE_SIZE}`)
      db.run('PRAGMA auto_vacuum = INCREMENTAL')
    }
    db.run('PRAGMA busy_timeout = 5000')
    db.run('PRAGMA journal_mode = WAL')
    db.run(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`)
    // FULL: a commit is on disk before we answer; an accepted job survives a power cut. The group
    // commit (group-commit.ts) flushes its transactions itself, off the event loop, before it answers.
    db.run('PRAGMA synchronous = FULL')
    db.run('PRAGMA foreign_keys = ON')
    // Statement journals of multi-row changes stay in memory, not in a temp file per statement.
    db.run('PRAGMA temp_store = MEMORY')
    // What a hub stopped by a crash or a power cut had made durable in its redo log only (sqlite/redo-batch.ts), in
    // the schema it was written in, before the migrations.
    if (redoFiles(file).some((path) => existsSync(path))) replayed.set(db, replayRedo(db, file, { wait: owner }))
    migrate(db, schema)
  } catch (error) {
    db.close(true)
    throw error
  }
  return db
}

/** Opens an existing database read-only, for checks that must change nothing; undefined when it cannot. */
export function openForReading(dataDir: string, file: string): Database | undefined {
  const path = join(dataDir, file)
  if (!existsSync(path)) return undefined
  try {
    return new Database(path, { readonly: true, strict: true })
  } catch {
    return undefined
  }
}

/**
 * The largest database whose pages alone are changed to PAGE_SIZE at a start: rewriting takes a moment a few MB (an
 * SD card writes some 10-20 MB a second), and the hub listens only after it. A larger one keeps its pages (it
 * works as it is, writing more a job); one that cannot give pages back is rewritten whatever its size, as before.
 */
export const PAGE_SIZE_REWRITE_MAX_BYTES = 64 * 1_048_576

/**
 * Gives a database made by an earlier printhub the file format a new one has: pages that can be given back
 * (auto_vacuum INCREMENTAL) and of PAGE_SIZE (that alone only up to PAGE_SIZE_REWRITE_MAX_BYTES). The whole file is
 * rewritten once (VACUUM, with a rollback journal: a page size cannot change in WAL mode; its copy in a temporary
 * file, not in memory); a power cut in it leaves the old file, and the next start does it again. Only for the process
 * that owns the data directory (the hub at start): it needs the file to itself, and does nothing while another
 * process has it open. What it did; `failed` with why when the rewrite could not be made (a full disk): the file is
 * as it was, and works so.
 */
export function upgradeFileFormat(db: Database): 'rewritten' | 'unchanged' | { failed: string } {
  const vacuum = db.query<{ auto_vacuum: number }, []>('PRAGMA auto_vacuum').get()!.auto_vacuum
  const pageSize = db.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
  const pages = db.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count
  if (vacuum === 2 && (pageSize === PAGE_SIZE || pageSize * pages > PAGE_SIZE_REWRITE_MAX_BYTES)) return 'unchanged'
  let mode: string | undefined
  try {
    mode = db.query<{ journal_mode: string }, []>('PRAGMA journal_mode = DELETE').get()?.journal_mode
  } catch {
    // Busy: another process has it open. The next start tries again.
    return 'unchanged'
  }
  try {
    if (mode !== 'delete') return 'unchanged'
    db.run(`PRAGMA page_size = ${PAGE_SIZE}`)
    db.run('PRAGMA auto_vacuum = INCREMENTAL')
    // VACUUM copies the whole database into a temporary one first: in a file, not in the process's memory.
    db.run('PRAGMA temp_store = FILE')
    db.run('VACUUM')
    return 'rewritten'
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  } finally {
    db.run('PRAGMA temp_store = MEMORY')
    db.run('PRAGMA journal_mode = WAL')
  }
}

/**
 * What SQLite's quick check (or, when `full`, its whole integrity check) finds wrong: nothing when the file is sound.
 */
export function integrityProblems(db: Database, full = false): string[] {
  const found = db
    .query<Record<string, string>, []>(full ? 'PRAGMA integrity_check' : 'PRAGMA quick_check')
    .all()
    .map((row) => Object.values(row)[0]!)
  return found.length === 1 && found[0] === 'ok' ? [] : found
}

/**
 * What SQLite's whole integrity check finds wrong in the database file at `path` (read only); a problem when it cannot
 * be opened.
 */
export function fileIntegrityProblems(path: string): string[] {
  let db: Database
  try {
    db = new Database(path, { readonly: true, strict: true })
  } catch (error) {
    return [(error as Error).message]
  }
  try {
    return integrityProblems(db, true)
  } catch (error) {
    return [(error as Error).message]
  } finally {
    db.close(true)
  }
}

/** The newest of the schema's migrations applied to the database (0 when none is). */
export function schemaVersion(db: Database, { migrationsTable: table }: Pick<Schema, 'migrationsTable'>): number {
  const exists = db.query('SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?').get('table', table)
  if (!exists) return 0
  return db.query<{ version: number | null }, []>(`SELECT max(version) AS version FROM ${table}`).get()?.version ?? 0
}

/** The newest migration of the schema this program knows. */
export function knownSchemaVersion({ migrations }: Pick<Schema, 'migrations'>): number {
  return migrations.at(-1)?.version ?? 0
}

/**
 * A consistent copy of the database at `source` as it is now, what its write-ahead log holds
 * included, written by SQLite to `target` (a new file, mode 0600). It reads in one transaction,
 * so the process that writes the database goes on meanwhile; nothing of the source changes.
 */
export function snapshotDatabase(source: string, target: string): void {
  closeSync(openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600))
  const db = new Database(source, { readonly: true, strict: true })
  let logged: ReadonlyMap<number, string> = new Map()
  let loggedBy = 0
  try {
    db.run('PRAGMA busy_timeout = 5000')
    // The running hub's redo log holds what its open batch changed: read before the copy, it holds at least what
    // the copy lacks (records leave the log only once the database holds them).
    loggedBy = redoMark(db).logId
    if (loggedBy !== 0) logged = readRedo(source, loggedBy)
    db.run('VACUUM INTO ?', [target])
  } finally {
    db.close(true)
  }
  const copy = new Database(target, { strict: true })
  try {
    replayRedo(copy, (logId) => (logId === loggedBy ? logged : new Map()))
    // The copy names no redo log: restored, it never takes records of the hub it was copied from.
    copy.transaction(() => setRedoMark(copy, 0, 0)).immediate()
  } finally {
    copy.close(true)
  }
}

/**
 * Applies the schema's migrations not yet recorded in its table, all of them in ONE immediate
 * transaction: a failure in any leaves the database as it was (no half-upgraded schema), and two
 * processes starting at once cannot both apply them. A database of a newer schema is refused
 * before anything is written.
 */
export function migrate(
  db: Database,
  schema: Pick<Schema, 'migrations' | 'migrationsTable'> & Partial<Pick<Schema, 'file' | 'adopt'>>,
): void {
  const { migrations, migrationsTable: table } = schema
  const known = migrations.at(-1)?.version ?? 0
  // Up to date: nothing to write, so no write lock to wait for (a running hub holds it through its batch).
  if (schemaVersion(db, schema) === known && known > 0) return
  db.transaction(() => {
    schema.adopt?.(db)
    db.run(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT`)
    const current =
      db.query<{ version: number | null }, []>(`SELECT max(version) AS version FROM ${table}`).get()?.version ?? 0
    if (current > known) throw new DatabaseTooNewError(current, known, db.filename || schema.file || 'the database')
    const now = Date.now()
    for (const migration of migrations) {
      if (migration.version <= current) continue
      db.run(migration.sql)
      db.run(`INSERT INTO ${table} (version, applied_at) VALUES (?, ?)`, [migration.version, now])
    }
  }).immediate()
}
