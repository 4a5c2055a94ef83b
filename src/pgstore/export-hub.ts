// A cluster's rows read out for a data directory (`printhub export --from`, hub/export-store.ts): the tables asked
// for, each row with its values as SQLite keeps them (booleans as 0 and 1, JSON as its text, big integers as numbers),
// read through a cursor in one read-only transaction, so that every table is seen at the same moment. Refused while
// nodes serve from the database (a live lease), and while jobs of the built-in agent's printers are held with an
// intent to print and no end told (a node settles them when it takes their printer: start one once).
import type { SQL } from 'bun'

/** Rows fetched from the cursor at a time. */
const ROWS_PER_FETCH = 500

/** The database cannot be exported now; nothing was read. */
export class NotExportableError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'NotExportableError'
  }
}

/** What is copied where: each table's rows, given as they come. */
export interface RowSink {
  /** The tables to copy and, for each, the columns in the order the rows give them. */
  tables: readonly { table: string; columns: readonly string[] }[]
  /** A batch of rows of `table`. */
  rows(table: string, rows: unknown[][]): void
}

/** A value of a column of PostgreSQL type `type`, as SQLite keeps it. */
function sqliteValue(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null
  if (type === 'boolean') return value === true ? 1 : 0
  if (type === 'bigint' || type === 'integer') return Number(value)
  if (type === 'jsonb' || type === 'json') return typeof value === 'string' ? value : JSON.stringify(value)
  return value
}

/** Reads every row of the sink's tables into it; rows read, by table. */
export async function exportHub(sql: SQL, sink: RowSink, shown: string): Promise<Record<string, number>> {
  const copied: Record<string, number> = {}
  await sql.begin('isolation level repeatable read read only', async (tx) => {
    const db = tx as unknown as SQL
    const [{ n: serving }] = (await db`SELECT count(*)::int AS n FROM leases
      WHERE expires_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`) as [{ n: number }]
    if (serving > 0)
      throw new NotExportableError(
        `nodes are serving from ${shown} (${serving} leases held): stop every node first, then export`,
      )
    const [{ n: uncertain }] = (await db`SELECT count(*)::int AS n FROM jobs j
      JOIN print_intents i ON i.job_id = j.id AND i.attempt = j.attempt_count
      WHERE j.state IN ('DELIVERED', 'PRINTING')`) as [{ n: number }]
    if (uncertain > 0)
      throw new NotExportableError(
        `${uncertain} jobs were being printed by a node when it stopped, and may have printed: start a node once ` +
          '(it settles them as it takes their printers over), stop it, then export',
      )
    const types = new Map(
      (
        await db<{ table_name: string; column_name: string; data_type: string }[]>`SELECT table_name, column_name,
          data_type FROM information_schema.columns WHERE table_schema = current_schema()`
      ).map((row) => [`${row.table_name}.${row.column_name}`, row.data_type]),
    )
    for (const { table, columns } of sink.tables) {
      const columnTypes = columns.map((column) => types.get(`${table}.${column}`) ?? 'text')
      await db.unsafe(`DECLARE rows_out NO SCROLL CURSOR FOR SELECT ${columns.join(', ')} FROM ${table}`)
      copied[table] = 0
      for (;;) {
        const rows = (await db.unsafe(`FETCH ${ROWS_PER_FETCH} FROM rows_out`).values()) as unknown[][]
        if (rows.length === 0) break
        sink.rows(
          table,
          rows.map((row) => row.map((value, i) => sqliteValue(columnTypes[i]!, value))),
        )
        copied[table] += rows.length
      }
      await db.unsafe('CLOSE rows_out')
    }
  })
  return copied
}
