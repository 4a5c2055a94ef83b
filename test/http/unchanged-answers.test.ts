// Answers kept while the store is unchanged (src/http/unchanged-answers.ts), over the change stamp
// of a real SQLite file (src/sqlite/change-stamp.ts): every way a row can change moves the stamp,
// and nothing is kept while a change is open.
import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { changeStamp } from '../../src/sqlite/change-stamp.ts'
import { UnchangedAnswers } from '../../src/http/unchanged-answers.ts'
import { tempDir } from '../support/hub.ts'

const dirs: string[] = []
const open: Database[] = []
afterEach(() => {
  for (const db of open.splice(0)) db.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Two connections to one WAL file, as the hub and the CLI have. */
function twoConnections(): [Database, Database] {
  const dir = tempDir()
  dirs.push(dir)
  const file = join(dir, 'answers.db')
  const hub = new Database(file, { create: true, strict: true })
  hub.run('PRAGMA journal_mode = WAL')
  hub.run('CREATE TABLE rows (id INTEGER PRIMARY KEY, value TEXT NOT NULL)')
  hub.run('CREATE TABLE parent (id INTEGER PRIMARY KEY)')
  hub.run('CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id) ON DELETE CASCADE)')
  hub.run('PRAGMA foreign_keys = ON')
  const other = new Database(file, { strict: true })
  open.push(hub, other)
  return [hub, other]
}

describe('the change stamp', () => {
  test('moves with every change made by this connection or committed by another, and only then', () => {
    const [db, other] = twoConnections()
    const seen = new Set<string>()
    const expectMoved = () => {
      const stamp = changeStamp(db)!
      expect(seen.has(stamp)).toBe(false)
      seen.add(stamp)
      // Reading changes nothing.
      db.query('SELECT count(*) FROM rows').get()
      expect(changeStamp(db)).toBe(stamp)
    }
    expectMoved()
    db.run("INSERT INTO rows (value) VALUES ('a')")
    expectMoved()
    db.run("UPDATE rows SET value = 'b'")
    expectMoved()
    other.run("INSERT INTO rows (value) VALUES ('c')")
    expectMoved()
    other.run("UPDATE rows SET value = 'd' WHERE value = 'c'")
    expectMoved()
    // A row deleted by a foreign key's action.
    db.run('INSERT INTO parent (id) VALUES (1)')
    db.run('INSERT INTO child (parent) VALUES (1)')
    expectMoved()
    db.run('DELETE FROM parent')
    expect(db.query('SELECT count(*) AS n FROM child').get()).toEqual({ n: 0 })
    expectMoved()
    db.run('DELETE FROM rows')
    expectMoved()
  })

  test('is undefined while a transaction is open, and has moved once a rolled-back change is undone', () => {
    const [db] = twoConnections()
    const before = changeStamp(db)
    db.run('BEGIN')
    db.run("INSERT INTO rows (value) VALUES ('undone')")
    expect(changeStamp(db)).toBeUndefined()
    db.run('ROLLBACK')
    expect(db.query('SELECT count(*) AS n FROM rows').get()).toEqual({ n: 0 })
    expect(changeStamp(db)).not.toBe(before)
  })
})

describe('unchanged answers', () => {
  const read = async (response: Response | Promise<Response>) => (await response).text()

  test('made once under a stamp, made again once it moved; each key its own answer', async () => {
    const answers = new UnchangedAnswers()
    let made = 0
    const make = (what: string) => () => ({ what, made: ++made })
    expect(JSON.parse(await read(answers.json('1.1', 'a', make('a'))))).toEqual({ what: 'a', made: 1 })
    expect(JSON.parse(await read(answers.json('1.1', 'a', make('a'))))).toEqual({ what: 'a', made: 1 })
    expect(JSON.parse(await read(answers.json('1.1', 'b', make('b'))))).toEqual({ what: 'b', made: 2 })
    expect(JSON.parse(await read(answers.json('2.1', 'a', make('a'))))).toEqual({ what: 'a', made: 3 })
    // The stamp moved: what was kept under the old one is gone, b too.
    expect(JSON.parse(await read(answers.json('2.1', 'b', make('b'))))).toEqual({ what: 'b', made: 4 })
    expect(made).toBe(4)
  })

  test('the kept bytes answer any number of times, as JSON in UTF-8', async () => {
    const answers = new UnchangedAnswers()
    const value = { text: 'Crème brûlée, Zoë · 12 €' }
    const responses = await Promise.all(Array.from({ length: 5 }, () => answers.json('7.0', 'k', () => value)))
    for (const response of responses) {
      expect(response.headers.get('content-type')).toBe('application/json;charset=utf-8')
      expect(await response.json()).toEqual(value)
    }
  })

  test('nothing is kept while a change is open', async () => {
    const answers = new UnchangedAnswers()
    let made = 0
    for (let i = 0; i < 3; i++) await read(answers.json(undefined, 'k', () => ++made))
    expect(made).toBe(3)
    // Nor is what was kept before used: the next settled stamp makes it again.
    await read(answers.json('3.3', 'k', () => ++made))
    await read(answers.json(undefined, 'k', () => ++made))
    await read(answers.json('3.3', 'k', () => ++made))
    expect(made).toBe(6)
  })

  test('bounded in answers and bytes: the oldest go first, one larger than the budget is not kept', async () => {
    const answers = new UnchangedAnswers(2, 100)
    let made = 0
    const ask = (key: string, text = key) => read(answers.json('1.0', key, () => (made++, text)))
    await ask('a')
    await ask('b')
    await ask('c')
    expect(made).toBe(3)
    await ask('b')
    await ask('c')
    expect(made).toBe(3)
    await ask('a')
    expect(made).toBe(4)
    const large = 'x'.repeat(200)
    await ask('large', large)
    await ask('large', large)
    expect(made).toBe(6)
  })
})
