// The cluster's store when PostgreSQL stops under it (a crash, `pg_ctl stop -m immediate`) and starts again: a change
// asked while it is down fails with an error, never a false success, within a bounded time; once it is back, the
// same store serves again without being opened anew; what was committed before is there, what failed is not.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { migrate } from '../../src/pgstore/migrate.ts'
import { PgStore } from '../../src/pgstore/pg-store.ts'
import { StoreUnavailableError } from '../../src/storage/unavailable.ts'
import type { Actor } from '../../src/services/actor.ts'
import { ProjectService } from '../../src/services/projects.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'

const ACTOR: Actor = { userId: null, user: null, address: null }

let pg: TestPostgres
let store: PgStore

beforeAll(async () => {
  pg = await startPostgres()
  const url = await pg.database('restart')
  const sql = new SQL(url)
  await migrate(sql)
  await sql.close()
  store = await PgStore.open(url, { shown: 'test', connections: 4 })
}, 60_000)

afterAll(async () => {
  await store?.close()
  await pg?.stop()
})

describe('PostgreSQL stopped and started again', () => {
  test('changes fail while it is down, then the same store serves again; nothing is lost or made twice', async () => {
    const projects = new ProjectService(store)
    const before = await projects.create(ACTOR, 'Before')
    expect(before.kind).toBe('created')
    await pg.kill()
    const started = performance.now()
    const during = await projects.create(ACTOR, 'During').then(
      (outcome) => ({ ok: true as const, outcome }),
      (error: unknown) => ({ ok: false as const, error }),
    )
    expect(during.ok).toBe(false)
    expect(!during.ok && during.error).toBeInstanceOf(StoreUnavailableError)
    // A password guessed, or a pairing code, counted in the database: the same answer (a 503, never a 500).
    const guesses = store.failureCounts('sign-in-address', { limit: 10, windowMs: 60_000 })
    await expect(guesses.attempt(['192.168.1.20 1'])).rejects.toBeInstanceOf(StoreUnavailableError)
    await expect(guesses.retryAfterMs('192.168.1.20 1')).rejects.toBeInstanceOf(StoreUnavailableError)
    // Bounded: the store's connect timeout, not forever.
    expect(performance.now() - started).toBeLessThan(15_000)
    await pg.start()
    // The pool's connections died with the server: the store connects anew by itself.
    const after = await projects.create(ACTOR, 'After')
    expect(after.kind).toBe('created')
    const names = (await projects.list()).map((project) => project.name)
    expect(names).toEqual(['Before', 'After'])
  }, 60_000)
})
