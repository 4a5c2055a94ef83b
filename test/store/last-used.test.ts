// A credential's last use (and an agent's last connection) is a hint for people: it rides in the
// group commit, flushed off the event loop, instead of a transaction of its own that would flush
// the disk on the loop. Shown on a real database: the use is seen at once by the hub, it is in the
// open group transaction (not committed on its own), and a second connection sees it once that
// commits; within a minute of the last recorded use nothing is written at all.
import { LAST_USED_RESOLUTION_MS } from '../../src/storage/last-used.ts'
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { firstStartedStore, type TestStore } from '../support/fixtures.ts'

let clock = Date.parse('2026-11-27T12:00:00Z')
let world: TestStore
beforeEach(async () => {
  world = await firstStartedStore(() => clock)
  world.store.commits.commit()
})
afterEach(() => world.close())

/** The column as another process reads it from the file. */
function onDisk(sql: string, id: string): number | null {
  const other = new Database(join(world.dir, DATABASE_FILE), { readonly: true })
  try {
    return other.query<{ at: number | null }, [string]>(sql).get(id)?.at ?? null
  } finally {
    other.close()
  }
}

test(
  "an API key's use is written in the group commit, seen at once, on disk " +
    'with its commit, and at most once a quarter of an hour',
  () => {
    const { store } = world
    const { key, secret } = store.apiKeys.create(world.projectId, ['jobs:write'], 'till')
    store.commits.commit()
    const lastUsed = (id: string) => onDisk('SELECT last_used_at AS at FROM api_keys WHERE id = ?', id)

    expect(store.apiKeys.use(secret)?.lastUsedAt).toBe(new Date(clock).toISOString())
    // Written in the open group transaction, not committed on its own.
    expect(store.commits.transaction).toBeDefined()
    expect(lastUsed(key.id)).toBeNull()
    expect(store.apiKeys.get(key.id)?.lastUsedAt).toBe(new Date(clock).toISOString())
    store.commits.commit()
    expect(lastUsed(key.id)).toBe(clock)

    // Within the quarter of an hour: nothing written, no transaction opened.
    clock += LAST_USED_RESOLUTION_MS - 1_000
    expect(store.apiKeys.use(secret)?.lastUsedAt).toBe(new Date(clock - LAST_USED_RESOLUTION_MS + 1_000).toISOString())
    expect(store.commits.transaction).toBeUndefined()
    clock += 1_000
    store.apiKeys.use(secret)
    store.commits.commit()
    expect(lastUsed(key.id)).toBe(clock)
  },
)

test("an agent's last connection is written in the group commit too", () => {
  const { store } = world
  const agent = store.agents.builtin()!
  const seenAt = () => onDisk('SELECT last_seen_at AS at FROM agents WHERE id = ?', agent.id)
  const before = seenAt()
  clock += 5_000
  store.agents.seen(agent.id)
  expect(store.commits.transaction).toBeDefined()
  expect(seenAt()).toBe(before)
  store.commits.commit()
  expect(seenAt()).toBe(clock)
})
