// What a record of the redo log holds (redo-log.ts): every row the connection inserted, updated or deleted since the
// last record, in order, as SQLite saw it: temporary triggers on each table of the database (a connection's own, never
// in the file) note each change in a temporary table, whoever made it (the hub's code, a trigger of the schema, a
// foreign key's cascade). A change is `[table, op, key, values]`: op `i`, `u` or `d`; the key the row's rowid, or its
// primary key's values for a table WITHOUT ROWID; the values the row's columns in order, for an update `{}` where a
// column kept its value, a BLOB as `[hex]`. The record is that list, made by SQLite as JSON.
//
// Applying records puts the rows back as they were written, in order, with the schema's own triggers and foreign keys
// out of the way (their effects are changes of their own in the record). The database names its redo log and the last
// record it holds (`application_id`, `user_version`); `replayRedo` applies what follows, at an open.
import type { Database } from 'bun:sqlite'
import { unlessLocked } from './errors.ts'
import { readRedo, redoAfter } from './redo-log.ts'

const CAPTURE_TABLE = 'temp.printhub_redo'

interface TableShape {
  name: string
  columns: string[]
  /** Primary key columns of a table WITHOUT ROWID; undefined for a rowid table. */
  key: string[] | undefined
  /** A rowid table whose INTEGER PRIMARY KEY is its rowid: the column carries it. */
  aliased: boolean
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`
const encode = (value: string) => `CASE typeof(${value}) WHEN 'blob' THEN json_array(hex(${value})) ELSE ${value} END`
const decode = (json: string, path: string) =>
  `CASE json_type(${json}, '${path}') WHEN 'array' THEN unhex(${json} ->> '${path}[0]') ELSE ${json} ->> '${path}' END`

/** The tables of the database's main schema, as a record names and lays them out. */
function tablesOf(db: Database): TableShape[] {
  const tables = db
    .query<{ name: string; wr: number }, []>(
      `SELECT name, wr FROM pragma_table_list
        WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`,
    )
    .all()
  return tables.map(({ name, wr }) => {
    const info = db
      .query<{ name: string; type: string; pk: number; hidden: number }, [string]>(
        'SELECT name, type, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid',
      )
      .all(name)
      .filter((column) => column.hidden === 0)
    const pk = info.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk)
    return {
      name,
      columns: info.map((column) => column.name),
      key: wr ? pk.map((column) => column.name) : undefined,
      aliased: !wr && pk.length === 1 && pk[0]!.type.toUpperCase() === 'INTEGER',
    }
  })
}

/** Notes every change to the database's tables, from when it is installed, for `take()`. */
export class RedoCapture {
  private installedAt: number | undefined
  private ownChanges = 0
  private takeAll: ReturnType<typeof takeAllOf> | undefined
  private clear: ReturnType<Database['prepare']> | undefined

  constructor(private readonly db: Database) {
    this.install()
  }

  /**
   * (Re)makes the table and triggers when the schema changed since they were made (a migration), or they are gone (a
   * change of `temp_store` drops every temporary object); cheap when neither.
   */
  install(): void {
    const version = this.db.query<{ schema_version: number }, []>('PRAGMA schema_version').get()!.schema_version
    const present = this.db
      .query<{ n: number }, []>("SELECT count(*) AS n FROM temp.sqlite_master WHERE name = 'printhub_redo'")
      .get()!.n
    if (version === this.installedAt && present === 1) return
    this.db.run(`CREATE TEMP TABLE IF NOT EXISTS printhub_redo (seq INTEGER PRIMARY KEY, t TEXT, op TEXT, k, v)`)
    for (const { name } of this.db
      .query<{ name: string }, []>(
        "SELECT name FROM temp.sqlite_master WHERE type = 'trigger' AND name LIKE 'redo\\_%' ESCAPE '\\'",
      )
      .all()) {
      this.db.run(`DROP TRIGGER temp.${quote(name)}`)
    }
    tablesOf(this.db).forEach((table, index) => {
      for (const statement of triggersOf(table, index)) this.db.run(statement)
    })
    this.takeAll = takeAllOf(this.db)
    this.clear = this.db.prepare(`DELETE FROM ${CAPTURE_TABLE}`)
    this.installedAt = this.db.query<{ schema_version: number }, []>('PRAGMA schema_version').get()!.schema_version
  }

  /** The changes noted since the last call, as a record's text; undefined when there were none. */
  take(): string | undefined {
    const rows = this.takeAll!.values() as [string, string, number | string | null, string | null][]
    if (rows.length === 0) return undefined
    this.clear!.run()
    this.ownChanges += 2 * rows.length
    // Put together here: the key and the values are JSON already (a rowid is a number), read back as text.
    let record = '['
    for (const [table, op, key, values] of rows) {
      if (record.length > 1) record += ','
      record += `[${JSON.stringify(table)},"${op}",${key ?? 'null'},${values ?? 'null'}]`
    }
    return `${record}]`
  }

  /** Forgets the changes noted (they are in the database's own commit). */
  forget(): void {
    this.ownChanges += 2 * this.clear!.run().changes
  }

  /**
   * The rows of its own table it inserted (a note a change) and deleted (taken), which SQLite's `total_changes()`
   * counts with the database's: what to subtract from it for the rows of the database alone.
   */
  noise(): number {
    return this.ownChanges + this.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${CAPTURE_TABLE}`).get()!.n
  }
}

