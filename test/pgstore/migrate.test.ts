// The cluster's schema on a real PostgreSQL: `printhub migrate --store URL` applies it once (also when three run at the
// same time), says where a database stands, refuses a newer one and changes nothing when a migration fails; a
// node's check names both versions; the password is never shown; and the tables are the SQLite store's, column for
// column, with triggers that keep the same counters and timelines.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL } from 'bun'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, NewerSchemaError, schemaState, unservable } from '../../src/pgstore/migrate.ts'
import { PG_MIGRATIONS, PG_SCHEMA_VERSION } from '../../src/pgstore/schema.ts'
import { cli, cliJson } from '../support/cli.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'

let pg: TestPostgres

beforeAll(async () => {
  pg = await startPostgres()
}, 60_000)

afterAll(async () => {
  await pg?.stop()
})

/** Runs `work` with a connection to a new database of the test's own. */
async function withDatabase<T>(name: string, work: (sql: SQL, url: string) => Promise<T>): Promise<T> {
  const url = await pg.database(name)
  const sql = new SQL(url)
  try {
    return await work(sql, url)
  } finally {
    await sql.close()
  }
}

const password = () => decodeURIComponent(new URL(pg.url).password)

describe('printhub migrate --store URL', () => {
  test('applies the schema once, says so without the password, and then has nothing to do', async () => {
    const url = await pg.database('cli_migrate')
    const first = await cli(['migrate', '--store', url])
    expect(first.code).toBe(0)
    expect(first.stdout).toContain(`from schema 0 to ${PG_SCHEMA_VERSION}:`)
    expect(first.stdout).toContain(`postgres://printhub:***@127.0.0.1:${pg.port}/cli_migrate`)
    expect(first.stdout + first.stderr).not.toContain(password())
    const again = await cli(['migrate'], { PRINTHUB_DATABASE_URL: url })
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(`has schema ${PG_SCHEMA_VERSION} already: nothing to do.`)
    expect(await cliJson(['migrate', '--store', url])).toEqual({
      from: PG_SCHEMA_VERSION,
      to: PG_SCHEMA_VERSION,
      applied: [],
    })
  }, 30_000)

  test('three at once apply each migration once', async () => {
    const url = await pg.database('concurrent_migrate')
    const runs = await Promise.all([1, 2, 3].map(() => cliJson(['migrate', '--store', url])))
    expect(runs.filter((run) => run.applied.length > 0)).toHaveLength(1)
    expect(runs.map((run) => run.to)).toEqual([PG_SCHEMA_VERSION, PG_SCHEMA_VERSION, PG_SCHEMA_VERSION])
    await withDatabase('concurrent_migrate', async (sql) => {
      const rows = await sql`SELECT version FROM schema_migrations ORDER BY version`
      expect(rows.map((row: { version: number }) => row.version)).toEqual(PG_MIGRATIONS.map((m) => m.version))
    })
  }, 30_000)

  test('bad input: no URL, another kind of URL, a database not reached; none shows the password', async () => {
    const none = await cli(['migrate'])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('give the database with --store URL or PRINTHUB_DATABASE_URL')
    const mysql = await cli(['migrate', '--store', 'mysql://root:secret@127.0.0.1/x'])
    expect(mysql.code).toBe(2)
    expect(mysql.stderr).toContain('--store is a mysql URL: give a postgres:// one')
    expect(mysql.stderr).not.toContain('secret')
    const noDatabase = await cli(['migrate', '--store', 'postgres://printhub:secret@127.0.0.1:5432'])
    expect(noDatabase.stderr).toContain('names no database')
    const wrongPassword = await cli(['migrate', '--store', pg.url.replace(/:[^:@/]+@/, ':not-the-password@')])
    expect(wrongPassword.code).not.toBe(0)
    expect(wrongPassword.stderr).toContain(`the database postgres://printhub:***@127.0.0.1:${pg.port}/printhub`)
    expect(wrongPassword.stderr).not.toContain('not-the-password')
  }, 30_000)
})

describe('where a database stands', () => {
  test('none, older, the same, newer: a node serves only the same, and says why with both versions', async () => {
    await withDatabase('states', async (sql) => {
      const store = 'postgres://printhub:***@db/states'
      expect(await schemaState(sql)).toEqual({ current: 0, expected: PG_SCHEMA_VERSION })
      expect(unservable(await schemaState(sql), store)).toBe(
        `the database ${store} has no printhub schema (this printhub serves schema ${PG_SCHEMA_VERSION}): ` +
          'run printhub migrate --store URL first',
      )
      expect(await migrate(sql)).toMatchObject({ from: 0, to: PG_SCHEMA_VERSION })
      expect(unservable(await schemaState(sql), store)).toBeUndefined()
      expect(unservable({ current: 1, expected: 3 }, store)).toBe(
        `the database ${store} has schema 1, older than this printhub's 3: run printhub migrate --store URL first`,
      )
      await sql`INSERT INTO schema_migrations VALUES (99, 'from a later printhub', 0, 'printhub 9.0.0')`
      const newer = await schemaState(sql)
      expect(newer).toEqual({ current: 99, expected: PG_SCHEMA_VERSION })
      expect(unservable(newer, store)).toContain(
        `the database ${store} has schema 99, newer than this printhub's ${PG_SCHEMA_VERSION}`,
      )
      await expect(migrate(sql)).rejects.toBeInstanceOf(NewerSchemaError)
      expect(await schemaState(sql)).toEqual(newer)
    })
  })

  test('a migration that fails changes nothing, the ones before it in the same run included', async () => {
    await withDatabase('failing', async (sql) => {
      const failing = [
        ...PG_MIGRATIONS,
        { version: PG_SCHEMA_VERSION + 1, description: 'fails', sql: 'CREATE TABLE half (n integer); SELECT 1 / 0' },
      ]
      await expect(migrate(sql, failing)).rejects.toThrow(/division by zero/)
      expect(await schemaState(sql)).toEqual({ current: 0, expected: PG_SCHEMA_VERSION })
      const [tables] = await sql`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`
      expect(tables.n).toBe(0)
    })
  })
})

