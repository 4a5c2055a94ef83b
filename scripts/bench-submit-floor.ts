// The submissions' yardstick in `bun run bench api`: more than any server in this runtime can do
// for the same submission on the hub's schema. Bun.serve and bun:sqlite alone, over a copy of the
// hub's own database: each POST parses the body as JSON and runs the hub's own INSERTs of a job and
// its document (store/jobs.ts: the same statements, indexes and triggers), the INSERTs of one
// turn of the event loop in one transaction, and answers 202 with the job. No routing, API key,
// validation, idempotency look-up, quota, log or limits, and no flush at all (WAL with
// synchronous = NORMAL: a commit is not on disk when it answers), so its rate bounds the hub's from
// above. It prints its port, then serves until killed.
//   bun scripts/bench-submit-floor.ts DATABASE PRINTER_RECORD_ID
import { toJob } from '../src/store/jobs.ts'
import { openFloorDatabase } from './bench-floor.ts'

const [file, printerId] = process.argv.slice(2)
if (!file || !printerId) throw new Error('usage: bench-submit-floor.ts DATABASE PRINTER_RECORD_ID')
const { db, insertJob } = openFloorDatabase(file, printerId)

let open = false
const commit = () => {
  db.run('COMMIT')
  open = false
}

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const body = (await request.json()) as { idempotencyKey: string; document: unknown }
    if (!open) {
      db.run('BEGIN IMMEDIATE')
      open = true
      setImmediate(commit)
    }
    const row = insertJob(body.idempotencyKey, body.document)
    return Response.json({ job: toJob(row), duplicate: false }, { status: 202 })
  },
})
console.log(server.port)
