// The built-in agent's ledger (src/agent/builtin-ledger.ts) on a real database file, with the hub's
// side played by a list of the jobs it holds: received jobs in memory, one row a job from its claim,
// and after a crash (a second ledger opened on the same file) every job either printed once,
// reported again, resumed, or uncertain, never lost and never printed twice.
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import {
  BACKLOG_PAGE,
  BuiltinLedger,
  type HeldByHub,
  type HubRecords,
  KEPT_PAYLOAD_BYTES,
  KEPT_PAYLOADS_PER_PRINTER,
} from '../../src/agent/builtin-ledger.ts'
import { marksFileOf } from '../../src/agent/hand-over-marks.ts'
import { Ledger, type PrintJobPayload } from '../../src/agent/ledger.ts'
import { GroupCommit } from '../../src/sqlite/group-commit.ts'
import { printJobPayload } from '../support/fixtures.ts'
import { tempDir } from '../support/hub.ts'

let dir: string
const opened: { db: Database; ledger: BuiltinLedger }[] = []
/** The hub's side: the jobs it holds with the agent, and their payloads. */
let hub: Map<string, { held: HeldByHub; payload: PrintJobPayload }>
/** The jobs whose payloads the ledger read from the hub. */
let payloadsRead: string[] = []

const file = () => join(dir, 'hub.db')
/** The received jobs the ledger holds in memory, not begun. */
const receivedIn = (ledger: BuiltinLedger) => ledger.unreportedJobs().filter((job) => job.state === 'received')

/** A ledger on the file, as a hub's start makes it (a second one is the hub after a crash). */
function open(): { db: Database; ledger: BuiltinLedger; commits: GroupCommit; uncertain: string[]; printed: string[] } {
  const db = new Database(file(), { create: true, strict: true })
  db.run('PRAGMA journal_mode = WAL')
  const commits = new GroupCommit(db, (error) => {
    throw error
  })
  const ledger = new BuiltinLedger(db, commits, hubRecords())
  opened.push({ db, ledger })
  const recovered = ledger.recover()
  const ids = (printed: boolean) => recovered.filter((job) => job.printed === printed).map((job) => job.jobId)
  return { db, ledger, commits, uncertain: ids(false), printed: ids(true) }
}

/** The hub's side of the records, read from `hub` (orders as sent). */
function hubRecords(): HubRecords {
  const held = () => [...hub.values()].map((job) => job.held)
  return {
    backlogEnds: () => new Map(held().map((job) => [job.printerId, job.order])),
    held: (printerId, after, upTo, limit) =>
      held()
        .filter((job) => job.printerId === printerId && job.order > after && job.order <= upTo)
        .slice(0, limit),
    heldJob: (jobId) => hub.get(jobId)?.held,
    payload: (jobId) => {
      payloadsRead.push(jobId)
      return hub.get(jobId)?.payload
    },
  }
}

let order = 0

/** A job the hub sent and holds (DELIVERED once the agent has it). */
function sent(printerId = 'p1'): PrintJobPayload {
  const payload = printJobPayload(printerId)
  hub.set(payload.jobId, {
    held: { jobId: payload.jobId, printerId, messageId: `m.${payload.jobId}`, receivedAt: Date.now(), order: ++order },
    payload,
  })
  return payload
}

const rows = (db: Database) =>
  db
    .query<{ job_id: string; state: string; recovery_count: number }, []>(
      'SELECT job_id, state, recovery_count FROM ledger_intents ORDER BY seq',
    )
    .all()

