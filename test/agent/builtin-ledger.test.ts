// The built-in agent's ledger (src/agent/builtin-ledger.ts) on a real database file, with the hub's
// side played by a list of the jobs it holds: received jobs in memory, one row a job from its claim,
// and after a crash (a second ledger opened on the same file) every job either printed once,
// reported again, resumed, or uncertain, never lost and never printed twice.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { BuiltinLedger, type HeldByHub, KEPT_PAYLOADS_PER_PRINTER } from '../../src/agent/builtin-ledger.ts'
import { marksFileOf } from '../../src/agent/hand-over-marks.ts'
import { Ledger, type PrintJobPayload } from '../../src/agent/ledger.ts'
import { GroupCommit } from '../../src/sqlite/group-commit.ts'
import { printJobPayload } from '../support/fixtures.ts'
import { tempDir } from '../support/hub.ts'

let dir: string
const opened: { db: Database; ledger: BuiltinLedger }[] = []
/** The hub's side: the jobs it holds with the agent, and their payloads. */
let hub: Map<string, { held: HeldByHub; payload: PrintJobPayload }>

const file = () => join(dir, 'hub.db')

/** A ledger on the file, as a hub's start makes it (a second one is the hub after a crash). */
function open(): { db: Database; ledger: BuiltinLedger; uncertain: string[] } {
  const db = new Database(file(), { create: true, strict: true })
  db.run('PRAGMA journal_mode = WAL')
  const commits = new GroupCommit(db, (error) => {
    throw error
  })
  const ledger = new BuiltinLedger(db, commits, { held: () => [...hub.values()].map((job) => job.held), payload: (jobId) => hub.get(jobId)?.payload })
  opened.push({ db, ledger })
  const uncertain = ledger.recover().map((job) => job.jobId)
  return { db, ledger, uncertain }
}

/** A job the hub sent and holds (DELIVERED once the agent has it). */
function sent(printerId = 'p1'): PrintJobPayload {
  const payload = printJobPayload(printerId)
  hub.set(payload.jobId, { held: { jobId: payload.jobId, printerId, messageId: `m.${payload.jobId}`, receivedAt: Date.now() }, payload })
  return payload
}

const rows = (db: Database) => db.query<{ job_id: string; state: string; recovery_count: number }, []>('SELECT job_id, state, recovery_count FROM ledger_intents ORDER BY seq').all()

beforeEach(() => {
  dir = tempDir()
  hub = new Map()
})

afterEach(() => {
  for (const { db, ledger } of opened.splice(0)) {
    try {
      ledger.close()
    } catch {
      // closed by the test
    }
    db.close()
  }
  rmSync(dir, { recursive: true, force: true })
})

