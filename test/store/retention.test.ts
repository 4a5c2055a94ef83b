// Retention on a real store: finished jobs older than the period go, with their documents and
// timelines; unfinished ones never; each printer's current state stays; the pages they held go
// back to the file system; a database made before this can give pages back after one rewrite.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { JobState } from '../../src/protocol/job.ts'
import { sqliteHousekeeping, PRUNE_BATCH } from '../../src/services/housekeeping.ts'
import { DATABASE_FILE, HUB_SCHEMA } from '../../src/store/database.ts'
import { openDatabase, PAGE_SIZE, PAGE_SIZE_REWRITE_MAX_BYTES } from '../../src/sqlite/database.ts'
import { Store } from '../../src/store/store.ts'
import { firstStartedStore, jobInState, type TestStore } from '../support/fixtures.ts'
import { tempDir } from '../support/hub.ts'
import { Log } from '../../src/platform/log.ts'

const DAY = 86_400_000
const START = Date.parse('2026-01-01T12:00:00Z')
let clock = START
let world: TestStore
const logs: string[] = []
const housekeeping = (days: number, diskLow = false, historyBytes = Number.MAX_SAFE_INTEGER) =>
  sqliteHousekeeping(world.store, {
    retentionDays: () => days,
    historyBytesPerProject: () => historyBytes,
    diskLow: () => diskLow,
    now: () => clock,
    log: new Log({ format: 'text', level: 'info', journal: false }, (line) => logs.push(line)).for('retention'),
  })
const rows = (table: string) => world.store.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n

beforeEach(async () => {
  clock = START
  world = await firstStartedStore(() => clock)
})
afterEach(() => world.close())

