// The group commit's batches and their redo log (sqlite/redo-batch.ts) on real SQLite files: a copy of the data
// directory taken the moment a change was said durable (what the kernel held: a `kill -9` then) opens as the database
// the writer saw, whatever the change was (every kind of column and table, a schema's trigger, a foreign key's cascade,
// a replaced row), in a batch still open, after batches committed, after the log went on in its other file; and the
// log's reader takes only whole, consecutive records of its own log, whatever the bytes.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase, snapshotDatabase } from '../../src/sqlite/database.ts'
import { BatchedCommit } from '../../src/sqlite/batched-commit.ts'
import { REDO_BATCH_MS } from '../../src/sqlite/redo-batch.ts'
import { GroupCommit } from '../../src/sqlite/group-commit.ts'
import { applyRedo, redoMark } from '../../src/sqlite/redo-changes.ts'
import { parseRedo, REDO_FILE_BYTES, REDO_GROWTH_BYTES, redoFiles } from '../../src/sqlite/redo-log.ts'
import { random as seededRandom } from '../../scripts/powercut-hub.ts'
import { waitFor } from '../support/wait.ts'

const SCHEMA = {
  file: 'redo.db',
  migrationsTable: 'schema_migrations',
  migrations: [
    {
      version: 1,
      description: 'every kind of table and column',
      sql: `
        CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, data BLOB, ratio REAL,
          big INTEGER) STRICT;
        CREATE TABLE pairs (k TEXT NOT NULL, hash BLOB NOT NULL, v TEXT, PRIMARY KEY (k, hash)) STRICT, WITHOUT ROWID;
        CREATE TABLE notes (item INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE, note TEXT);
        CREATE TABLE tallies (id INTEGER PRIMARY KEY, notes INTEGER NOT NULL) STRICT;
        CREATE TABLE links (item INTEGER REFERENCES items (id) DEFERRABLE INITIALLY DEFERRED);
        INSERT INTO tallies VALUES (1, 0);
        CREATE TRIGGER notes_counted AFTER INSERT ON notes BEGIN UPDATE tallies SET notes = notes + 1 WHERE id = 1; END;
        CREATE TRIGGER notes_uncounted AFTER DELETE ON notes
          BEGIN UPDATE tallies SET notes = notes - 1 WHERE id = 1; END;`,
    },
  ],
}

let dir: string
let db: Database
let commits: GroupCommit
let errors: unknown[]

function dump(of: Database): string {
  return JSON.stringify([
    of.query('SELECT id, name, hex(data) AS data, ratio, CAST(big AS TEXT) AS big FROM items ORDER BY id').all(),
    of.query('SELECT k, hex(hash) AS hash, v FROM pairs ORDER BY k, hash').all(),
    of.query('SELECT rowid, * FROM notes ORDER BY rowid').all(),
    of.query('SELECT * FROM tallies').all(),
    of.query("SELECT seq FROM sqlite_sequence WHERE name = 'items'").all(),
  ])
}

/** The data directory as the kernel holds it now, copied, opened as the next start would: what it holds. */
function afterCrash(): string {
  const copy = mkdtempSync(join(tmpdir(), 'printhub-redo-crash-'))
  for (const name of readdirSync(dir)) cpSync(join(dir, name), join(copy, name))
  const opened = openDatabase(copy, false, SCHEMA)
  try {
    expect(opened.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
    expect(opened.query('PRAGMA foreign_key_check').all()).toEqual([])
    return dump(opened)
  } finally {
    opened.close(true)
    rmSync(copy, { recursive: true, force: true })
  }
}

function open(batchMs: number): void {
  db = openDatabase(dir, true, SCHEMA)
  // Never committed for being quiet unless a batch is short: what a test writes stays in the batch it means.
  commits = new BatchedCommit(db, (error) => errors.push(error), { batchMs, idleMs: batchMs })
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'printhub-redo-'))
  errors = []
})

afterEach(() => {
  commits.close()
  db.close(true)
  rmSync(dir, { recursive: true, force: true })
})

