// A job's document counts against its project's byte limits from when it is stored until the job
// ends, and against the history budget until retention deletes it. The triggers that keep those
// tallies take a document's size from its record's header: a job ends without its document being
// read. Shown on a real database whose document pages are made unreadable on purpose.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { closeSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { Store } from '../../src/store/store.ts'
import { driveJob, firstStartedStore, type TestStore } from '../support/fixtures.ts'

let world: TestStore
beforeEach(async () => {
  world = await firstStartedStore()
})
afterEach(() => world.close())

const tallies = (store: Store) =>
  store.db
    .query<{ open: number; finished: number }, [string]>(
      'SELECT open_bytes AS open, finished_bytes AS finished FROM projects WHERE id = ?',
    )
    .get(world.projectId)!

/** Points every overflow page of the stored documents at a page past the end of the file: reading a document fails. */
function breakDocumentPages(file: string): number {
  const db = new Database(file)
  const pageSize = db.query<{ page_size: number }, []>('PRAGMA page_size').get()!.page_size
  db.run('PRAGMA wal_checkpoint(TRUNCATE)')
  const pages = db
    .query<{ pageno: number }, []>("SELECT pageno FROM dbstat WHERE name = 'job_documents' AND pagetype = 'overflow'")
    .all()
  db.close()
  const fd = openSync(file, 'r+')
  try {
    for (const { pageno } of pages)
      writeSync(fd, new Uint8Array([0xff, 0xff, 0xff, 0xff]), 0, 4, (pageno - 1) * pageSize)
  } finally {
    closeSync(fd)
  }
  return pages.length
}

test("a job ends without its document being read: the byte tallies take the document's size from its record", () => {
  // About 160 KB of text: the document lives mostly in overflow pages.
  const document = {
    width: 80 as const,
    sections: Array.from({ length: 10 }, (_, i) => ({ type: 'text' as const, value: `${i}`.repeat(16_384) })),
  }
  const created = world.store.jobs.create({
    projectId: world.projectId,
    printerId: world.printerId,
    idempotencyKey: 'big',
    document,
    metadata: null,
    expiresInMs: 60_000,
    maxAttempts: 5,
  })
  if (created.kind !== 'created') throw new Error(created.kind)
  const printing = driveJob(world.store, created.job.id, 'PRINTING')
  world.store.commits.commit()
  const bytes = Buffer.byteLength(
    world.store.db.query<{ document: string }, []>('SELECT document FROM job_documents').get()!.document,
  )
  expect(bytes).toBeGreaterThan(160_000)
  expect(tallies(world.store)).toEqual({ open: bytes, finished: 0 })
  world.store.close()

  const file = join(world.dir, DATABASE_FILE)
  expect(breakDocumentPages(file)).toBeGreaterThan(30)
  // The break is real: reading the document's bytes (as the tallies once did) fails now.
  const raw = new Database(file, { readonly: true })
  expect(() => raw.query('SELECT length(CAST(document AS BLOB)) FROM job_documents').all()).toThrow(/malformed/)
  raw.close()

  const store = Store.open({ dataDir: world.dir, create: false, maxOpenJobsPerProject: 10_000 })
  try {
    const completed = store.jobStates.markCompleted(printing.id, printing.attemptCount, Date.now())
    store.commits.commit()
    expect(completed?.state).toBe('COMPLETED')
    expect(tallies(store)).toEqual({ open: 0, finished: bytes })
  } finally {
    store.close()
  }
})