function takeAllOf(db: Database) {
  return db.query<unknown, []>(`SELECT t, op, k, v FROM ${CAPTURE_TABLE} ORDER BY seq`)
}

function triggersOf(table: TableShape, index: number): string[] {
  const target = `main.${quote(table.name)}`
  const literal = `'${table.name.replaceAll("'", "''")}'`
  const values = (row: 'NEW') => `json_array(${table.columns.map((c) => encode(`${row}.${quote(c)}`)).join(', ')})`
  const changed = `json_array(${table.columns
    .map((c) => `CASE WHEN NEW.${quote(c)} IS OLD.${quote(c)} THEN json_object() ELSE ${encode(`NEW.${quote(c)}`)} END`)
    .join(', ')})`
  // A rowid as text: read back, it goes into the record as written, exact whatever its size.
  const oldKey = table.key
    ? `json_array(${table.key.map((c) => encode(`OLD.${quote(c)}`)).join(', ')})`
    : 'CAST(OLD.rowid AS TEXT)'
  const note = (op: string, key: string, value: string) =>
    `INSERT INTO ${CAPTURE_TABLE} (t, op, k, v) VALUES (${literal}, '${op}', ${key}, ${value})`
  return [
    `CREATE TEMP TRIGGER redo_i${index} AFTER INSERT ON ${target}
      BEGIN ${note('i', table.key ? 'NULL' : 'CAST(NEW.rowid AS TEXT)', values('NEW'))}; END`,
    `CREATE TEMP TRIGGER redo_u${index} AFTER UPDATE ON ${target} BEGIN ${note('u', oldKey, changed)}; END`,
    `CREATE TEMP TRIGGER redo_d${index} AFTER DELETE ON ${target} BEGIN ${note('d', oldKey, 'NULL')}; END`,
  ]
}

/**
 * Applies records' changes to `db`, inside the caller's transaction: the schema's own triggers are dropped meanwhile
 * and made again after, and foreign keys are checked at the commit (at an open they are off). Throws on a change that
 * names a table or column the database does not have.
 */
export function applyRedo(db: Database, payloads: readonly string[]): void {
  const triggers = db
    .query<{ name: string; sql: string }, []>("SELECT name, sql FROM main.sqlite_master WHERE type = 'trigger'")
    .all()
  for (const { name } of triggers) db.run(`DROP TRIGGER main.${quote(name)}`)
  db.run('PRAGMA defer_foreign_keys = ON')
  const shapes = new Map(tablesOf(db).map((table) => [table.name, table]))
  const statements = new Map<string, ReturnType<Database['prepare']>>()
  const changes = db.query<{ t: string; op: string; k: string; v: string }, [string]>(
    "SELECT value ->> 0 AS t, value ->> 1 AS op, value -> '$[2]' AS k, value -> '$[3]' AS v FROM json_each(?)",
  )
  for (const payload of payloads) {
    for (const { t, op, k, v } of changes.all(payload)) {
      const shape = shapes.get(t)
      if (!shape) throw new Error(`the redo log names a table the database does not have: ${t}`)
      const id = `${t}\u0000${op}`
      let statement = statements.get(id)
      if (!statement) {
        statement = db.prepare(statementFor(shape, op))
        statements.set(id, statement)
      }
      // A deletion binds the key alone (?1); the others ?1 and ?2.
      if (statement.paramsCount === 1) statement.run(k)
      else statement.run(k, v)
    }
  }
  for (const { sql } of triggers) db.run(sql)
}