/** One random change of every kind, as the hub's code makes them. */
function change(random: () => number, step: number): void {
  const pick = Math.floor(random() * 8)
  const someItem = () =>
    db.query<{ id: number }, []>('SELECT id FROM items ORDER BY random() LIMIT 1').get()?.id ?? null
  if (pick <= 1) {
    const bytes = new Uint8Array(Math.floor(random() * 40)).map(() => Math.floor(random() * 256))
    db.run('INSERT INTO items (name, data, ratio, big) VALUES (?, ?, ?, ?)', [
      `item ${step} é 😀 "quoted" \\ ${'{}'}`,
      random() < 0.2 ? null : bytes,
      random() < 0.2 ? null : random() * 1e6 - 5e5,
      random() < 0.5 ? 2n ** 62n + BigInt(step) : -step,
    ])
  } else if (pick === 2) {
    const item = someItem()
    if (item !== null) db.run("UPDATE items SET ratio = ?, data = x'00ff' WHERE id = ?", [step / 7, item])
  } else if (pick === 3) {
    const item = someItem()
    if (item !== null) db.run('DELETE FROM items WHERE id = ?', [item])
  } else if (pick === 4) {
    const item = someItem()
    if (item !== null)
      db.run('INSERT INTO notes (item, note) VALUES (?, ?)', [item, random() < 0.3 ? null : `n${step}`])
  } else if (pick === 5) {
    db.run(`INSERT INTO pairs (k, hash, v) VALUES (?, ?, ?) ON CONFLICT (k, hash) DO UPDATE SET v = excluded.v`, [
      `k${step % 5}`,
      new Uint8Array([step % 3, 0, 255]),
      `v${step}`,
    ])
  } else if (pick === 6) {
    db.run('DELETE FROM pairs WHERE k = ?', [`k${step % 5}`])
  } else {
    db.run('INSERT OR REPLACE INTO items (name, ratio) VALUES (?, ?)', [`replaced ${step % 4}`, step])
  }
}

