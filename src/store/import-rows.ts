// A cluster's rows written into a new data directory's database (`printhub export --from`, hub/export-store.ts): the
// hub's schema made, then every table the two stores share filled as the rows come, in one transaction, with the
// triggers that keep counters and timelines dropped meanwhile (what they would write is among the rows) and made
// again before the commit, and the foreign keys checked at its end. Where SQLite orders rows by their rowid,
// PostgreSQL's `seq` is that rowid. Only into a database that holds no hub yet.
import type { Database } from 'bun:sqlite'
import { openHubDatabase } from './database.ts'

/** Where PostgreSQL keeps, as a column, the rowid SQLite orders these tables' rows by. */
export const ROWID_COLUMNS: Readonly<Record<string, string>> = { printer_states: 'seq', job_events: 'seq' }

/** The data directory holds a hub's data already: nothing was written. */
export class DataDirNotEmptyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'DataDirNotEmptyError'
  }
}

export class RowsImport {
  readonly tables: { table: string; columns: string[] }[]
  private triggers: string[] = []
  private readonly inserts = new Map<string, ReturnType<Database['prepare']>>()

  private constructor(private readonly db: Database) {
    const names = db
      .query<{ name: string }, []>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
           AND name NOT LIKE 'ledger_%' AND name != 'schema_migrations' ORDER BY name`,
      )
      .all()
      .map((row) => row.name)
    this.tables = names.map((table) => {
      const columns = db
        .query<{ name: string }, []>(`PRAGMA table_info(${table})`)
        .all()
        .map((row) => row.name)
      const rowid = ROWID_COLUMNS[table]
      return { table, columns: rowid ? [...columns, rowid] : columns }
    })
  }

  /** The hub's database in `dataDir`, made if it is not there, refused if it holds a project already. */
  static open(dataDir: string): RowsImport {
    const db = openHubDatabase(dataDir, true)
    const { n } = db.query<{ n: number }, []>('SELECT count(*) AS n FROM projects').get()!
    if (n > 0) {
      db.close(true)
      throw new DataDirNotEmptyError(
        `${dataDir} holds a hub's data already (${n} projects): export --from fills a new data directory`,
      )
    }
    return new RowsImport(db)
  }

  /** Starts the one transaction: the triggers put aside, the foreign keys checked at its end. */
  begin(): void {
    this.db.run('PRAGMA foreign_keys = OFF')
    this.db.run('BEGIN IMMEDIATE')
    this.triggers = this.db
      .query<{ name: string; sql: string }, []>(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`)
      .all()
      .map((row) => {
        this.db.run(`DROP TRIGGER ${row.name}`)
        return row.sql
      })
  }

  rows(table: string, rows: unknown[][]): void {
    let insert = this.inserts.get(table)
    if (!insert) {
      const { columns } = this.tables.find((candidate) => candidate.table === table)!
      const rowid = ROWID_COLUMNS[table]
      const names = columns.map((column) => (column === rowid ? 'rowid' : column))
      insert = this.db.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`)
      this.inserts.set(table, insert)
    }
    for (const row of rows) insert.run(...(row as never[]))
  }

  /** The triggers made again, the foreign keys checked, and the transaction committed. */
  finish(): void {
    for (const sql of this.triggers) this.db.run(sql)
    const broken = this.db.query<{ table: string }, []>('PRAGMA foreign_key_check').all()
    if (broken.length > 0) throw new Error(`rows refer to rows not copied, in ${broken[0]!.table}`)
    this.db.run('COMMIT')
    this.db.run('PRAGMA foreign_keys = ON')
  }

  /** Nothing written: the transaction rolled back. */
  abort(): void {
    if (this.db.inTransaction) this.db.run('ROLLBACK')
  }

  close(): void {
    for (const insert of this.inserts.values()) insert.finalize()
    this.db.close(true)
  }
}
