// The PostgreSQL the store's tests run on (test/support/postgres.ts) is a real server: reached with Bun.sql over
// TCP with a password, databases of a test's own, and it comes back after a crash with what it had committed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'

let pg: TestPostgres

beforeAll(async () => {
  pg = await startPostgres()
}, 60_000)

afterAll(async () => {
  await pg?.stop()
})

describe('the test PostgreSQL', () => {
  test('answers Bun.sql with a password, on 127.0.0.1 only', async () => {
    const sql = new SQL(pg.url)
    try {
      const [row] = await sql`SELECT current_setting('listen_addresses') AS listen, current_user AS who`
      expect(row).toEqual({ listen: '127.0.0.1', who: 'printhub' })
      const wrong = new SQL(pg.url.replace(/:[^:@/]+@/, ':wrong@'))
      await expect(wrong`SELECT 1`.then(() => 'connected')).rejects.toThrow(/password/)
      await wrong.close()
    } finally {
      await sql.close()
    }
  })

  test('keeps what was committed across a crash of the server', async () => {
    const url = await pg.database('crash_test')
    let sql = new SQL(url)
    await sql`CREATE TABLE kept (n integer)`
    await sql`INSERT INTO kept VALUES (1), (2)`
    await sql.close()
    await pg.kill()
    await pg.start()
    sql = new SQL(url)
    try {
      expect(await sql`SELECT n FROM kept ORDER BY n`).toEqual([{ n: 1 }, { n: 2 }])
    } finally {
      await sql.close()
    }
  }, 60_000)
})