describe('batches made durable by the redo log', () => {
  for (const [title, batchMs] of [
    ['within one batch', 60_000],
    ['across batches committed and the log gone on in its other file', 15],
  ] as const) {
    test(`a crash the moment a change was said durable loses nothing of it, ${title}`, async () => {
      open(batchMs)
      const random = seededRandom(batchMs)
      for (let round = 0; round < 40; round++) {
        const changes = 1 + Math.floor(random() * 6)
        for (let i = 0; i < changes; i++) {
          try {
            commits.write(() => change(random, round * 10 + i))
          } catch {
            // A change that breaks a constraint undoes only itself, as in the hub.
          }
        }
        await commits.durable()
        expect(afterCrash()).toBe(dump(db))
        if (random() < 0.3) await Bun.sleep(batchMs < 100 ? batchMs * 2 : 0)
      }
      expect(errors).toEqual([])
      // Both files were written, in turn, when batches were committed meanwhile; one alone otherwise.
      const { logId } = redoMark(db)
      const written = redoFiles(join(dir, SCHEMA.file)).filter(
        (file) => parseRedo(new Uint8Array(readFileSync(file)), logId).length > 0,
      )
      expect(written).toHaveLength(batchMs < 100 ? 2 : 1)
    })
  }

  test('the database names its log and the last record it holds; a clean close leaves nothing to apply', async () => {
    open(60_000)
    commits.write(() => change(seededRandom(1), 1))
    await commits.durable()
    const { logId } = redoMark(db)
    expect(logId).toBeGreaterThan(0)
    // In the open batch: the database file holds none of the log's records yet.
    const reader = new Database(join(dir, SCHEMA.file), { readonly: true })
    expect(redoMark(reader)).toEqual({ logId, seq: 0 })
    commits.close()
    expect(redoMark(reader).seq).toBeGreaterThan(0)
    reader.close()
    db.close(true)
    db = openDatabase(dir, false, SCHEMA)
    commits = new GroupCommit(db, (error) => errors.push(error))
    expect(redoMark(db).logId).toBe(logId)
  })

  test('a file of the log grows by zeros as its records need, and a crash after keeps what it holds', async () => {
    open(60_000)
    const file = redoFiles(join(dir, SCHEMA.file))[0]
    expect(statSync(file).size).toBe(REDO_GROWTH_BYTES)
    for (let i = 0; i < 300; i++) {
      commits.write(() =>
        db.run('INSERT INTO items (name, data) VALUES (?, ?)', [`grown ${i}`, new Uint8Array(5_000).fill(i % 256)]),
      )
      await commits.durable()
    }
    expect(statSync(file).size).toBeGreaterThan(2 * REDO_GROWTH_BYTES)
    expect(statSync(file).size % REDO_GROWTH_BYTES).toBe(0)
    expect(afterCrash()).toBe(dump(db))
  })

  test('a batch gone quiet is committed a moment after its last record: another connection reads it then', async () => {
    db = openDatabase(dir, true, SCHEMA)
    commits = new BatchedCommit(db, (error) => errors.push(error), { batchMs: 60_000 })
    const reader = new Database(join(dir, SCHEMA.file), { readonly: true })
    const seen = () => reader.query<{ n: number }, []>("SELECT count(*) AS n FROM items WHERE name = 'quiet'").get()!.n
    commits.write(() => db.run("INSERT INTO items (name) VALUES ('quiet')"))
    await commits.durable()
    expect(seen()).toBe(0)
    await waitFor(() => seen() === 1 || undefined, 1_000)
    reader.close()
  })

  test('a change too large for the log is committed to the database itself', async () => {
    open(60_000)
    // Its record (in hex) would be larger than a file of the log may grow.
    const large = new Uint8Array(REDO_FILE_BYTES / 2).fill(7)
    commits.write(() => db.run('INSERT INTO items (name, data) VALUES (?, ?)', ['large', large]))
    await commits.durable()
    const reader = new Database(join(dir, SCHEMA.file), { readonly: true })
    expect(reader.query("SELECT length(data) AS n FROM items WHERE name = 'large'").get()).toEqual({
      n: REDO_FILE_BYTES / 2,
    })
    reader.close()
    expect(afterCrash()).toBe(dump(db))
  })

  test('a batch whose commit fails (a full disk): its records applied again, the next commit holds them', async () => {
    open(60_000)
    commits.write(() => db.run("INSERT INTO items (name) VALUES ('one')"))
    commits.write(() => db.run("INSERT INTO items (name) VALUES ('two')"))
    await commits.durable()
    // A reference checked at the commit makes the COMMIT itself fail, as a full disk does: SQLite rolls the batch back.
    commits.write(() => db.run('INSERT INTO links (item) VALUES (999)'))
    expect(() => commits.commit()).toThrow(/FOREIGN KEY/)
    expect(db.query('SELECT name FROM items ORDER BY id').all()).toEqual([{ name: 'one' }, { name: 'two' }])
    commits.write(() => db.run("INSERT INTO items (name) VALUES ('three')"))
    await commits.durable()
    expect(afterCrash()).toBe(dump(db))
    commits.commit()
    const reader = new Database(join(dir, SCHEMA.file), { readonly: true })
    expect(reader.query('SELECT name FROM items ORDER BY id').all()).toEqual([
      { name: 'one' },
      { name: 'two' },
      { name: 'three' },
    ])
    expect(reader.query('SELECT count(*) AS n FROM links').get()).toEqual({ n: 0 })
    reader.close()
  })

  test('a snapshot (a backup) holds what the open batch made durable, and names no log', async () => {
    open(60_000)
    const random = seededRandom(7)
    for (let i = 0; i < 30; i++) commits.write(() => change(random, i))
    await commits.durable()
    const target = join(dir, 'snapshot.db')
    snapshotDatabase(join(dir, SCHEMA.file), target)
    const copy = new Database(target, { readonly: true })
    expect(dump(copy)).toBe(dump(db))
    expect(redoMark(copy)).toEqual({ logId: 0, seq: 0 })
    copy.close()
  })
})

