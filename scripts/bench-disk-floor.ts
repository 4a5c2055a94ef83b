// The yardsticks of `bun run bench disk`: what a job's guarantees alone cost in bytes written, in a
// process of its own so that /proc/self/io counts its writes and nothing else. Each job is written
// as the hub must at least write it: inserted and flushed (the 202 waits for that), then marked
// COMPLETED and flushed (the printer's confirmation), one job at a time. Two floors:
//   row:    one table, the job as one row with its document inline; the database's page size is the hub's;
//   schema: a copy of the hub's database, the job inserted with the hub's own statement, indexes and
//           triggers (scripts/bench-floor.ts), its document in its table, then COMPLETED.
// Each is run back to back (JOBS jobs), then with every page written back between jobs (SPACED_JOBS jobs), as the
// hub's runs are. Prints one JSON line: { row: { together, spaced }, schema: { together, spaced } }, bytes a job.
//   bun scripts/bench-disk-floor.ts HUB_DATABASE_COPY PRINTER_RECORD_ID JOBS SPACED_JOBS
import { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { RECEIPT } from './bench-api.ts'
import { ownWrittenBytes } from '../src/platform/disk-wear.ts'
import { openFloorDatabase } from './bench-floor.ts'

const [file, printerId, jobsText, spacedText] = process.argv.slice(2)
if (!file || !printerId || !jobsText || !spacedText)
  throw new Error('usage: bench-disk-floor.ts DATABASE PRINTER_RECORD_ID JOBS SPACED_JOBS')
const document = RECEIPT

function writtenBytes(): number {
  const bytes = ownWrittenBytes()
  if (bytes === undefined) throw new Error('this system does not count the bytes a process writes (/proc/self/io)')
  return bytes
}

/** Bytes written a job by `each`, after a warm-up of 20 jobs: back to back, then written back after each. */
function perJob(each: (key: string) => void): { together: number; spaced: number } {
  for (let i = 0; i < 20; i++) each(`warm-up-${i}`)
  const measure = (jobs: number, spaced: boolean) => {
    const before = writtenBytes()
    for (let i = 0; i < jobs; i++) {
      each(`${spaced}-${i}`)
      if (spaced) Bun.spawnSync(['sync'])
    }
    return Math.round((writtenBytes() - before) / jobs)
  }
  return { together: measure(Number(jobsText), false), spaced: measure(Number(spacedText), true) }
}

function flushedEachCommit(db: Database): void {
  db.run('PRAGMA journal_mode = WAL')
  db.run('PRAGMA synchronous = FULL')
}

const pageSize = new Database(file, { readonly: true }).query<{ page_size: number }, []>('PRAGMA page_size').get()!

const rowFile = join(dirname(file), 'floor-row.db')
rmSync(rowFile, { force: true })
const bare = new Database(rowFile, { create: true, strict: true })
bare.run(`PRAGMA page_size = ${pageSize.page_size}`)
flushedEachCommit(bare)
bare.run('CREATE TABLE jobs (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, state TEXT NOT NULL, document TEXT)')
const insertRow = bare.query<{ seq: number }, [string, string]>(
  "INSERT INTO jobs (key, state, document) VALUES (?, 'PENDING', ?) RETURNING seq",
)
const completeRow = bare.query<never, [number]>("UPDATE jobs SET state = 'COMPLETED' WHERE seq = ?")
const text = JSON.stringify(document)
const row = perJob((key) => completeRow.run(insertRow.get(key, text)!.seq))
bare.close()

const { db, insertJob } = openFloorDatabase(file, printerId)
flushedEachCommit(db)
const complete = db.query<never, [number, number]>("UPDATE jobs SET state = 'COMPLETED', updated_at = ? WHERE seq = ?")
const schema = perJob((key) => {
  const job = db.transaction(() => insertJob(key, document))()
  complete.run(Date.now(), job.seq)
})
db.close()
console.log(JSON.stringify({ row, schema }))
