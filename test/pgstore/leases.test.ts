// Leases with a fencing number, on a real PostgreSQL: of nodes taking a free lease at once, one gets it; the holder
// renews it with the same number; once it has run out (by the database's clock) another node takes it with a larger
// number, and the first node can neither renew it nor make a write that follows from it; a lease given up is free.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { migrate } from '../../src/pgstore/migrate.ts'
import { PgLeases } from '../../src/pgstore/leases.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'

let pg: TestPostgres
let sql: SQL
let leases: PgLeases

beforeAll(async () => {
  pg = await startPostgres()
  sql = new SQL(await pg.database('leases'))
  await migrate(sql)
  leases = new PgLeases(sql)
  for (const id of ['node-a', 'node-b', ...Array.from({ length: 20 }, (_, i) => `racer-${i}`)])
    await leases.join({ id, name: id, address: null, version: 'test' })
}, 60_000)

afterAll(async () => {
  await sql?.close()
  await pg?.stop()
})

/** Waits until the database's clock has passed `at` (a lease's end): asked of the database, not guessed. */
async function until(at: number): Promise<void> {
  while ((await leases.clock()) <= at) await Bun.sleep(Math.max(1, at - Date.now()))
}

describe('leases', () => {
  test('of twenty nodes taking one free lease at once, exactly one holds it', async () => {
    const taken = await Promise.all(
      Array.from({ length: 20 }, (_, i) => leases.take('printer:race', `racer-${i}`, 10_000)),
    )
    const holders = taken.filter((lease) => lease !== undefined)
    expect(holders).toHaveLength(1)
    expect(await leases.holder('printer:race')).toEqual(holders[0])
  })

  test('renewed by its holder with the same number; taken over once run out, with a larger one; fenced', async () => {
    const first = await leases.take('printer:kitchen', 'node-a', 300)
    if (!first) throw new Error('node-a could not take a free lease')
    expect(await leases.take('printer:kitchen', 'node-b', 300)).toBeUndefined()
    const renewed = await leases.take('printer:kitchen', 'node-a', 300)
    expect(renewed).toMatchObject({ nodeId: 'node-a', fence: first.fence })
    expect(renewed!.expiresAt).toBeGreaterThanOrEqual(first.expiresAt)
    await until(renewed!.expiresAt)
    const second = await leases.take('printer:kitchen', 'node-b', 10_000)
    expect(second).toMatchObject({ nodeId: 'node-b' })
    expect(second!.fence).toBeGreaterThan(first.fence)
    // The node paused past its lease, resumed: it cannot renew, and what it writes under its number changes nothing.
    expect(await leases.take('printer:kitchen', 'node-a', 300)).toBeUndefined()
    expect(await leases.holds('printer:kitchen', first.fence)).toBe(false)
    expect(await leases.holds('printer:kitchen', second!.fence)).toBe(true)
    await sql`CREATE TABLE fenced_writes (n integer)`
    const write = (fence: number) => sql`INSERT INTO fenced_writes (n)
      SELECT ${fence} WHERE EXISTS (SELECT 1 FROM leases WHERE resource = 'printer:kitchen' AND fence = ${fence})
      RETURNING n`
    expect(await write(first.fence)).toHaveLength(0)
    expect(await write(second!.fence)).toHaveLength(1)
  })

  test('given up by its holder only, with its number: run out then, under a new number, free for another', async () => {
    const held = await leases.take('maintenance', 'node-a', 10_000)
    expect(await leases.release('maintenance', 'node-b', held!.fence)).toBe(false)
    expect(await leases.release('maintenance', 'node-a', held!.fence + 1)).toBe(false)
    const before = await leases.clock()
    expect(await leases.release('maintenance', 'node-a', held!.fence)).toBe(true)
    // Once only: a lease given up is not given up again.
    expect(await leases.release('maintenance', 'node-a', held!.fence)).toBe(false)
    const given = await leases.holder('maintenance')
    expect(given!.fence).toBeGreaterThan(held!.fence)
    expect(given!.expiresAt).toBeGreaterThanOrEqual(before)
    expect(given!.expiresAt).toBeLessThanOrEqual(await leases.clock())
    expect((await leases.states()).ranOut.get('maintenance')).toMatchObject({
      at: given!.expiresAt,
      fence: given!.fence,
    })
    expect(await leases.holds('maintenance', held!.fence)).toBe(false)
    expect(await leases.take('maintenance', 'node-b', 10_000)).toMatchObject({ nodeId: 'node-b' })
    expect((await leases.states()).live.has('maintenance')).toBe(true)
  })

  test('bad input: a resource too long or empty is refused; a node not in the cluster cannot hold one', async () => {
    await expect(leases.take('', 'node-a', 1_000)).rejects.toThrow(RangeError)
    await expect(leases.take('x'.repeat(201), 'node-a', 1_000)).rejects.toThrow(RangeError)
    await expect(leases.take('printer:ghost', 'node-nobody', 1_000)).rejects.toThrow()
    expect(await leases.holder('printer:ghost')).toBeUndefined()
  })
})
