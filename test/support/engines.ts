// Both stores, for suites that run the same operations on each (as River runs one driver suite on both engines):
// SQLite in a real file, PostgreSQL in a real server started for the suite, each with a clock the test moves.
import { afterAll, beforeAll } from 'bun:test'
import { SQL } from 'bun'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate } from '../../src/pgstore/migrate.ts'
import { PgStore } from '../../src/pgstore/pg-store.ts'
import type { UnitRunner } from '../../src/storage/repositories.ts'
import { Store } from '../../src/store/store.ts'
import { SqliteUnits } from '../../src/store/units.ts'
import { startPostgres, type TestPostgres } from './postgres.ts'

/** When each store's clock starts. */
export const ENGINE_START = '2026-12-07T10:00:00.000Z'

export interface Engine {
  units: UnitRunner
  /** Adds a printer record to the project, as the printers' operations (not yet on both stores) would. */
  addPrinter(projectId: string, id: string, remoteId: string): Promise<void>
  /** Moves the store's clock on. */
  advance(ms: number): void
  /**
   * Another node on the same data: another connection pool to the same database (PostgreSQL), the same store
   * (SQLite, one process). Closed with the engine.
   */
  node(): Promise<UnitRunner>
  /** PostgreSQL's: a connection of the test's own to the same database (locks held, leases moved by hand). */
  sql?: SQL
  close(): Promise<void>
}

/**
 * The two stores by name, each opened afresh by its function; PostgreSQL's server runs while the suite does (this
 * registers its start and stop), each store a database of its own.
 */
export function bothEngines(): Record<'sqlite' | 'postgres', () => Promise<Engine>> {
  let pg: TestPostgres | undefined
  let databases = 0
  beforeAll(async () => {
    pg = await startPostgres()
  }, 60_000)
  afterAll(async () => {
    await pg?.stop()
  })
  return {
    sqlite: async () => {
      let clock = Date.parse(ENGINE_START)
      const dir = mkdtempSync(join(tmpdir(), 'printhub-both-'))
      const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 100, now: () => clock })
      const units = new SqliteUnits(store)
      return {
        units,
        addPrinter: async (projectId, id, remoteId) => {
          store.commits.write(() =>
            store.db.run(
              `INSERT INTO printers (id, project_id, remote_id, connection, profile, width, created_at)
               VALUES (?, ?, ?, 'virtual', 'generic-80mm', 80, ?)`,
              [id, projectId, remoteId, clock],
            ),
          )
        },
        advance: (ms) => void (clock += ms),
        node: async () => units,
        close: async () => {
          store.close()
          rmSync(dir, { recursive: true, force: true })
        },
      }
    },
    postgres: async () => {
      let clock = Date.parse(ENGINE_START)
      if (!pg) throw new Error('PostgreSQL did not start')
      const url = await pg.database(`both_${++databases}`)
      const sql = new SQL(url)
      await migrate(sql)
      await sql.close()
      const options = { now: () => clock, shown: 'test', jobLimits: { openJobs: () => 100, openBytes: 256 << 20 } }
      const store = await PgStore.open(url, options)
      const nodes: PgStore[] = []
      const own = new SQL(url)
      return {
        units: store,
        sql: own,
        addPrinter: async (projectId, id, remoteId) => {
          const sql = new SQL(url)
          await sql`INSERT INTO printers (id, project_id, remote_id, connection, profile, width, created_at)
            VALUES (${id}, ${projectId}, ${remoteId}, 'virtual', 'generic-80mm', 80, ${clock})`
          await sql.close()
        },
        advance: (ms) => void (clock += ms),
        node: async () => {
          const node = await PgStore.open(url, options)
          nodes.push(node)
          return node
        },
        close: async () => {
          await Promise.all([store, ...nodes].map((node) => node.close()))
          await own.close()
        },
      }
    },
  }
}
