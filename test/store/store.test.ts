// The store on a real SQLite file: durable settings, migrations, group commit, query plans.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { openDatabase } from '../../src/sqlite/database.ts'
import { HUB_SCHEMA, openHubDatabase } from '../../src/store/database.ts'
import { MIGRATIONS } from '../../src/store/migrations.ts'
import type { NewJob } from '../../src/store/jobs.ts'
import { Store } from '../../src/store/store.ts'
import { initialize } from '../../src/services/init.ts'
import { tempDir } from '../support/hub.ts'

let dir: string
let store: Store
let projectId: string
let printerId: string

beforeEach(async () => {
  dir = tempDir()
  store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 10_000 })
  const init = await initialize(store, dir)
  projectId = init.projectId
  printerId = store.printers.resolve(projectId, 'demo')!.id
})
afterEach(() => {
  store.close()
  rmSync(dir, { recursive: true, force: true })
})

const newJob = (key: string): NewJob => ({
  projectId,
  printerId,
  idempotencyKey: key,
  document: { width: 80, sections: [{ type: 'cut' }] },
  metadata: null,
  expiresInMs: 60_000,
  maxAttempts: 5,
})

describe('store', () => {
  test('the database is in WAL mode with full synchronous commits and foreign keys', () => {
    expect(store.db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    expect(store.db.query('PRAGMA synchronous').get()).toEqual({ synchronous: 2 })
    expect(store.db.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
  })

  test('migrations are recorded and applied once', () => {
    const versions = store.db.query('SELECT version FROM schema_migrations').all()
    expect(versions).toEqual(MIGRATIONS.map(({ version }) => ({ version })))
    const again = openHubDatabase(dir, false)
    expect(again.query('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: MIGRATIONS.length })
    again.close()
  })

  test('a failing migration leaves the database as it was', () => {
    const broken = [{ version: 1, description: 'bad', sql: 'CREATE TABLE t (a); CREATE TABLE t (a);' }]
    const other = tempDir()
    try {
      expect(() => openDatabase(other, true, { ...HUB_SCHEMA, migrations: broken })).toThrow()
      const db = openDatabase(other, false, { ...HUB_SCHEMA, migrations: [] })
      expect(db.query("SELECT name FROM sqlite_master WHERE name = 't'").all()).toEqual([])
      db.close()
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })

  test('job states are constrained by the schema', async () => {
    const outcome = await store.jobs.submit(newJob('a'))
    expect(outcome.kind).toBe('created')
    expect(() => store.db.run("UPDATE jobs SET state = 'PRINTED'")).toThrow(/CHECK constraint failed/)
  })

  test('submissions that arrive together are committed in one transaction', async () => {
    const before = { ...store.commits.stats }
    const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => store.jobs.submit(newJob(`batch-${i}`))))
    expect(outcomes.every((o) => o.kind === 'created')).toBe(true)
    expect(store.commits.stats.commits - before.commits).toBe(1)
    expect(store.commits.stats.writes - before.writes).toBe(100)
  })

  test('a batch larger than one transaction allows is split, and nothing is lost', async () => {
    const before = store.commits.stats.commits
    const outcomes = await Promise.all(Array.from({ length: 600 }, (_, i) => store.jobs.submit(newJob(`big-${i}`))))
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(600)
    expect(store.commits.stats.commits - before).toBe(3)
  })

  test('the open-jobs counter follows inserts and terminal states', async () => {
    await Promise.all(['x', 'y', 'z'].map((k) => store.jobs.submit(newJob(k))))
    expect(store.projects.get(projectId)!.openJobs).toBe(3)
    store.db.run("UPDATE jobs SET state = 'DELIVERED' WHERE idempotency_key = 'x'")
    expect(store.projects.get(projectId)!.openJobs).toBe(3)
    store.db.run("UPDATE jobs SET state = 'CANCELLED' WHERE idempotency_key IN ('x', 'y')")
    expect(store.projects.get(projectId)!.openJobs).toBe(1)
  })

  test('the job list reads an index, never the whole table or the documents', () => {
    const plan = (sql: string, ...params: string[]) =>
      (store.db.query(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
        .map((r) => r.detail)
        .join('\n')
    const cols = 'id, state'
    expect(plan(`SELECT ${cols} FROM jobs WHERE project_id = ? ORDER BY seq DESC LIMIT 100`, projectId)).toContain(
      'USING INDEX jobs_newest',
    )
    const byState = plan(
      `SELECT ${cols} FROM jobs WHERE project_id = ? AND state = ? ORDER BY seq DESC LIMIT 100`,
      projectId,
      'PENDING',
    )
    expect(byState).toContain('USING INDEX jobs_newest_by_state')
    expect(byState).not.toContain('TEMP B-TREE')
  })
})
