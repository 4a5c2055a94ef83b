// The hot queries of dispatch find their rows through the index meant for them, on a database as
// the hub makes it (no statistics: the hub never runs ANALYZE), so their cost stays the same
// however many finished jobs the history holds.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { GONE_AGENTS_JOBS_SQL, QUEUE_HEAD_SQL } from '../../src/store/job-states.ts'
import { firstStartedStore, jobInState, type TestStore } from '../support/fixtures.ts'

let world: TestStore
beforeEach(async () => {
  world = await firstStartedStore()
})
afterEach(() => world.close())

const plan = (sql: string) =>
  world.store.db
    .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`)
    .all()
    .map((row) => row.detail)

test("a printer's queue head is looked up along the queue's index, never along all of the printer's jobs", () => {
  expect(plan(QUEUE_HEAD_SQL)).toEqual(['SEARCH jobs USING INDEX jobs_queue (printer_id=?)'])
  // And it finds the head behind a history of finished jobs, oldest waiting job first.
  for (let i = 0; i < 50; i++) jobInState(world.store, world, 'COMPLETED')
  const first = jobInState(world.store, world, 'PENDING')
  jobInState(world.store, world, 'PENDING')
  world.store.commits.commit()
  expect(world.store.jobStates.queueHead(world.printerId)?.id).toBe(first.id)
})

test('the jobs of gone agents are found from those agents, never by reading the jobs of connected ones', () => {
  const steps = plan(GONE_AGENTS_JOBS_SQL)
  expect(steps[0]).toMatch(/^SCAN a\b/)
  expect(steps).toContain('SEARCH j USING INDEX jobs_with_agent (printer_id=?)')
  expect(steps.some((step) => /^SCAN j\b/.test(step))).toBe(false)
})