describe("the built-in agent's ledger", () => {
  test('a received job has no row; its claim writes one, on disk once durable; its end updates it', async () => {
    const { db, ledger } = open()
    const job = sent()
    const received = ledger.receive(job, `m.${job.jobId}`)
    expect(received.kind).toBe('new')
    expect(rows(db)).toEqual([])
    const next = ledger.nextReceived('p1')!
    expect(next.jobId).toBe(job.jobId)
    expect(ledger.claim(next.seq)).toBe(true)
    await ledger.durable()
    const reader = new Database(file(), { readonly: true })
    expect(reader.query('SELECT job_id, state FROM ledger_intents').all()).toEqual([{ job_id: job.jobId, state: 'submitting' }])
    expect(ledger.finish(next.seq, 'complete', ['frame:submitted', 'frame:completed'])).toBe(true)
    await ledger.durable()
    expect(reader.query('SELECT state, reports FROM ledger_intents').all()).toEqual([{ state: 'completed', reports: '["frame:submitted","frame:completed"]' }])
    reader.close()
    // Reports wait in memory for the link, in order.
    expect(ledger.outbox(Number.MAX_SAFE_INTEGER).map((r) => r.frame)).toEqual(['frame:submitted', 'frame:completed'])
    // A finished job is not claimed or finished again, and a repeat is answered with its reports.
    expect(ledger.claim(next.seq)).toBe(false)
    expect(ledger.finish(next.seq, 'fail', ['x'])).toBe(false)
    const again = ledger.receive(job, 'm.again')
    expect(again.kind).toBe('duplicate')
    expect(again.kind === 'duplicate' && again.job.reports).toEqual(['frame:submitted', 'frame:completed'])
    expect(ledger.nextReceived('p1')).toBeUndefined()
  })

  test('a printer keeps the payloads of its first jobs; the others are read from the hub at their turn, and a job the hub no longer holds is passed over', () => {
    const { ledger } = open()
    const jobs = Array.from({ length: KEPT_PAYLOADS_PER_PRINTER + 3 }, () => sent())
    for (const job of jobs) ledger.receive(job, `m.${job.jobId}`)
    const kept = ledger.receivedJobs().filter((job) => job.payload !== null)
    expect(kept).toHaveLength(KEPT_PAYLOADS_PER_PRINTER)
    // The job after the kept ones was cancelled in the hub meanwhile.
    hub.delete(jobs[KEPT_PAYLOADS_PER_PRINTER]!.jobId)
    const printed: string[] = []
    for (let job = ledger.nextReceived('p1'); job; job = ledger.nextReceived('p1')) {
      expect(job.payload).toEqual(hub.get(job.jobId)!.payload)
      ledger.claim(job.seq)
      ledger.finish(job.seq, 'complete', [`done:${job.jobId}`])
      printed.push(job.jobId)
    }
    expect(printed).toEqual(jobs.filter((_, i) => i !== KEPT_PAYLOADS_PER_PRINTER).map((job) => job.jobId))
  })

  test('after a crash: received jobs come back from the hub, a claim without a hand-over mark prints again, one with a mark is uncertain, an end the hub did not record is reported again', () => {
    const first = open()
    const [waiting, neverHanded, handed, ended] = [sent(), sent('p2'), sent('p3'), sent('p4')]
    for (const job of [waiting, neverHanded, handed, ended]) first.ledger.receive(job, `m.${job.jobId}`)
    const claim = (printer: string) => {
      const job = first.ledger.nextReceived(printer)!
      first.ledger.claim(job.seq)
      return job
    }
    claim('p2')
    const handedJob = claim('p3')
    first.ledger.flushNow()
    first.ledger.handingOver(handedJob)
    const endedJob = claim('p4')
    first.ledger.finish(endedJob.seq, 'complete', ['frame:ended'])
    first.ledger.flushNow()
    // kill -9: nothing more is written (the hub, which holds all four, never recorded the end).
    const { db, ledger, uncertain } = open()
    expect(uncertain).toEqual([handed.jobId])
    expect(ledger.receivedJobs().map((job) => job.jobId).sort()).toEqual([waiting.jobId, neverHanded.jobId].sort())
    expect(ledger.receivedJobs().find((job) => job.jobId === waiting.jobId)!.sourceMessageId).toBe(`m.${waiting.jobId}`)
    expect(ledger.outbox(Number.MAX_SAFE_INTEGER).map((r) => r.frame)).toEqual(['frame:ended'])
    expect(rows(db).find((row) => row.job_id === neverHanded.jobId)).toEqual({ job_id: neverHanded.jobId, state: 'received', recovery_count: 1 })
    // The resumed job prints from its row (claimed again by an update, its resumes counted).
    const resumed = ledger.nextReceived('p2')!
    expect(resumed.payload).toEqual(neverHanded)
    expect(ledger.claim(resumed.seq)).toBe(true)
    ledger.flushNow()
    expect(rows(db).filter((row) => row.job_id === neverHanded.jobId)).toEqual([{ job_id: neverHanded.jobId, state: 'submitting', recovery_count: 1 }])
    // A repeat from the hub's resync is a duplicate of what the ledger holds: nothing prints twice.
    expect(ledger.receive(waiting, `m.${waiting.jobId}`).kind).toBe('duplicate')
    expect(ledger.receive(ended, `m.${ended.jobId}`).kind).toBe('duplicate')
    expect(existsMarks()).toBe(true)
  })

  test("an earlier version's rows are taken over: claimed and finished jobs become intents, received ones come back from the hub", () => {
    const db = new Database(file(), { create: true, strict: true })
    db.run('PRAGMA journal_mode = WAL')
    const old = Ledger.within(db, new GroupCommit(db, (error) => {
      throw error
    }))
    old.recover()
    const [received, claimed] = [sent(), sent('p2')]
    old.receive(received, 'm.1')
    const claimedJob = old.receive(claimed, 'm.2')
    if (claimedJob.kind === 'new') old.claim(claimedJob.job.seq)
    old.close()
    db.close()
    const { db: reopened, ledger, uncertain } = open()
    // Claimed and never handed over (its run's marks say so): it prints again.
    expect(uncertain).toEqual([])
    expect(reopened.query('SELECT count(*) AS n FROM ledger_jobs').get()).toEqual({ n: 0 })
    expect(rows(reopened)).toEqual([{ job_id: claimed.jobId, state: 'received', recovery_count: 1 }])
    expect(ledger.receivedJobs().map((job) => job.jobId).sort()).toEqual([received.jobId, claimed.jobId].sort())
  })
})

function existsMarks(): boolean {
  return Bun.file(marksFileOf(file())).size > 0
}
