// A hub's rows brought into a cluster's database (`printhub export --to`, hub/export-store.ts): every table both stores
// have, parents before children (by the database's foreign keys), as they are, in one transaction, with the triggers
// that keep counters and timelines off while they go in (what they would write is among the rows); then each
// identity column goes on from the largest value copied, and the attempts the hub's own agent began to print become
// the cluster's intents. Only into a database that holds no hub yet.
import type { SQL } from 'bun'

/** Rows sent in one statement (PostgreSQL takes at most 65,535 values a statement). */
const ROWS_PER_INSERT = 200

/** Where the rows come from: the source's tables, and each one's rows in the order of the columns asked for. */
export interface RowSource {
  tables: ReadonlySet<string>
  rows(table: string, columns: readonly string[]): Iterable<unknown[]>
  /**
   * The attempts the hub's built-in agent began to print (its ledger's intents): they become the cluster's, so that
   * a node taking the printer over never prints one of them again.
   */
  intents?(): Iterable<{ jobId: string; attempt: number }>
}

/** The database holds a hub's data already: nothing was copied. */
export class StoreNotEmptyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'StoreNotEmptyError'
  }
}

interface Column {
  name: string
  type: string
}

/** Copies every shared table of `source` into the empty database; rows copied, by table. */
export async function importHub(sql: SQL, source: RowSource, shown: string): Promise<Record<string, number>> {
  const tables: Record<string, number> = {}
  await sql.begin(async (tx) => {
    const db = tx as unknown as SQL
    const [{ n }] = (await db`SELECT count(*)::int AS n FROM projects`) as [{ n: number }]
    if (n > 0)
      throw new StoreNotEmptyError(
        `${shown} holds a hub's data already (${n} projects): export moves a hub into an empty ` +
          'database (make one, and printhub migrate it)',
      )
    const shared = await sharedTables(db, source.tables)
    for (const { table } of shared) await db.unsafe(`ALTER TABLE ${table} DISABLE TRIGGER USER`)
    for (const { table, columns } of shared) tables[table] = await copyTable(db, source, table, columns)
    for (const { table } of shared) await db.unsafe(`ALTER TABLE ${table} ENABLE TRIGGER USER`)
    for (const { jobId, attempt } of source.intents?.() ?? [])
      await db`INSERT INTO print_intents (job_id, attempt, recorded_at)
        SELECT id, ${attempt}, ${Date.now()} FROM jobs WHERE id = ${jobId} ON CONFLICT (job_id) DO NOTHING`
    const identities = await db<{ table_name: string; column_name: string }[]>`SELECT table_name, column_name
      FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'`
    for (const { table_name: table, column_name: column } of identities)
      await db.unsafe(
        `SELECT setval(pg_get_serial_sequence('${table}', '${column}'),
           coalesce((SELECT max(${column}) FROM ${table}), 0) + 1, false)`,
      )
  })
  return tables
}

/** The tables both stores share, parents before children (by PostgreSQL's foreign keys), with their columns. */
async function sharedTables(sql: SQL, inSource: ReadonlySet<string>): Promise<{ table: string; columns: Column[] }[]> {
  const columns = await sql<{ table_name: string; column_name: string; data_type: string }[]>`SELECT table_name,
      column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema()
    ORDER BY table_name, ordinal_position`
  const byTable = new Map<string, Column[]>()
  for (const row of columns)
    if (inSource.has(row.table_name) && row.table_name !== 'schema_migrations')
      byTable.set(row.table_name, [
        ...(byTable.get(row.table_name) ?? []),
        { name: row.column_name, type: row.data_type },
      ])
  const references = await sql<{ child: string; parent: string }[]>`SELECT conrelid::regclass::text AS child,
      confrelid::regclass::text AS parent FROM pg_constraint WHERE contype = 'f'`
  const ordered: string[] = []
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table)) return
    path.add(table)
    for (const { child, parent } of references) if (child === table && parent !== table) visit(parent, path)
    ordered.push(table)
  }
  for (const table of [...byTable.keys()].sort()) visit(table, new Set())
  return ordered.filter((table) => byTable.has(table)).map((table) => ({ table, columns: byTable.get(table)! }))
}

/** A source's value (SQLite's: integers for booleans) as PostgreSQL takes it for a column of `type`. */
function valueFor(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null
  if (type === 'boolean') return value === 1 || value === true
  if (type === 'bytea') return value instanceof Uint8Array ? value : Buffer.from(String(value))
  return value
}

/** Copies every row of `table`, a batch a statement; how many. */
async function copyTable(sql: SQL, source: RowSource, table: string, columns: Column[]): Promise<number> {
  const names = columns.map((column) => column.name).join(', ')
  let copied = 0
  let batch: unknown[][] = []
  const flush = async () => {
    if (batch.length === 0) return
    const values: unknown[] = []
    const rows = batch.map((row) => {
      const placeholders = row.map((value, i) => {
        values.push(valueFor(columns[i]!.type, value))
        return `$${values.length}::${columns[i]!.type === 'USER-DEFINED' ? 'text' : columns[i]!.type}`
      })
      return `(${placeholders.join(', ')})`
    })
    await sql.unsafe(`INSERT INTO ${table} (${names}) OVERRIDING SYSTEM VALUE VALUES ${rows.join(', ')}`, values)
    copied += batch.length
    batch = []
  }
  for (const row of source.rows(
    table,
    columns.map((column) => column.name),
  )) {
    batch.push(row)
    if (batch.length === ROWS_PER_INSERT) await flush()
  }
  await flush()
  return copied
}
