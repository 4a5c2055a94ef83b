// The bench's reader of a write-ahead log (scripts/wal-pages.ts), against logs real SQLite wrote.
import { Database } from 'bun:sqlite'
import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { commitsSince, fileSystemPages, pageOwners, walMark } from '../../scripts/wal-pages.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function database(): { db: Database; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'printhub-wal-pages-'))
  dirs.push(dir)
  const file = join(dir, 'test.db')
  const db = new Database(file, { create: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA wal_autocheckpoint = 0')
  db.run('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
  db.run('CREATE INDEX notes_by_body ON notes (body)')
  return { db, file }
}

test('each commit since a mark, with the pages it wrote and the b-trees they belong to', () => {
  const { db, file } = database()
  const mark = walMark(`${file}-wal`)
  const insert = db.query('INSERT INTO notes (body) VALUES (?)')
  insert.run('first')
  db.transaction(() => {
    insert.run('second')
    insert.run('third')
  })()
  const since = commitsSince(`${file}-wal`, mark)!
  expect(since.pageSize).toBe(4096)
  expect(since.commits).toHaveLength(2)
  const owner = pageOwners(file)
  for (const commit of since.commits) {
    expect(new Set(commit.pages.map(owner))).toEqual(new Set(['notes', 'notes_by_body']))
    // Two frames of a page and its 24-byte header: the commit's bytes fall in three of the file system's pages.
    expect(commit.end - commit.start).toBe(2 * (4096 + 24))
    expect(fileSystemPages(commit)).toBe(3)
  }
  expect(since.commits[1]!.start).toBe(since.commits[0]!.end)
  db.close()
})

test('a log started over by a checkpoint since the mark is told, not misread', () => {
  const { db, file } = database()
  db.run("INSERT INTO notes (body) VALUES ('before')")
  const mark = walMark(`${file}-wal`)
  expect(mark.frames).toBeGreaterThan(0)
  db.run('PRAGMA wal_checkpoint(RESTART)')
  db.run("INSERT INTO notes (body) VALUES ('after')")
  expect(commitsSince(`${file}-wal`, mark)).toBeUndefined()
  db.close()
})

test('page 1 and a missing log are named for what they are', () => {
  const { db, file } = database()
  db.run('PRAGMA wal_checkpoint(TRUNCATE)')
  expect(walMark(`${file}-wal`)).toEqual({ salt: '', frames: 0 })
  expect(pageOwners(file)(1)).toBe('page 1 (header)')
  db.close()
})
