// The group commit on a real SQLite file, watched from a second connection (another process would
// see the same): what is committed when, and what a failure takes with it.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { fstatSync, fsync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GroupCommit, MAX_WRITES_PER_COMMIT, UNAWAITED_COMMIT_MS } from '../../src/sqlite/group-commit.ts'

let dir: string
let db: Database
let observer: Database
let commits: GroupCommit
let errors: unknown[]

const insert = (value: number) => db.run('INSERT INTO items (value) VALUES (?)', [value])
const seen = (): number[] =>
  observer
    .query<{ value: number }, []>('SELECT value FROM items ORDER BY value')
    .all()
    .map((r) => r.value)

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'printhub-group-commit-'))
  db = new Database(join(dir, 'test.db'), { create: true, strict: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA foreign_keys = ON')
  db.run('CREATE TABLE items (value INTEGER PRIMARY KEY)')
  // A deferred reference is checked at COMMIT: the way to make a commit itself fail.
  db.run('CREATE TABLE links (item INTEGER REFERENCES items (value) DEFERRABLE INITIALLY DEFERRED)')
  observer = new Database(join(dir, 'test.db'), { readonly: true })
  errors = []
  commits = new GroupCommit(db, (error) => errors.push(error))
})

afterEach(() => {
  observer.close()
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('group commit', () => {
  test('changes of one turn share one commit; durable() settles once it is done', async () => {
    const before = commits.stats.commits
    for (let i = 1; i <= 10; i++) commits.write(() => insert(i))
    // The writer sees its changes at once; no one else does yet.
    expect(db.query('SELECT count(*) AS n FROM items').get()).toEqual({ n: 10 })
    expect(seen()).toEqual([])
    await commits.durable()
    expect(seen()).toHaveLength(10)
    expect(commits.stats.commits - before).toBe(1)
  })

  test('durable() with nothing open settles at once', async () => {
    await commits.durable()
    expect(commits.stats.commits).toBe(0)
  })

  test('a change that throws undoes only itself', async () => {
    commits.write(() => insert(1))
    expect(() =>
      commits.write(() => {
        insert(2)
        insert(1)
      }),
    ).toThrow(/UNIQUE/)
    commits.write(() => insert(3))
    await commits.durable()
    expect(seen()).toEqual([1, 3])
  })

  test('a change is committed at the end of its turn, even when nobody waits for it', async () => {
    commits.write(() => insert(1))
    expect(seen()).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    expect(seen()).toEqual([1])
  })

  test('a deferred change rides along with the next commit, or is committed within UNAWAITED_COMMIT_MS', async () => {
    commits.defer(() => insert(1))
    await new Promise((resolve) => setImmediate(resolve))
    expect(seen()).toEqual([])
    commits.write(() => insert(2))
    await commits.durable()
    expect(seen()).toEqual([1, 2])

    commits.defer(() => insert(3))
    const started = performance.now()
    while (seen().length === 2) await Bun.sleep(1)
    expect(performance.now() - started).toBeGreaterThanOrEqual(UNAWAITED_COMMIT_MS - 2)
    expect(seen()).toEqual([1, 2, 3])
    expect(commits.stats.commits).toBe(2)
  })

  test(
    'a turn whose commit is postponed: its changes ride along with the next ' +
      'commit, or are committed within UNAWAITED_COMMIT_MS; a waiter is never ' +
      'kept waiting',
    async () => {
      // Nothing open: nothing to postpone, and the next turn's change commits at its end.
      commits.postponeTurnCommit()
      await turn()
      commits.write(() => insert(1))
      await turn()
      expect(seen()).toEqual([1])

      // Postponed: the turn ends without a commit; the next turn with a change commits both.
      commits.write(() => insert(2))
      commits.postponeTurnCommit()
      await turn()
      await turn()
      expect(seen()).toEqual([1])
      commits.write(() => insert(3))
      await turn()
      expect(seen()).toEqual([1, 2, 3])

      // Postponed, and then somebody waits in the same turn: committed at its end as usual.
      commits.write(() => insert(4))
      commits.postponeTurnCommit()
      const waited = commits.durable()
      await turn()
      expect(seen()).toEqual([1, 2, 3, 4])
      await waited

      // Postponed, and nothing follows: committed within UNAWAITED_COMMIT_MS.
      commits.write(() => insert(5))
      commits.postponeTurnCommit()
      const started = performance.now()
      while (seen().length === 4) await Bun.sleep(1)
      expect(performance.now() - started).toBeGreaterThanOrEqual(UNAWAITED_COMMIT_MS - 2)
      expect(seen()).toEqual([1, 2, 3, 4, 5])
      expect(commits.stats.commits).toBe(4)
    },
  )

  test(
    'a postponement taken back (commitTurn): the open changes are committed ' + "at the turn's end after all",
    async () => {
      // A printer's job before the last one postponed its record; the last one's record comes before
      // that turn's end has run, and nothing follows to carry either.
      commits.write(() => insert(1))
      commits.postponeTurnCommit()
      commits.write(() => insert(2))
      commits.commitTurn()
      await turn()
      expect(seen()).toEqual([1, 2])
      expect(commits.stats.commits).toBe(1)
      // With nothing open it only commits what a later change opens, at that turn's end.
      commits.commitTurn()
      await turn()
      expect(commits.stats.commits).toBe(1)
    },
  )

  test('a turn with more changes than one transaction allows is split, and nothing is lost', async () => {
    for (let i = 1; i <= 2 * MAX_WRITES_PER_COMMIT + 10; i++) commits.write(() => insert(i))
    // The full transactions are already committed.
    expect(seen()).toHaveLength(2 * MAX_WRITES_PER_COMMIT)
    await commits.durable()
    expect(seen()).toHaveLength(2 * MAX_WRITES_PER_COMMIT + 10)
    expect(commits.stats.commits).toBe(3)
  })

  test('a failed commit rejects its waiters, loses only its own changes, and the next ones commit', async () => {
    commits.write(() => insert(1))
    await commits.durable()
    commits.write(() => insert(2))
    commits.write(() => db.run('INSERT INTO links (item) VALUES (99)'))
    const waiting = commits.durable()
    await expect(waiting).rejects.toThrow(/FOREIGN KEY/)
    expect(errors).toHaveLength(1)
    expect(db.inTransaction).toBe(false)
    expect(seen()).toEqual([1])
    commits.write(() => insert(3))
    await commits.durable()
    expect(seen()).toEqual([1, 3])
  })

  test('commit() commits at once and throws what failed', () => {
    commits.write(() => insert(1))
    commits.commit()
    expect(seen()).toEqual([1])
    commits.write(() => db.run('INSERT INTO links (item) VALUES (99)'))
    expect(() => commits.commit()).toThrow(/FOREIGN KEY/)
    expect(db.inTransaction).toBe(false)
  })

  test(
    'a full disk that rolls the whole transaction back: every waiter hears ' + 'it, and the next change starts afresh',
    async () => {
      commits.write(() => insert(1))
      commits.write(() => insert(2))
      const waiting = commits.durable()
      // SQLite answers SQLITE_FULL when no page can be added, and then rolls the whole transaction back.
      db.run(`PRAGMA max_page_count = ${db.query<{ page_count: number }, []>('PRAGMA page_count').get()!.page_count}`)
      const big = 'x'.repeat(100_000)
      expect(() => commits.write(() => db.run('INSERT INTO links (item) VALUES (?)', [big]))).toThrow(/full/)
      expect(db.inTransaction).toBe(false)
      await expect(waiting).rejects.toThrow(/full/)
      expect(errors).toHaveLength(1)
      expect(seen()).toEqual([])
      db.run('PRAGMA max_page_count = 4294967294')
      commits.write(() => insert(3))
      await commits.durable()
      expect(seen()).toEqual([3])
    },
  )
})

describe('the flush of a group commit, off the event loop', () => {
  /** A flush that finishes when the test says so (the real fsync(2) runs after it), recording each. */
  function heldFlushes() {
    const held: (() => void)[] = []
    const failing: Error[] = []
    const fsync = (fd: number, done: (error: Error | null) => void) => {
      held.push(() => {
        const error = failing.shift()
        if (error) return done(error)
        import('node:fs').then(({ fsync: real }) => real(fd, done), done)
      })
    }
    return { held, failing, fsync, release: () => held.splice(0).forEach((go) => go()) }
  }

  test(
    'a transaction commits without a flush of its own; durable() waits for ' + 'the flush of the log that follows',
    async () => {
      const flushes = heldFlushes()
      commits = new GroupCommit(db, (error) => errors.push(error), flushes.fsync)
      commits.write(() => insert(1))
      // Inside the group's transaction SQLite does not flush at commit (NORMAL); outside, the connection's
      // FULL is back.
      expect(db.query<{ synchronous: number }, []>('PRAGMA synchronous').get()!.synchronous).toBe(1)
      let settled = false
      const durable = commits.durable().then(() => (settled = true))
      let logged = false
      commits.afterCommit(() => (logged = true))
      await turn()
      // Committed (another connection sees it), not yet said to be on disk.
      expect(seen()).toEqual([1])
      expect(db.query<{ synchronous: number }, []>('PRAGMA synchronous').get()!.synchronous).toBe(2)
      expect(flushes.held).toHaveLength(1)
      expect(settled).toBe(false)
      expect(logged).toBe(false)
      // Asked again with nothing open: it waits for the same flush.
      let again = false
      const later = commits.durable().then(() => (again = true))
      flushes.release()
      await durable
      await later
      expect([settled, again, logged]).toEqual([true, true, true])
      expect(errors).toEqual([])
    },
  )

  test('commits made while a flush runs share the next one', async () => {
    const flushes = heldFlushes()
    commits = new GroupCommit(db, (error) => errors.push(error), flushes.fsync)
    commits.write(() => insert(1))
    const first = commits.durable()
    await turn()
    commits.write(() => insert(2))
    const second = commits.durable()
    await turn()
    commits.write(() => insert(3))
    const third = commits.durable()
    await turn()
    // One flush runs; the two commits after it wait, together, for the next.
    expect(flushes.held).toHaveLength(1)
    flushes.release()
    await first
    await waitUntil(() => flushes.held.length === 1)
    flushes.release()
    await Promise.all([second, third])
    expect(seen()).toEqual([1, 2, 3])
  })

  test(
    'a flush that fails rejects whoever waited for its commits and is ' + 'reported; the next one flushes again',
    async () => {
      const flushes = heldFlushes()
      commits = new GroupCommit(db, (error) => errors.push(error), flushes.fsync)
      flushes.failing.push(new Error('EIO: i/o error, fsync'))
      commits.write(() => insert(1))
      let logged = false
      commits.afterCommit(() => (logged = true))
      const failed = commits.durable()
      await turn()
      flushes.release()
      await expect(failed).rejects.toThrow('EIO')
      expect(logged).toBe(false)
      expect(errors.map(String)).toEqual(['Error: EIO: i/o error, fsync'])
      commits.write(() => insert(2))
      const next = commits.durable()
      await turn()
      flushes.release()
      await next
    },
  )

  test('an urgent commit is flushed at once, beside the flush running; durable() after it waits for both', async () => {
    const flushes = heldFlushes()
    commits = new GroupCommit(db, (error) => errors.push(error), flushes.fsync)
    commits.write(() => insert(1))
    let firstDone = false
    const first = commits.durable().then(() => (firstDone = true))
    await turn()
    expect(flushes.held).toHaveLength(1)
    // The intent to print: its flush does not wait for the one running.
    commits.write(() => insert(2))
    let urgentDone = false
    const urgent = commits.urgentlyDurable().then(() => (urgentDone = true))
    await turn()
    expect(flushes.held).toHaveLength(2)
    // Asked now, with both running and nothing open: settled only once both have ended.
    let allDone = false
    const all = commits.durable().then(() => (allDone = true))
    flushes.held.pop()!()
    await urgent
    expect([urgentDone, firstDone, allDone]).toEqual([true, false, false])
    flushes.release()
    await Promise.all([first, all])
    expect([firstDone, allDone]).toEqual([true, true])
    // A commit after them is not urgent: one flush, as before.
    commits.write(() => insert(3))
    const third = commits.durable()
    await turn()
    expect(flushes.held).toHaveLength(1)
    flushes.release()
    await third
    expect(seen()).toEqual([1, 2, 3])
    expect(errors).toEqual([])
  })

  test('commit() flushes on the spot, also commits whose flush is still waiting', async () => {
    const flushes = heldFlushes()
    commits = new GroupCommit(db, (error) => errors.push(error), flushes.fsync)
    commits.write(() => insert(1))
    const durable = commits.durable()
    await turn()
    commits.write(() => insert(2))
    const queued = commits.durable()
    await turn()
    expect(flushes.held).toHaveLength(1)
    // The third commit and the one queued behind the running flush are on disk when commit() returns.
    commits.write(() => insert(3))
    commits.commit()
    await queued
    flushes.release()
    await durable
    expect(seen()).toEqual([1, 2, 3])
  })
})

test('a write-ahead log made anew (its journal mode changed) is the file flushed from then on', async () => {
  const wal = join(dir, 'test.db-wal')
  // Each flush's file: its inode, and whether it is still in a folder (a log SQLite deleted is not).
  const flushed: { ino: number; nlink: number }[] = []
  commits = new GroupCommit(
    db,
    (error) => errors.push(error),
    (fd, done) => {
      const { ino, nlink } = fstatSync(fd)
      flushed.push({ ino, nlink })
      fsync(fd, done)
    },
  )
  commits.write(() => insert(1))
  await commits.durable()
  expect(flushed).toEqual([{ ino: statSync(wal).ino, nlink: 1 }])
  // The change of mode needs the file alone; the old log, deleted, stays open here until logReplaced.
  observer.close()
  db.run('PRAGMA journal_mode = DELETE')
  db.run('PRAGMA journal_mode = WAL')
  commits.logReplaced()
  commits.write(() => insert(2))
  await commits.durable()
  expect(flushed.at(-1)).toEqual({ ino: statSync(wal).ino, nlink: 1 })
  observer = new Database(join(dir, 'test.db'), { readonly: true })
  expect(seen()).toEqual([1, 2])
})

/** The end of this turn of the event loop: the group commits what the turn changed. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let turns = 0; !condition(); turns++) {
    if (turns > 1000) throw new Error('the condition never held')
    await turn()
  }
}
