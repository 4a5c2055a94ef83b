// The audit log on a real store: entries newest first, pages that go on exactly after each other,
// and retention deleting entries older than the period (as it does finished jobs), never newer ones.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { Log } from '../../src/platform/log.ts'
import { sqliteHousekeeping } from '../../src/services/housekeeping.ts'
import { firstStartedStore, type TestStore } from '../support/fixtures.ts'

const DAY = 86_400_000
let clock = Date.parse('2026-01-01T12:00:00Z')
let world: TestStore
beforeEach(async () => {
  world = await firstStartedStore(() => clock)
})
afterEach(() => world.close())

const record = (action: string) =>
  world.store.commits.write(() =>
    world.store.audit.record({ userId: null, user: 'olga', action, target: null, address: '127.0.0.1' }),
  )

test('newest first, paged; retention deletes what is older than the period', async () => {
  for (let i = 0; i < 5; i++) record(`old.${i}`)
  clock += 31 * DAY
  for (let i = 0; i < 3; i++) record(`new.${i}`)
  const all = world.store.audit.page(100)
  expect(all.map((entry) => entry.action)).toEqual([
    'new.2',
    'new.1',
    'new.0',
    'old.4',
    'old.3',
    'old.2',
    'old.1',
    'old.0',
  ])
  const first = world.store.audit.page(3)
  expect([...first, ...world.store.audit.page(100, first.at(-1)!.id)]).toEqual(all)
  const log = new Log({ format: 'text', level: 'warn', journal: false }, () => {}).for('retention')
  await sqliteHousekeeping(world.store, {
    retentionDays: () => 30,
    historyBytesPerProject: () => Number.MAX_SAFE_INTEGER,
    diskLow: () => false,
    now: () => clock,
    log,
  }).pass()
  expect(world.store.audit.page(100).map((entry) => entry.action)).toEqual(['new.2', 'new.1', 'new.0'])
})