describe('retention', () => {
  test(
    'finished jobs older than the period go with their documents and ' + 'timelines; unfinished and recent ones stay',
    async () => {
      const old = (['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'] as JobState[]).map((state) =>
        jobInState(world.store, world, state),
      )
      const stillWaiting = jobInState(world.store, world, 'PENDING', { expiresInMs: 40 * DAY })
      const stillHeld = jobInState(world.store, world, 'DELIVERED', { expiresInMs: 40 * DAY })
      world.store.commits.commit()
      clock += 31 * DAY
      const recent = jobInState(world.store, world, 'COMPLETED')
      world.store.commits.commit()
      const [documents, events] = [rows('job_documents'), rows('job_events')]

      const pass = await housekeeping(30).pass()
      expect(pass.jobs).toBe(4)
      for (const job of old) expect(world.store.jobs.get(job.id)).toBeUndefined()
      for (const job of [stillWaiting, stillHeld, recent]) expect(world.store.jobs.get(job.id)).toBeDefined()
      expect(rows('job_documents')).toBe(documents - 4)
      expect(rows('job_events')).toBeLessThan(events)
      expect(world.store.jobs.timeline(old[0]!.id)).toEqual([])
      expect(logs.at(-1)).toMatch(/ info  retention jobs=4 records=\d+ before=\S+ days=30 deleted 4 finished jobs/)
      // Nothing more to do: a second pass deletes nothing.
      expect((await housekeeping(30).pass()).jobs).toBe(0)
    },
  )

  test(
    'with the disk close to full, finished jobs are kept only a day, whatever ' +
      'the setting; unfinished ones still stay',
    async () => {
      const twoDaysOld = jobInState(world.store, world, 'COMPLETED')
      const waiting = jobInState(world.store, world, 'PENDING', { expiresInMs: 40 * DAY })
      world.store.commits.commit()
      clock += DAY + DAY / 2
      const halfDayOld = jobInState(world.store, world, 'FAILED')
      world.store.commits.commit()
      clock += DAY / 2
      // Room enough: the 30 days hold.
      expect((await housekeeping(30, false).pass()).jobs).toBe(0)
      const squeezed = await housekeeping(30, true).pass()
      expect(squeezed.jobs).toBe(1)
      expect(world.store.jobs.get(twoDaysOld.id)).toBeUndefined()
      expect(world.store.jobs.get(halfDayOld.id)).toBeDefined()
      expect(world.store.jobs.get(waiting.id)).toBeDefined()
      expect(logs.at(-1)).toContain('kept 1 day instead of 30: the disk is close to full')
    },
  )

  test('a large backlog goes in batches, with the event loop free between them', async () => {
    const count = PRUNE_BATCH * 2 + 17
    for (let i = 0; i < count; i++) jobInState(world.store, world, 'COMPLETED')
    world.store.commits.commit()
    clock += 2 * DAY
    let turns = 0
    const ticking = setInterval(() => turns++, 0)
    const pass = await housekeeping(1).pass()
    clearInterval(ticking)
    expect(pass.jobs).toBe(count)
    expect(turns).toBeGreaterThan(0)
    expect(rows('jobs')).toBe(0)
  })

  test(
    'a project whose finished jobs hold more than its budget loses its oldest ' +
      'finished ones first; other projects and unfinished jobs stay',
    async () => {
      const builtin = world.store.agents.builtin()!
      const other = world.store.projects.create('other venue')
      const otherPrinter = world.store.printers.add({
        projectId: other.id,
        remoteId: 'bar',
        name: null,
        connection: 'virtual',
        profile: 'generic-80mm',
        width: 80,
        agentId: builtin.id,
        agentPrinterId: 'bar',
      })!
      const busy = Array.from({ length: 10 }, () => jobInState(world.store, world, 'COMPLETED'))
      const waiting = jobInState(world.store, world, 'PENDING', { expiresInMs: 40 * DAY })
      const quiet = Array.from({ length: 3 }, () =>
        jobInState(world.store, { projectId: other.id, printerId: otherPrinter.id }, 'FAILED'),
      )
      world.store.commits.commit()
      const documentBytes = (jobId: string) =>
        world.store.db
          .query<{ n: number }, [string]>(
            `SELECT length(CAST(d.document AS BLOB)) AS n FROM job_documents d JOIN
            jobs j ON j.seq = d.job_seq WHERE j.id = ?`,
          )
          .get(jobId)!.n
      const sum = (jobs: { id: string }[]) => jobs.reduce((total, job) => total + documentBytes(job.id), 0)
      // The tally: finished jobs' documents only, kept as jobs finish.
      expect(world.store.retention.finishedBytes(world.projectId)).toBe(sum(busy))
      expect(world.store.retention.finishedBytes(other.id)).toBe(sum(quiet))
      // A budget of seven of the busy project's jobs: its three oldest go, nothing else.
      const budget = sum(busy.slice(3))
      expect(sum(quiet)).toBeLessThan(budget)
      const pass = await housekeeping(30, false, budget).pass()
      expect(pass.overBudget).toBe(3)
      expect(pass.jobs).toBe(3)
      for (const job of busy.slice(0, 3)) expect(world.store.jobs.get(job.id)).toBeUndefined()
      for (const job of [...busy.slice(3), waiting, ...quiet]) expect(world.store.jobs.get(job.id)).toBeDefined()
      expect(world.store.retention.finishedBytes(world.projectId)).toBe(budget)
      expect(logs.at(-1)).toMatch(
        new RegExp(
          / info  retention jobs=3 historyMb=0 deleted 3 of the oldest finished jobs of projects /.source +
            /whose finished jobs held more than 0 MB/.source,
        ),
      )
      // Within its budget now: a second pass deletes nothing; retention by age still counts them apart.
      expect((await housekeeping(30, false, budget).pass()).jobs).toBe(0)
      clock += 31 * DAY
      const byAge = await housekeeping(30, false, budget).pass()
      expect(byAge).toMatchObject({ jobs: 10, overBudget: 0 })
      expect(world.store.retention.finishedBytes(world.projectId)).toBe(0)
      expect(world.store.retention.finishedBytes(other.id)).toBe(0)
      expect(world.store.jobs.get(waiting.id)).toBeDefined()
    },
  )

  test("old records go too, but each printer's current state stays", async () => {
    world.store.printerStates.record('agt_1', 'bar', 'online')
    clock += 1_000
    world.store.printerStates.record('agt_1', 'bar', 'paper_out')
    clock += 1_000
    world.store.printerStates.record('agt_1', 'bar', 'online')
    clock += 10 * DAY
    const pass = await housekeeping(3).pass()
    expect(pass.records).toBeGreaterThanOrEqual(2)
    expect(world.store.printerStates.history('agt_1', 'bar', 10).map((c) => c.state)).toEqual(['online'])
  })

  test('the pages deleted jobs held go back to the file system', async () => {
    const big = 'x'.repeat(8_000)
    for (let i = 0; i < 300; i++) {
      world.store.jobs.create({
        projectId: world.projectId,
        printerId: world.printerId,
        idempotencyKey: `big-${i}`,
        document: { width: 80, sections: [{ type: 'text', value: big }] },
        metadata: null,
        expiresInMs: DAY,
        maxAttempts: 5,
      })
    }
    world.store.commits.commit()
    for (const job of world.store.jobs.newest(world.projectId).concat()) world.store.jobStates.cancel(job.id)
    world.store.commits.commit()
    world.store.db.run('PRAGMA wal_checkpoint(TRUNCATE)')
    const file = join(world.dir, DATABASE_FILE)
    const before = statSync(file).size
    clock += 2 * DAY
    const pass = await housekeeping(1).pass()
    world.store.db.run('PRAGMA wal_checkpoint(TRUNCATE)')
    expect(pass.jobs).toBeGreaterThan(0)
    expect(pass.releasedPages).toBeGreaterThan(0)
    expect(statSync(file).size).toBeLessThan(before)
  })
})