beforeEach(() => {
  dir = tempDir()
  hub = new Map()
  payloadsRead = []
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
    expect(reader.query('SELECT job_id, state FROM ledger_intents').all()).toEqual([
      { job_id: job.jobId, state: 'submitting' },
    ])
    expect(ledger.finish(next.seq, 'complete', ['frame:submitted', 'frame:completed'])).toBe(true)
    await ledger.durable()
    expect(reader.query('SELECT state, reports FROM ledger_intents').all()).toEqual([
      { state: 'completed', reports: '["frame:submitted","frame:completed"]' },
    ])
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

  test(
    'a printer keeps the payloads of its first jobs; the others are read from ' +
      'the hub at their turn, and a job the hub no longer holds is passed over',
    () => {
      const { ledger } = open()
      const jobs = Array.from({ length: KEPT_PAYLOADS_PER_PRINTER + 3 }, () => sent())
      for (const job of jobs) ledger.receive(job, `m.${job.jobId}`)
      const kept = receivedIn(ledger).filter((job) => job.payload !== null)
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
    },
  )

  test(
    "beyond a printer's first jobs, payloads are kept as long as their " +
      "frames' text fits in the bound; a finished job's bytes make room again",
    () => {
      const { ledger } = open()
      const size = KEPT_PAYLOAD_BYTES / 4
      const first = Array.from({ length: KEPT_PAYLOADS_PER_PRINTER }, () => sent())
      for (const job of first) ledger.receive(job, `m.${job.jobId}`, size)
      // Four more fit; the fifth does not, nor does one of no size given (another printer's floor is its own).
      const beyond = Array.from({ length: 5 }, () => sent())
      const outcomes = beyond.map((job) => ledger.receive(job, `m.${job.jobId}`, size))
      expect(outcomes.map((outcome) => outcome.kind === 'new' && outcome.job.payload !== null)).toEqual([
        true,
        true,
        true,
        true,
        true,
      ])
      const keptOf = () => new Map(receivedIn(ledger).map((job) => [job.jobId, job.payload !== null]))
      expect(beyond.map((job) => keptOf().get(job.jobId))).toEqual([true, true, true, true, false])
      const unsized = sent()
      ledger.receive(unsized, `m.${unsized.jobId}`)
      expect(keptOf().get(unsized.jobId)).toBe(false)
      const otherPrinter = sent('p2')
      ledger.receive(otherPrinter, `m.${otherPrinter.jobId}`, size)
      expect(keptOf().get(otherPrinter.jobId)).toBe(true)

      // Printing the first ones and one of the four frees its bytes: the next job is kept again.
      const printed: string[] = []
      for (let i = 0; i <= KEPT_PAYLOADS_PER_PRINTER; i++) {
        const job = ledger.nextReceived('p1')!
        ledger.claim(job.seq)
        ledger.finish(job.seq, 'complete', [`done:${job.jobId}`])
        printed.push(job.jobId)
      }
      expect(printed).toEqual([...first, beyond[0]!].map((job) => job.jobId))
      const later = sent()
      ledger.receive(later, `m.${later.jobId}`, size)
      expect(keptOf().get(later.jobId)).toBe(true)
      // Only the jobs not kept were read from the hub, each at its turn.
      for (let job = ledger.nextReceived('p1'); job; job = ledger.nextReceived('p1')) {
        expect(job.payload).toEqual(hub.get(job.jobId)!.payload)
        ledger.claim(job.seq)
        ledger.finish(job.seq, 'complete', [`done:${job.jobId}`])
        printed.push(job.jobId)
      }
      expect(printed.slice(KEPT_PAYLOADS_PER_PRINTER + 1)).toEqual(
        [...beyond.slice(1), unsized, later].map((job) => job.jobId),
      )
      expect(payloadsRead).toEqual([beyond[4]!.jobId, unsized.jobId])
    },
  )

  test(
    'the job after another of a printer is the next received one, its payload ' +
      'read from the hub if it was not kept; none while it is not waiting or ' +
      'the hub no longer holds it',
    () => {
      const { ledger } = open()
      const jobs = Array.from({ length: KEPT_PAYLOADS_PER_PRINTER + 2 }, () => sent())
      for (const job of jobs) ledger.receive(job, `m.${job.jobId}`)
      const seqOf = (jobId: string) => ledger.job(jobId)!.seq
      expect(ledger.nextAfter('p1', seqOf(jobs[0]!.jobId))?.jobId).toBe(jobs[1]!.jobId)
      expect(ledger.nextAfter('p2', seqOf(jobs[0]!.jobId))).toBeUndefined()
      // Beyond the kept ones: read from the hub, once.
      const beyond = jobs[KEPT_PAYLOADS_PER_PRINTER]!
      expect(ledger.nextAfter('p1', seqOf(jobs[KEPT_PAYLOADS_PER_PRINTER - 1]!.jobId))?.payload).toEqual(beyond)
      expect(payloadsRead).toEqual([beyond.jobId])
      // The last one, cancelled in the hub meanwhile: none (its turn passes it over).
      hub.delete(jobs.at(-1)!.jobId)
      expect(ledger.nextAfter('p1', seqOf(beyond.jobId))).toBeUndefined()
      // The next one claimed: not waiting.
      ledger.claim(seqOf(jobs[1]!.jobId))
      expect(ledger.nextAfter('p1', seqOf(jobs[0]!.jobId))).toBeUndefined()
    },
  )

  test(
    'after a crash: received jobs come back from the hub, a claim without a ' +
      'hand-over mark prints again, one with a mark is uncertain, one marked ' +
      'printed is printed, an end the hub did not record is reported again',
    () => {
      const first = open()
      const [waiting, neverHanded, handed, ended, printed] = [sent(), sent('p2'), sent('p3'), sent('p4'), sent('p5')]
      for (const job of [waiting, neverHanded, handed, ended, printed]) first.ledger.receive(job, `m.${job.jobId}`)
      const claim = (printer: string) => {
        const job = first.ledger.nextReceived(printer)!
        first.ledger.claim(job.seq)
        return job
      }
      claim('p2')
      const handedJob = claim('p3')
      const printedJob = claim('p5')
      first.ledger.flushNow()
      first.ledger.handingOver(handedJob)
      // Every byte taken on a link that cannot tell more: printed, killed before the record.
      first.ledger.handingOver(printedJob)
      first.ledger.printed(printedJob)
      const endedJob = claim('p4')
      first.ledger.finish(endedJob.seq, 'complete', ['frame:ended'])
      first.ledger.flushNow()
      // kill -9: nothing more is written (the hub, which holds all four, never recorded the end).
      const { db, ledger, uncertain, printed: known } = open()
      expect(uncertain).toEqual([handed.jobId])
      expect(known).toEqual([printed.jobId])
      expect(
        receivedIn(ledger)
          .map((job) => job.jobId)
          .sort(),
      ).toEqual([waiting.jobId, neverHanded.jobId].sort())
      expect(receivedIn(ledger).find((job) => job.jobId === waiting.jobId)!.sourceMessageId).toBe(`m.${waiting.jobId}`)
      expect(ledger.outbox(Number.MAX_SAFE_INTEGER).map((r) => r.frame)).toEqual(['frame:ended'])
      expect(rows(db).find((row) => row.job_id === neverHanded.jobId)).toEqual({
        job_id: neverHanded.jobId,
        state: 'received',
        recovery_count: 1,
      })
      // The resumed job prints from its row (claimed again by an update, its resumes counted).
      const resumed = ledger.nextReceived('p2')!
      expect(resumed.payload).toEqual(neverHanded)
      expect(ledger.claim(resumed.seq)).toBe(true)
      ledger.flushNow()
      expect(rows(db).filter((row) => row.job_id === neverHanded.jobId)).toEqual([
        { job_id: neverHanded.jobId, state: 'submitting', recovery_count: 1 },
      ])
      // Acknowledged again after a reconnect: the job waiting, and the one begun since (its receipt may never have
      // reached the hub).
      expect(
        ledger
          .unreportedJobs()
          .map((job) => job.jobId)
          .sort(),
      ).toEqual([waiting.jobId, neverHanded.jobId].sort())
      expect(receivedIn(ledger).map((job) => job.jobId)).toEqual([waiting.jobId])
      // A repeat from the hub's resync is a duplicate of what the ledger holds: nothing prints twice.
      expect(ledger.receive(waiting, `m.${waiting.jobId}`).kind).toBe('duplicate')
      expect(ledger.receive(ended, `m.${ended.jobId}`).kind).toBe('duplicate')
      expect(existsMarks()).toBe(true)
    },
  )

  test(
    'a job marked printed whose printer has a next job waiting: its record ' +
      "rides along with that job's intent, not a commit of its own; otherwise " +
      'it commits at the end of its turn',
    async () => {
      const { ledger, commits } = open()
      const observer = new Database(file(), { readonly: true })
      const onDisk = (seq: number) =>
        observer.query<{ state: string }, [number]>('SELECT state FROM ledger_intents WHERE seq = ?').get(seq)?.state
      const turn = () => new Promise((resolve) => setImmediate(resolve))
      try {
        for (const job of [sent('p1'), sent('p1'), sent('p2')]) ledger.receive(job, `m.${job.jobId}`)
        /** Claimed, flushed, handed over; then marked printed (or not) and finished. */
        const print = (printer: string, markPrinted: boolean) => {
          const job = ledger.nextReceived(printer)!
          ledger.claim(job.seq)
          ledger.flushNow()
          ledger.handingOver(job)
          if (markPrinted) ledger.printed(job)
          ledger.finish(job.seq, 'complete', [`frame:${job.jobId}`])
          return job
        }
        const first = print('p1', true)
        const commitsBefore = commits.stats.commits
        await turn()
        await turn()
        expect(onDisk(first.seq)).toBe('submitting')
        expect(commits.stats.commits).toBe(commitsBefore)
        // The next job's intent commits it.
        const second = ledger.nextReceived('p1')!
        ledger.claim(second.seq)
        ledger.flushNow()
        expect(onDisk(first.seq)).toBe('completed')
        expect(commits.stats.commits).toBe(commitsBefore + 1)
        ledger.handingOver(second)
        ledger.printed(second)
        ledger.finish(second.seq, 'complete', ['frame:second'])
        // Nothing waits behind it (p1's queue is empty), nor behind a job not marked printed.
        await turn()
        expect(onDisk(second.seq)).toBe('completed')
        const unmarked = print('p2', false)
        await turn()
        expect(onDisk(unmarked.seq)).toBe('completed')
      } finally {
        observer.close()
      }
    },
  )

  test(
    'a start on a large backlog reads it a page at a time: every held job ' +
      'prints once, in order, before the jobs sent after the start',
    () => {
      const first = open()
      const backlog = Array.from({ length: 3 * BACKLOG_PAGE + 10 }, () => sent())
      const other = Array.from({ length: 5 }, () => sent('p2'))
      for (const job of [...backlog, ...other]) first.ledger.receive(job, `m.${job.jobId}`)
      first.ledger.flushNow()
      // The hub restarts: its agent holds what it held, a page of each printer in memory.
      const { ledger } = open()
      expect(receivedIn(ledger).length).toBeLessThanOrEqual(BACKLOG_PAGE + other.length)
      expect(ledger.printersWithWork().sort()).toEqual(['p1', 'p2'])
      const printed: string[] = []
      const printNext = () => {
        const job = ledger.nextReceived('p1')
        if (!job) return false
        expect(job.payload).toEqual(hub.get(job.jobId)!.payload)
        ledger.claim(job.seq)
        ledger.finish(job.seq, 'complete', [`done:${job.jobId}`])
        hub.delete(job.jobId)
        printed.push(job.jobId)
        return true
      }
      for (let i = 0; i < 100; i++) printNext()
      // Sent after the start: it waits for the backlog.
      const later = sent()
      expect(ledger.receive(later, `m.${later.jobId}`).kind).toBe('new')
      // At most a page and the rest of the one before it in memory.
      while (printNext()) expect(receivedIn(ledger).length).toBeLessThanOrEqual(2 * BACKLOG_PAGE + other.length + 1)
      expect(printed).toEqual([...backlog, later].map((job) => job.jobId))
      expect(ledger.nextReceived('p2')!.jobId).toBe(other[0]!.jobId)
    },
  )

  test(
    'a backlog job asked for before its page is read: a repeat is a ' +
      'duplicate, a cancel finds it, an end the hub did not record is reported ' +
      'when its page comes',
    () => {
      const first = open()
      const backlog = Array.from({ length: 2 * BACKLOG_PAGE }, () => sent())
      for (const job of backlog) first.ledger.receive(job, `m.${job.jobId}`)
      // The first ledger printed one deep in the queue (a job moved ahead) and the hub missed its end.
      const deep = backlog[BACKLOG_PAGE + 20]!
      first.ledger.claim(first.ledger.job(deep.jobId)!.seq)
      first.ledger.finish(first.ledger.job(deep.jobId)!.seq, 'complete', ['frame:deep'])
      first.ledger.flushNow()
      const { ledger } = open()
      expect(ledger.outbox(Number.MAX_SAFE_INTEGER)).toEqual([])
      const [repeated, cancelled] = [backlog[BACKLOG_PAGE + 5]!, backlog[BACKLOG_PAGE + 6]!]
      expect(ledger.receive(repeated, `m.${repeated.jobId}`).kind).toBe('duplicate')
      const toCancel = ledger.job(cancelled.jobId)!
      expect(toCancel.state).toBe('received')
      expect(ledger.finish(toCancel.seq, 'cancel', ['frame:cancelled'])).toBe(true)
      hub.delete(cancelled.jobId)
      const printed: string[] = []
      for (let job = ledger.nextReceived('p1'); job; job = ledger.nextReceived('p1')) {
        ledger.claim(job.seq)
        ledger.finish(job.seq, 'complete', [])
        printed.push(job.jobId)
      }
      // Each once; the repeated one where it was asked for, the deep one not again but reported.
      expect(printed.length).toBe(backlog.length - 2)
      expect(new Set(printed).size).toBe(printed.length)
      expect(printed).not.toContain(deep.jobId)
      expect(printed).not.toContain(cancelled.jobId)
      expect(ledger.outbox(Number.MAX_SAFE_INTEGER).map((r) => r.frame)).toEqual(['frame:cancelled', 'frame:deep'])
    },
  )

  test('a job resumed after a crash that the hub no longer holds is cancelled, not printed', () => {
    const first = open()
    const job = sent()
    first.ledger.receive(job, `m.${job.jobId}`)
    first.ledger.claim(first.ledger.nextReceived('p1')!.seq)
    first.ledger.flushNow()
    hub.delete(job.jobId)
    const { db, ledger, uncertain } = open()
    expect(uncertain).toEqual([])
    expect(ledger.nextReceived('p1')).toBeUndefined()
    ledger.flushNow()
    expect(rows(db)).toEqual([{ job_id: job.jobId, state: 'cancelled', recovery_count: 1 }])
  })

  test(
    "an earlier version's rows are taken over: claimed and finished jobs " +
      'become intents, received ones come back from the hub',
    () => {
      const db = new Database(file(), { create: true, strict: true })
      db.run('PRAGMA journal_mode = WAL')
      const old = Ledger.within(
        db,
        new GroupCommit(db, (error) => {
          throw error
        }),
      )
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
      expect(
        receivedIn(ledger)
          .map((job) => job.jobId)
          .sort(),
      ).toEqual([received.jobId, claimed.jobId].sort())
    },
  )
})

function existsMarks(): boolean {
  return Bun.file(marksFileOf(file())).size > 0
}
