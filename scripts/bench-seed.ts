// Jobs seeded straight into a stopped hub's database, as valid rows of its demo printer, for the
// bench sections that need a full store: the API section's list over a million jobs
// (scripts/bench-api.ts) and the backup section (scripts/bench-backup.ts).
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { JOB_STATES, type JobState } from '../src/protocol/job.ts'
import { EXPIRES_IN_MS, MAX_ATTEMPTS } from '../src/protocol/limits.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import { round } from './bench-hub.ts'

/** Rows per transaction, and how long the whole seeding may take. */
const SEED = { batch: 50_000, timeLimitMs: 120_000 } as const

/** How long a seeded job stays with its printer before it printed. */
const HELD_FOR_MS = 10 * 60_000

/** What the seeded jobs hold (the list reads no document): short, so that a million of them seed fast. */
const SEED_DOCUMENT = {
  width: 80,
  sections: [
    { type: 'text', value: 'Table 12: 2x Flat white' },
    { type: 'row', left: 'Flat white', right: '7.00' },
    { type: 'cut' },
  ],
}

export interface SeedResult {
  jobs: number
  seconds: number
  rowsPerSecond: number
  /** The newest seeded job, which the list must start with. */
  newestId: string
}

/** The demo printer's record ID. */
export function demoPrinterId(db: Database, projectId: string): string {
  const printer = db
    .query<{ id: string }, [string]>("SELECT id FROM printers WHERE project_id = ? AND remote_id = 'demo'")
    .get(projectId)
  if (!printer) throw new Error('the demo printer is missing')
  return printer.id
}

/** Seeds jobs straight into the (stopped) hub's database, as valid rows of the demo printer. */
export function seedJobs(dir: string, projectId: string, count: number): SeedResult {
  const startedAt = performance.now()
  const db = new Database(join(dir, DATABASE_FILE), { strict: true })
  try {
    db.run('PRAGMA busy_timeout = 5000')
    // A bench fixture: losing it to a power cut costs nothing, so skip the flushes. The hub
    // reopens the file with its own durable settings.
    db.run('PRAGMA synchronous = OFF')
    // Each INSERT into jobs needs a statement journal (two UNIQUE constraints, a trigger); in a
    // temp file that is one pwrite per touched page, and more than half of the seeding time.
    db.run('PRAGMA temp_store = MEMORY')
    // The four jobs indexes outgrow the default 2 MB cache within seconds; 256 MB keeps them hot.
    db.run('PRAGMA cache_size = -262144')
    const printerId = demoPrinterId(db, projectId)
    const firstSeq = (db.query<{ seq: number | null }, []>('SELECT max(seq) AS seq FROM jobs').get()?.seq ?? 0) + 1

    const insertJob = db.prepare<
      never,
      [
        number,
        string,
        string,
        string,
        string,
        JobState,
        number,
        number,
        number,
        string | null,
        string | null,
        number | null,
        number | null,
        number,
        number,
      ]
    >(
      `INSERT INTO jobs (seq, id, project_id, printer_id, idempotency_key, state, expires_at, attempt_count,
         max_attempts, last_error_code, last_error_message, received_at, submitted_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    const insertDocument = db.prepare<never, [number, string]>(
      'INSERT INTO job_documents (job_seq, document) VALUES (?, ?)',
    )
    const document = JSON.stringify(SEED_DOCUMENT)
    // Which timestamps a job in each state has: received by an agent, submitted to the printer.
    const received = new Set<JobState>(['DELIVERED', 'PRINTING', 'COMPLETED'])
    const submitted = new Set<JobState>(['PRINTING', 'COMPLETED'])
    const seedRunId = Date.now().toString(36)
    // One job every 2 s, ending now: about 23 days of history, in seq order.
    const spacingMs = 2_000
    const seededAt = Date.now()
    const firstCreatedAt = seededAt - count * spacingMs
    let newestId = ''

    const insertBatch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const seq = firstSeq + i
        // Round robin over the 8 states, as a hub would have left them: a job left waiting past its
        // expiry is EXPIRED (so only the last day's jobs are PENDING or DISPATCHING), and one its
        // printer had for more than a few minutes was printed (a printer that cannot print fails its
        // jobs back to the hub): COMPLETED. The hub's own agent holds the jobs its rows say it holds.
        const createdAt = firstCreatedAt + i * spacingMs
        const dealt = JOB_STATES[i % JOB_STATES.length]!
        const waiting = dealt === 'PENDING' || dealt === 'DISPATCHING'
        const held = dealt === 'DELIVERED' || dealt === 'PRINTING'
        const state =
          waiting && createdAt + EXPIRES_IN_MS.default <= seededAt
            ? 'EXPIRED'
            : held && createdAt + HELD_FOR_MS <= seededAt
              ? 'COMPLETED'
              : dealt
        const failed = state === 'FAILED'
        const id = `job_${Bun.randomUUIDv7('hex', createdAt).replace(/-/g, '')}`
        insertJob.run(
          seq,
          id,
          projectId,
          printerId,
          `seed-${seedRunId}-${String(i).padStart(String(count).length, '0')}`, // padded: appended in index order
          state,
          createdAt + EXPIRES_IN_MS.default,
          dealt === 'PENDING' ? 0 : failed ? MAX_ATTEMPTS.default : 1,
          MAX_ATTEMPTS.default,
          failed ? 'printer_offline' : state === 'EXPIRED' ? 'expired' : null,
          failed
            ? 'The printer did not answer.'
            : state === 'EXPIRED'
              ? 'The job expired before it reached the printer.'
              : null,
          received.has(state) ? createdAt + 200 : null,
          submitted.has(state) ? createdAt + 400 : null,
          createdAt,
          state === 'PENDING' ? createdAt : createdAt + 1_000,
        )
        insertDocument.run(seq, document)
        newestId = id
      }
    })

    for (let from = 0; from < count; from += SEED.batch) {
      if (performance.now() - startedAt > SEED.timeLimitMs)
        throw new Error(`seeding took longer than ${SEED.timeLimitMs} ms`)
      insertBatch.immediate(from, Math.min(count, from + SEED.batch))
    }
    // Leave a compact file for the hub: no large WAL to replay or checkpoint under load.
    db.run('PRAGMA wal_checkpoint(TRUNCATE)')
    const seconds = (performance.now() - startedAt) / 1000
    return { jobs: count, seconds: round(seconds, 2), rowsPerSecond: Math.round(count / seconds), newestId }
  } finally {
    db.close(true)
  }
}