/** The SQLite store's tables and their columns, from a new data directory's database. */
function sqliteColumns(): Map<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'printhub-schema-'))
  try {
    const init = Bun.spawnSync([process.execPath, join(import.meta.dir, '../../src/main.ts'), 'init', '--data', dir])
    expect(init.exitCode).toBe(0)
    const db = new Database(join(dir, 'printhub.db'), { readonly: true })
    const tables = db
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all()
      .map((row) => row.name)
    const columns = new Map(
      tables.map((table) => [
        table,
        db
          .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`)
          .all()
          .map((row) => row.name)
          .sort(),
      ]),
    )
    db.close()
    return columns
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('the same tables as the SQLite store', () => {
  test("every table and column of the hub's SQLite database, beside the cluster's own", async () => {
    await withDatabase('same_tables', async (sql) => {
      await migrate(sql)
      const rows = await sql`SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' ORDER BY table_name, column_name`
      const postgres = new Map<string, string[]>()
      for (const row of rows as { table_name: string; column_name: string }[])
        postgres.set(row.table_name, [...(postgres.get(row.table_name) ?? []), row.column_name])
      const sqlite = sqliteColumns()
      // The built-in agent's ledger lives with each node's agent; the migrations tables differ by design.
      for (const table of [...sqlite.keys()])
        if (table.startsWith('ledger_') || table === 'schema_migrations') sqlite.delete(table)
      const clusterOwn = ['failure_counts', 'leases', 'nodes', 'print_intents', 'schema_migrations']
      expect([...postgres.keys()].filter((table) => !clusterOwn.includes(table)).sort()).toEqual(
        [...sqlite.keys()].sort(),
      )
      // Where SQLite orders rows by their rowid, PostgreSQL has it as a column.
      const rowids: Record<string, string> = { printer_states: 'seq', job_events: 'seq' }
      for (const [table, columns] of sqlite) {
        const rowid = rowids[table]
        const expected = rowid ? [...columns, rowid].sort() : columns
        expect({ table, columns: postgres.get(table) }).toEqual({ table, columns: expected })
      }
    })
  })

  test("the triggers keep a project's counters, a job's timeline and metadata, and what was pruned", async () => {
    await withDatabase('triggers', async (sql) => {
      await migrate(sql)
      await sql`INSERT INTO projects (id, name, created_at) VALUES ('prj_1', 'Bar', 1)`
      await sql`INSERT INTO printers (id, project_id, remote_id, connection, profile, width, created_at)
        VALUES ('prn_1', 'prj_1', 'bar', 'virtual', 'generic-80mm', 80, 1)`
      const [job] = await sql`INSERT INTO jobs (id, project_id, printer_id, idempotency_key, state, metadata,
          expires_at, max_attempts, created_at, updated_at)
        VALUES ('job_1', 'prj_1', 'prn_1', 'order-1', 'PENDING', ${{ table: '12' }}::jsonb, 100, 3, 10, 10)
        RETURNING seq`
      await sql`INSERT INTO job_documents (job_seq, document) VALUES (${job.seq}, ${'{"é":1}'})`
      const project = async () =>
        (
          await sql`SELECT open_jobs::int AS open, open_bytes::int AS bytes, finished_bytes::int AS finished
          FROM projects WHERE id = 'prj_1'`
        )[0]
      expect(await project()).toEqual({ open: 1, bytes: 8, finished: 0 })
      expect(await sql`SELECT key, value FROM job_metadata`).toEqual([{ key: 'table', value: '12' }])
      await sql`UPDATE jobs SET state = 'DISPATCHING', attempt_count = 1, updated_at = 20 WHERE id = 'job_1'`
      await sql`UPDATE jobs SET state = 'PENDING', last_error_code = 'printer.offline', last_error_message = 'off',
        updated_at = 30 WHERE id = 'job_1'`
      await sql`UPDATE jobs SET state = 'COMPLETED', updated_at = 40 WHERE id = 'job_1'`
      expect(await project()).toEqual({ open: 0, bytes: 0, finished: 8 })
      const timeline = await sql`SELECT at::int, state, attempt, error_code FROM job_events ORDER BY at`
      expect(timeline).toEqual([
        { at: 10, state: 'PENDING', attempt: 0, error_code: null },
        { at: 20, state: 'DISPATCHING', attempt: 1, error_code: null },
        { at: 30, state: 'PENDING', attempt: 1, error_code: 'printer.offline' },
        { at: 40, state: 'COMPLETED', attempt: 1, error_code: null },
      ])
      await sql`DELETE FROM jobs WHERE id = 'job_1'`
      expect(await project()).toEqual({ open: 0, bytes: 0, finished: 0 })
      expect(await sql`SELECT id FROM pruned_jobs`).toEqual([{ id: 'job_1' }])
      expect(await sql`SELECT count(*)::int AS n FROM job_events`).toEqual([{ n: 0 }])
    })
  })
})
