// The one-printer yardstick in `bun run bench delivery`: what this runtime does on this machine for
// a burst to one printer when it keeps the hub's guarantees and nothing else. Bun.serve and
// bun:sqlite alone, over a copy of the hub's own database (its jobs table, indexes and triggers):
// each POST parses the body and INSERTs the job and its document, the INSERTs of one turn in one
// transaction, answered 202 once that transaction is flushed to disk (fsync(2) of the log on the
// thread pool). One job at a time goes to the printer at SINK_PORT, oldest first: connected, asked
// its status (DLE EOT), the intent recorded and flushed on the spot, then the job's marker text and
// a cut, and the job COMPLETED in the next transaction. No routing, API key, validation, event,
// agent protocol, ledger, renderer, log or limits, so its rate bounds the hub's from above. GET with
// `?state=` lists that state's newest 100 jobs (the bench's way to see the burst end). It prints its
// port, then serves until killed.
//   bun scripts/bench-delivery-floor.ts DATABASE PRINTER_RECORD_ID SINK_PORT
import { fsync, fsyncSync, openSync } from 'node:fs'
import { JOB_COLUMNS, type JobRow, toJob } from '../src/store/jobs.ts'
import { openFloorDatabase } from './bench-floor.ts'

const [file, printerId, sinkPort] = process.argv.slice(2)
if (!file || !printerId || !sinkPort)
  throw new Error('usage: bench-delivery-floor.ts DATABASE PRINTER_RECORD_ID SINK_PORT')
// Commits are flushed here, as the hub's group commit flushes them: the log with fsync(2).
const { db, insertJob } = openFloorDatabase(file, printerId)
const intend = db.query<never, [number, number]>(
  `UPDATE jobs SET state = 'DISPATCHING', attempt_count = attempt_count +
    1, dispatched_at = ?1, updated_at = ?1 WHERE seq = ?2`,
)
const complete = db.query<never, [number, number]>(
  "UPDATE jobs SET state = 'COMPLETED', submitted_at = ?1, received_at = ?1, updated_at = ?1 WHERE seq = ?2",
)
const newest = db.query<JobRow, [string]>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE state = ? ORDER BY seq DESC LIMIT 100`)
// A first write makes the log's file, which the flushes below open.
db.run('BEGIN IMMEDIATE')
db.run('COMMIT')
const wal = openSync(`${file}-wal`, 'r')

// ---- Group commit: one transaction a turn, flushed before anyone hears of it ------------------

let open = false
let waiting: (() => void)[] = []
function write(change: () => void): void {
  if (!open) {
    db.run('BEGIN IMMEDIATE')
    open = true
    setImmediate(commit)
  }
  change()
}
function commit(): void {
  if (!open) return
  db.run('COMMIT')
  open = false
  const settled = waiting
  waiting = []
  fsync(wal, () => {
    for (const settle of settled) settle()
  })
}
const durable = () => new Promise<void>((resolve) => waiting.push(resolve))
/** The intent to print: committed with whatever is open, and flushed on the spot, before the first byte. */
function commitNow(): void {
  if (open) {
    db.run('COMMIT')
    open = false
  }
  fsyncSync(wal)
  const settled = waiting
  waiting = []
  for (const settle of settled) settle()
}

// ---- The printer: one job at a time ----------------------------------------------------------

const queue: { seq: number; bytes: Uint8Array }[] = []
let working = false
const STATUS_REQUEST = Uint8Array.of(0x10, 0x04, 0x01)
const CUT = Uint8Array.of(0x0a, 0x1d, 0x56, 0x00)

async function print(job: { seq: number; bytes: Uint8Array }): Promise<void> {
  let answered: (() => void) | undefined
  const status = new Promise<void>((resolve) => (answered = resolve))
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port: Number(sinkPort),
    socket: { data: () => answered?.() },
  })
  socket.write(STATUS_REQUEST)
  await status
  write(() => intend.run(Date.now(), job.seq))
  commitNow()
  socket.write(job.bytes)
  socket.end()
  write(() => complete.run(Date.now(), job.seq))
}

async function work(): Promise<void> {
  if (working) return
  working = true
  try {
    for (let job = queue.shift(); job; job = queue.shift()) await print(job)
  } finally {
    working = false
  }
}

// ---- HTTP -------------------------------------------------------------------------------------

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    if (request.method === 'GET') {
      const state = new URL(request.url).searchParams.get('state') ?? 'COMPLETED'
      return Response.json({ jobs: newest.all(state).map(toJob) })
    }
    const body = (await request.json()) as { idempotencyKey: string; document: { sections: { value?: string }[] } }
    let job: JobRow | undefined
    write(() => {
      job = insertJob(body.idempotencyKey, body.document)
    })
    // Queued at once, as the hub's dispatcher takes a job in the turn it is created: the intent's
    // flush, before its first byte, flushes its creation too.
    const text = body.document.sections.map((section) => section.value ?? '').join('\n')
    queue.push({ seq: job!.seq, bytes: new Uint8Array([...new TextEncoder().encode(text), ...CUT]) })
    void work()
    await durable()
    return Response.json({ job: toJob(job!), duplicate: false }, { status: 202 })
  },
})
console.log(server.port)
