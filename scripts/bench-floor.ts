// What the bench's submission and delivery yardsticks share: a copy of the hub's database opened
// with the hub's settings (WAL; `synchronous = NORMAL`, so a commit is flushed only where a
// yardstick flushes it itself), and a job inserted as the hub inserts one (store/jobs.ts: the same
// statements, indexes and triggers).
import { Database } from 'bun:sqlite'
import { EXPIRES_IN_MS, MAX_ATTEMPTS } from '../src/protocol/limits.ts'
import { newId } from '../src/storage/ids.ts'
import { JOB_INSERT_SQL, type JobRow } from '../src/store/jobs.ts'

export interface FloorDatabase {
  db: Database
  /** Inserts a job to the printer, and its document, in whatever transaction is open. */
  insertJob(idempotencyKey: string, document: unknown): JobRow
}

export function openFloorDatabase(file: string, printerId: string): FloorDatabase {
  const db = new Database(file, { strict: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA synchronous = NORMAL')
  db.run('PRAGMA foreign_keys = ON')
  db.run('PRAGMA temp_store = MEMORY')
  const printer = db
    .query<{ project_id: string }, [string]>('SELECT project_id FROM printers WHERE id = ?')
    .get(printerId)
  if (!printer) throw new Error(`no printer ${printerId}`)
  const insert = db.query<JobRow, (string | number | null)[]>(JOB_INSERT_SQL)
  const insertDocument = db.query<never, [number, string]>(
    'INSERT INTO job_documents (job_seq, document) VALUES (?, ?)',
  )
  return {
    db,
    insertJob(idempotencyKey, document) {
      const now = Date.now()
      const row = insert.get(
        newId('job'),
        printer.project_id,
        printerId,
        idempotencyKey,
        null,
        now + EXPIRES_IN_MS.default,
        MAX_ATTEMPTS.default,
        now,
        now,
        null,
        null,
        null,
      )!
      insertDocument.run(row.seq, JSON.stringify(document))
      return row
    },
  }
}