function statementFor(table: TableShape, op: string): string {
  const target = `main.${quote(table.name)}`
  const where = table.key
    ? table.key.map((c, i) => `${quote(c)} = ${decode('?1', `$[${i}]`)}`).join(' AND ')
    : "rowid = (?1 ->> '$')"
  if (op === 'd') return `DELETE FROM ${target} WHERE ${where}`
  if (op === 'u') {
    const sets = table.columns.map(
      (c, i) =>
        // A column the record does not have (added after it was written) keeps its value, as one it says is unchanged.
        `${quote(c)} = CASE coalesce(json_type(?2, '$[${i}]'), 'object') WHEN 'object' THEN ${quote(c)}
          ELSE ${decode('?2', `$[${i}]`)} END`,
    )
    return `UPDATE OR REPLACE ${target} SET ${sets.join(', ')} WHERE ${where}`
  }
  if (op !== 'i') throw new Error(`the redo log holds an unknown change: ${op}`)
  const withRowid = !table.key && !table.aliased
  const columns = [...(withRowid ? ['rowid'] : []), ...table.columns.map(quote)]
  const values = [...(withRowid ? ["?1 ->> '$'"] : []), ...table.columns.map((_, i) => decode('?2', `$[${i}]`))]
  return `INSERT OR REPLACE INTO ${target} (${columns.join(', ')}) VALUES (${values.join(', ')})`
}

/** The redo log the database names, and the last of its records it holds. */
export function redoMark(db: Database): { logId: number; seq: number } {
  const logId = db.query<{ application_id: number }, []>('PRAGMA application_id').get()!.application_id
  const seq = db.query<{ user_version: number }, []>('PRAGMA user_version').get()!.user_version
  return { logId, seq }
}

/** Notes in the open transaction that the database holds the log's records up to `seq`. */
export function setRedoMark(db: Database, logId: number, seq: number): void {
  // As text each time: SQLite applies a setting pragma when it is prepared.
  db.run(`PRAGMA application_id = ${logId | 0}`)
  db.run(`PRAGMA user_version = ${seq | 0}`)
}

/**
 * Applies what the database's redo log holds beyond what the database holds, in one transaction that takes the write
 * lock first, foreign keys off. A hub that is running holds that lock while its records are not in the database: by
 * default (`wait` false, the CLI beside a hub) that is a sign to leave them, answered at once (0); the hub's own start
 * (`wait`) waits for the lock instead, as its log is no one else's once it holds the data directory. `logOf`: the
 * file whose log is read (when the lock is taken), or records read before (a snapshot's, read before it was taken).
 * How many records it applied.
 */
export function replayRedo(
  db: Database,
  logOf: string | ((logId: number) => ReadonlyMap<number, string>),
  { wait = false }: { wait?: boolean } = {},
): number {
  const read = typeof logOf === 'string' ? (logId: number) => readRedo(logOf, logId) : logOf
  const before = redoMark(db)
  if (before.logId === 0 || redoAfter(read(before.logId), before.seq).length === 0) return 0
  const foreignKeys = db.query<{ foreign_keys: number }, []>('PRAGMA foreign_keys').get()!.foreign_keys
  db.run('PRAGMA foreign_keys = OFF')
  const apply = () =>
    db
      .transaction(() => {
        const mark = redoMark(db)
        const records = redoAfter(read(mark.logId), mark.seq)
        if (records.length === 0) return 0
        applyRedo(
          db,
          records.map((record) => record.payload),
        )
        setRedoMark(db, mark.logId, records.at(-1)!.seq)
        return records.length
      })
      .immediate()
  try {
    if (wait) return apply()
    // Locked: held by a running hub, whose records these are.
    const done = unlessLocked(db, apply)
    return done.locked ? 0 : done.value
  } finally {
    if (foreignKeys) db.run('PRAGMA foreign_keys = ON')
  }
}
