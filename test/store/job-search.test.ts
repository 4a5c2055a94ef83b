// The dashboard's search on a real store of 100,000 jobs: a metadata value, whatever its key, as
// typed (a prefix finds every value that starts with it), newest first, with the other filters;
// along the index of values and by the jobs' own keys, never a scan of the jobs.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { jobSearch } from '../../src/store/job-pages.ts'
import { firstStartedStore, type TestStore } from '../support/fixtures.ts'

const JOBS = 100_000
let world: TestStore

beforeAll(async () => {
  world = await firstStartedStore(Date.now, () => JOBS + 1)
  world.store.jobs.openBytesLimit = Number.MAX_SAFE_INTEGER
  const document = { width: 80 as const, sections: [{ type: 'cut' as const }] }
  for (let i = 0; i < JOBS; i++) {
    const made = world.store.jobs.create({
      projectId: world.projectId,
      printerId: world.printerId,
      idempotencyKey: `order-${i}`,
      document,
      metadata: { order: String(i), table: `T${i % 40}` },
      expiresInMs: 60_000,
      maxAttempts: 1,
    })
    if (made.kind !== 'created') throw new Error(made.kind)
    if (i % 5_000 === 4_999) await world.store.commits.durable()
  }
  await world.store.commits.durable()
}, 120_000)
afterAll(() => world.close())

const orders = (jobs: { metadata: Record<string, string> | null }[]) => jobs.map((job) => job.metadata!.order)

test('an order number among 100,000 jobs; as typed, every order that starts with it, newest first', () => {
  expect(orders(world.store.jobs.find({ metadataPrefix: '41999' }, 100))).toEqual(['41999'])
  expect(orders(world.store.jobs.find({ metadataPrefix: '4199' }, 100))).toEqual([
    '41999',
    '41998',
    '41997',
    '41996',
    '41995',
    '41994',
    '41993',
    '41992',
    '41991',
    '41990',
    '4199',
  ])
  // A table, whatever key holds it, with the other filters.
  const table = world.store.jobs.find({ metadataPrefix: 'T7', projectId: world.projectId, state: 'PENDING' }, 3)
  expect(table.map((job) => job.metadata!.table)).toEqual(['T7', 'T7', 'T7'])
  expect(orders(table)).toEqual(['99967', '99927', '99887'])
  expect(world.store.jobs.find({ metadataPrefix: 'no such order' }, 100)).toEqual([])
})

test('the search walks the index of values and reads jobs by their keys: no scan of the jobs', () => {
  const { sql, values } = jobSearch({ metadataPrefix: '41' }, 100)
  const plan = world.store.db
    .query<{ detail: string }, (string | number)[]>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...values)
    .map((row) => row.detail)
  expect(
    plan.some((step) =>
      step.startsWith('SEARCH job_metadata USING COVERING INDEX job_metadata_by_value (value>? AND value<?)'),
    ),
  ).toBe(true)
  expect(plan.some((step) => /^SCAN jobs\b/.test(step))).toBe(false)
})