test('another process that writes gets the lock within a batch or so, while the hub writes without pause', async () => {
  open(REDO_BATCH_MS)
  let writing = true
  let step = 0
  const writer = (async () => {
    while (writing) {
      commits.write(() => db.run('INSERT INTO items (name) VALUES (?)', [`busy ${step++}`]))
      await commits.durable()
      await Bun.sleep(1)
    }
  })()
  // As the CLI would: its own connection, SQLite's busy handler waiting up to 5 s for the write lock.
  const other = Bun.spawn(
    [
      process.execPath,
      '-e',
      `const { Database } = require('bun:sqlite')
       const db = new Database(${JSON.stringify(join(dir, SCHEMA.file))})
       db.run('PRAGMA busy_timeout = 5000')
       const started = performance.now()
       db.run("INSERT INTO items (name) VALUES ('from another process')")
       console.log(Math.round(performance.now() - started))
       db.close()`,
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  const [out, err, code] = await Promise.all([
    new Response(other.stdout).text(),
    new Response(other.stderr).text(),
    other.exited,
  ])
  writing = false
  await writer
  expect(err).toBe('')
  expect(code).toBe(0)
  expect(Number(out)).toBeLessThan(REDO_BATCH_MS + 1000)
  expect(step).toBeGreaterThan(100)
  // The hub sees it at its next transaction.
  commits.commit()
  commits.write(() => db.run("INSERT INTO items (name) VALUES ('after')"))
  expect(db.query("SELECT count(*) AS n FROM items WHERE name = 'from another process'").get()).toEqual({ n: 1 })
}, 20_000)

test('another process opens the database beside the hub at once, neither waiting nor taking its records', async () => {
  open(60_000)
  commits.write(() => db.run("INSERT INTO items (name) VALUES ('in the batch')"))
  await commits.durable()
  const other = Bun.spawn(
    [
      process.execPath,
      '-e',
      `const { openDatabase } = require(${JSON.stringify(join(import.meta.dir, '../../src/sqlite/database.ts'))})
       const started = performance.now()
       const db = openDatabase(${JSON.stringify(dir)}, false, ${JSON.stringify(SCHEMA)})
       const n = db.query("SELECT count(*) AS n FROM items WHERE name = 'in the batch'").get().n
       console.log(JSON.stringify({ ms: Math.round(performance.now() - started), n }))
       db.close(true)`,
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  const [out, err, code] = await Promise.all([
    new Response(other.stdout).text(),
    new Response(other.stderr).text(),
    other.exited,
  ])
  expect(err).toBe('')
  expect(code).toBe(0)
  const { ms, n } = JSON.parse(out) as { ms: number; n: number }
  // The hub's batch is open: the other process reads what the last batch committed, and leaves the log to the hub.
  expect(n).toBe(0)
  expect(ms).toBeLessThan(1_000)
  expect(redoMark(db).seq).toBe(0)
  commits.commit()
  expect(redoMark(db).seq).toBeGreaterThan(0)
})

test('an update recorded before a column was added keeps that column; blobs, nulls, numbers go back as written', () => {
  open(60_000)
  const plain = new Database(':memory:', { strict: true })
  plain.run('CREATE TABLE t (id INTEGER PRIMARY KEY, a, b, c)')
  plain.run("INSERT INTO t VALUES (1, 'x', 'y', 'kept')")
  applyRedo(plain, ['[["t","u","1",[{},"z",null]]]', '[["t","i",null,[2,["00ff"],12345678901234567,"n"]]]'])
  expect(plain.query('SELECT id, a, b, c, typeof(a) AS ta FROM t ORDER BY id').all()).toEqual([
    { id: 1, a: 'z', b: null, c: 'kept', ta: 'text' },
    { id: 2, a: new Uint8Array([0, 255]), b: 12345678901234567, c: 'n', ta: 'blob' },
  ])
  plain.close(true)
})

describe("the redo log's reader", () => {
  test('takes whole, consecutive records of its own log only, and never throws, whatever the bytes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'printhub-redo-'))
    open(60_000)
    const random = seededRandom(2026)
    for (let i = 0; i < 60; i++) {
      commits.write(() => change(random, i))
      await commits.durable()
    }
    const { logId } = redoMark(db)
    const file = readFileSync(redoFiles(join(dir, SCHEMA.file))[0])
    const whole = parseRedo(new Uint8Array(file), logId)
    // A change that changed no row (an update of no item) makes no record.
    expect(whole.length).toBeGreaterThan(40)
    expect(whole.map((record) => record.seq)).toEqual(whole.map((_, i) => i + 1))
    expect(parseRedo(new Uint8Array(file), logId + 1)).toEqual([])
    const end = whole.reduce((sum, record) => sum + 24 + Buffer.byteLength(record.payload), 0)
    for (let n = 0; n < 3000; n++) {
      const bytes = new Uint8Array(file.subarray(0, end + 64))
      const kind = n % 3
      if (kind === 0) {
        const at = Math.floor(random() * end)
        bytes[at] = bytes[at]! ^ (1 + Math.floor(random() * 255))
      } else if (kind === 1) bytes.fill(Math.floor(random() * 256), Math.floor(random() * end))
      else for (let i = 0; i < 8; i++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256)
      const taken = parseRedo(bytes, logId)
      // What it takes is a start of the records as written, each whole.
      expect(taken).toEqual(whole.slice(0, taken.length))
    }
    expect(parseRedo(new Uint8Array(0), logId)).toEqual([])
    expect(parseRedo(new Uint8Array(4096).fill(0xff), logId)).toEqual([])
  })
})