describe('the file format', () => {
  test('a new database gives pages back, in small pages; one made before is rewritten once by the hub so', () => {
    expect(world.store.db.query<{ auto_vacuum: number }, []>('PRAGMA auto_vacuum').get()!.auto_vacuum).toBe(2)
    expect(world.store.db.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size).toBe(PAGE_SIZE)
    const dir = tempDir()
    try {
      // A database as earlier builds made it: no auto_vacuum.
      const old = new Database(join(dir, DATABASE_FILE), { create: true })
      old.run('PRAGMA journal_mode = WAL')
      old.close()
      openDatabase(dir, false, HUB_SCHEMA).close()
      const store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 10 })
      expect(store.db.query<{ auto_vacuum: number }, []>('PRAGMA auto_vacuum').get()!.auto_vacuum).toBe(0)
      expect(store.db.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size).toBe(4096)
      expect(store.upgradeFileFormat()).toBe('rewritten')
      expect(store.db.query<{ auto_vacuum: number }, []>('PRAGMA auto_vacuum').get()!.auto_vacuum).toBe(2)
      expect(store.db.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size).toBe(PAGE_SIZE)
      expect(store.db.query<{ journal_mode: string }, []>('PRAGMA journal_mode').get()!.journal_mode).toBe('wal')
      expect(store.upgradeFileFormat()).toBe('unchanged')
      store.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('one that gives pages back already keeps its 4 KB pages past the size a start rewrites', () => {
    const dir = tempDir()
    try {
      const old = new Database(join(dir, DATABASE_FILE), { create: true })
      old.run('PRAGMA auto_vacuum = INCREMENTAL')
      old.run('PRAGMA journal_mode = WAL')
      old.run('CREATE TABLE filler (bytes BLOB)')
      const mb = PAGE_SIZE_REWRITE_MAX_BYTES / 1_048_576
      old.transaction(() => {
        for (let i = 0; i <= mb; i++) old.run('INSERT INTO filler VALUES (zeroblob(1048576))')
      })()
      old.close()
      openDatabase(dir, false, HUB_SCHEMA).close()
      const store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 10 })
      expect(store.upgradeFileFormat()).toBe('unchanged')
      expect(store.db.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size).toBe(4096)
      store.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
