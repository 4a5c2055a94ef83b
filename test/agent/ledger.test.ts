// The agent's job state machine, as its ledger enforces it on a real ledger file: every ledger
// state × every event of LEDGER_TRANSITIONS, generated from the table. An event applies exactly
// in the states its `from` lists and leads to its `to`, queueing its reports in the same
// transaction; anywhere else it changes nothing and queues nothing. A finished job keeps no
// payload. Each case opens the file again to find what was left there.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { Ledger, type LedgerJob, RETAINED_FINISHED_JOBS } from '../../src/agent/ledger.ts'
import { canonicalJson } from '../../src/agent/ledger-rows.ts'
import {
  LEDGER_STATE_SETS,
  LEDGER_TRANSITIONS,
  type LedgerEvent,
  type LedgerState,
} from '../../src/agent/ledger-transitions.ts'
import { AHEAD_PAYLOAD_CHARS } from '../../src/agent/render-ahead.ts'
import { ledgerJobInState, printJobPayload } from '../support/fixtures.ts'
import { tempDir } from '../support/hub.ts'

const EVENTS = Object.keys(LEDGER_TRANSITIONS) as LedgerEvent[]
/** Every state of the ledger; the type checker fails here when a state is added and not listed. */
const STATES = [
  'received',
  'submitting',
  'submitted',
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly LedgerState[]
const everyStateListed: [Exclude<LedgerState, (typeof STATES)[number]>] extends [never] ? true : false = true
/** The states OpenPrinter calls final: a job in one is never touched again. */
const FINISHED: readonly LedgerState[] = ['completed', 'failed', 'cancelled']
const isFinished = (state: LedgerState) => FINISHED.includes(state)
const canApply = (event: LedgerEvent, state: LedgerState) =>
  (LEDGER_TRANSITIONS[event].from as readonly LedgerState[]).includes(state)

let dir: string
let ledger: Ledger
beforeEach(() => {
  dir = tempDir()
  ledger = Ledger.open(dir)
})
afterEach(() => {
  ledger.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Every report queued and not yet sent, oldest first. */
const outbox = (): string[] => ledger.outbox(Number.MAX_SAFE_INTEGER, 10_000).map((entry) => entry.frame)

/** The job as a restarted agent would find it: the ledger opened again from its file. */
async function reopened(jobId: string): Promise<LedgerJob | undefined> {
  await ledger.durable()
  ledger.close()
  ledger = Ledger.open(dir)
  return ledger.job(jobId)
}

test('a ledger of its own lets the hub be told of a change only once it is on disk', async () => {
  const job = ledgerJobInState(ledger, 'received', printJobPayload('told-once-on-disk'))
  expect(ledger.tellsHubAtOnce).toBe(false)
  await ledger.durable()
  // On disk: the ledger opened again from its file has it.
  expect((await reopened(job.jobId))?.state).toBe('received')
})

test(
  'a finished job is forgotten once 10,000 newer ones have finished; an ' +
    'unfinished one never is, and a remembered one is still a duplicate',
  async () => {
    const waiting = ledgerJobInState(ledger, 'received', printJobPayload('forgetting'))
    const payloads = Array.from({ length: RETAINED_FINISHED_JOBS + 64 }, () => printJobPayload('forgetting'))
    for (const payload of payloads) {
      ledgerJobInState(ledger, 'completed', payload)
      // Reports go out as the agent sends them: the outbox stays short, as it does at work.
      for (const entry of ledger.outbox(Number.MAX_SAFE_INTEGER)) ledger.sent(entry.seq)
    }
    // Opened again, the ledger forgets at once what is due (as it does every 256 jobs that finish).
    expect((await reopened(waiting.jobId))?.state).toBe('received')
    const remembered = payloads.filter((payload) => ledger.job(payload.jobId) !== undefined)
    expect(remembered).toEqual(payloads.slice(64))
    // The newest are still known: the hub sending one again gets the duplicate it is, not a second print.
    expect(ledger.receive(payloads.at(64)!, 'msg_again').kind).toBe('duplicate')
    expect(ledger.receive(payloads.at(-1)!, 'msg_again').kind).toBe('duplicate')
    expect(ledger.outbox(Number.MAX_SAFE_INTEGER)).toEqual([])
  },
)

test(
  'a job that finishes behind a backlog of more than 10,000 received jobs ' +
    'is remembered, and its report waits to be sent',
  () => {
    // The hub hands a printer's jobs over as fast as the agent stores them: the received backlog can
    // outgrow what the ledger remembers of finished jobs, and the oldest job is the next to print.
    const oldest = ledgerJobInState(ledger, 'received', printJobPayload('backlog'))
    for (let i = 0; i < RETAINED_FINISHED_JOBS + 10; i++) ledger.receive(printJobPayload('backlog'), `msg_${i}`)
    for (const entry of ledger.outbox(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)) ledger.sent(entry.seq)
    expect(ledger.claim(oldest.seq)).toBe(true)
    // Enough finishes in a row that the ledger forgets on the way: none of them is forgotten yet.
    const finished = [
      oldest,
      ...Array.from({ length: 300 }, () => ledgerJobInState(ledger, 'received', printJobPayload('backlog'))),
    ]
    for (const job of finished.slice(1)) expect(ledger.claim(job.seq)).toBe(true)
    for (const job of finished) expect(ledger.finish(job.seq, 'complete', [`{"report":"${job.jobId}"}`])).toBe(true)
    expect(ledger.outbox(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).map((entry) => entry.frame)).toEqual(
      finished.map((job) => `{"report":"${job.jobId}"}`),
    )
    expect(finished.map((job) => ledger.job(job.jobId)?.state)).toEqual(finished.map(() => 'completed'))
  },
)

test(
  'the job after another of a printer is the next received one, with its ' + 'payload; none while it is not waiting',
  () => {
    const [first, second, third] = ['p1', 'p1', 'p1'].map((printer) =>
      ledger.receive(printJobPayload(printer), `m.${crypto.randomUUID()}`),
    )
    const other = ledger.receive(printJobPayload('p2'), 'm.other')
    const jobOf = (outcome: typeof first) => (outcome!.kind === 'new' ? outcome!.job : undefined)!
    expect(ledger.nextAfter('p1', jobOf(first).seq)?.jobId).toBe(jobOf(second).jobId)
    expect(ledger.nextAfter('p1', jobOf(first).seq)?.payload).toEqual(jobOf(second).payload)
    expect(ledger.nextAfter('p1', jobOf(third).seq)).toBeUndefined()
    expect(ledger.nextAfter('p2', jobOf(other).seq)).toBeUndefined()
    // Its printer's next job is being written: none waits right after the first.
    ledger.claim(jobOf(second).seq)
    expect(ledger.nextAfter('p1', jobOf(first).seq)).toBeUndefined()
    // A payload too long to be a light document is not read to render ahead; nor is the one after it.
    const long = ledger.receive(
      printJobPayload('p2', {
        width: 80,
        sections: Array.from({ length: 5 }, () => ({
          type: 'text' as const,
          value: 'x'.repeat(AHEAD_PAYLOAD_CHARS / 4),
        })),
      }),
      'm.long',
    )
    ledger.receive(printJobPayload('p2'), 'm.after-long')
    expect(ledger.nextAfter('p2', jobOf(other).seq)).toBeUndefined()
    expect(ledger.nextReceived('p2')?.jobId).toBe(jobOf(other).jobId)
    expect(jobOf(long).payload?.document.sections).toHaveLength(5)
  },
)

test(
  'the jobs acknowledged again after a reconnect: every one not finished, ' +
    'and every finished one whose reports have not left',
  () => {
    const jobs = Object.fromEntries(
      STATES.map((state) => [state, ledgerJobInState(ledger, state, printJobPayload('acknowledged-again'))]),
    )
    // Reports handed to the connection leave the outbox: the ended jobs whose reports went are not told again.
    const told = ledgerJobInState(ledger, 'completed', printJobPayload('acknowledged-again'))
    for (const entry of ledger.outbox(Number.MAX_SAFE_INTEGER)) ledger.sent(entry.seq)
    // One that ended after that: its report waits to be sent.
    const late = ledgerJobInState(ledger, 'failed', printJobPayload('acknowledged-again'))
    const unreported = ledger.unreportedJobs()
    expect(unreported.map((job) => job.jobId)).toEqual([
      jobs.received!.jobId,
      jobs.submitting!.jobId,
      jobs.submitted!.jobId,
      late.jobId,
    ])
    expect(unreported.map((job) => job.jobId)).not.toContain(told.jobId)
    // As they were received, to be acknowledged with their original correlation; their payloads are not read.
    expect(unreported[0]).toMatchObject({
      jobId: jobs.received!.jobId,
      idempotencyKey: jobs.received!.idempotencyKey,
      sourceMessageId: jobs.received!.sourceMessageId,
      receivedAt: jobs.received!.receivedAt,
      payload: null,
    })
  },
)

describe('receiving (OpenPrinter v1 section 7.4)', () => {
  const count = () => ledger.db.query<{ n: number }, []>('SELECT count(*) AS n FROM ledger_jobs').get()!.n

  test('the same job again is a duplicate, whatever order its fields come in; nothing more is stored', () => {
    const payload = printJobPayload('dup')
    expect(ledger.receive(payload, 'msg_1').kind).toBe('new')
    const reordered = JSON.parse(
      JSON.stringify({
        document: { sections: payload.document.sections, width: payload.document.width },
        createdAt: payload.createdAt,
        printerId: payload.printerId,
        idempotencyKey: payload.idempotencyKey,
        jobId: payload.jobId,
      }),
    )
    const again = ledger.receive(reordered, 'msg_2')
    expect(again).toMatchObject({ kind: 'duplicate', job: { jobId: payload.jobId, sourceMessageId: 'msg_1' } })
    expect(count()).toBe(1)
  })

  test('a job ID or an idempotency key reused for something else is a conflict, and nothing is stored', () => {
    const payload = printJobPayload('conflicts')
    expect(ledger.receive(payload, 'msg_1').kind).toBe('new')
    expect(ledger.receive({ ...payload, idempotencyKey: 'other-key' }, 'msg_2')).toEqual({
      kind: 'conflict',
      reason: 'job ID known with another idempotency key',
    })
    expect(ledger.receive({ ...payload, document: { width: 58, sections: [] } }, 'msg_3')).toEqual({
      kind: 'conflict',
      reason: 'job ID known with other content',
    })
    expect(
      ledger.receive({ ...printJobPayload('conflicts'), idempotencyKey: payload.idempotencyKey }, 'msg_4'),
    ).toEqual({ kind: 'conflict', reason: 'idempotency key used by another job' })
    expect(count()).toBe(1)
    expect(ledger.nextReceived('conflicts')?.jobId).toBe(payload.jobId)
  })

  test(
    'a payload is stored as its canonical text, which its hash is of; a ' + 'restarted ledger reads back the same job',
    async () => {
      const payload = printJobPayload('canonical', {
        width: 80,
        sections: [{ type: 'text', value: 'Café crème — 3,20 €', bold: true, align: 'center' }, { type: 'cut' }],
      })
      const received = ledger.receive(payload, 'msg_1')
      if (received.kind !== 'new') throw new Error(received.kind)
      const row = ledger.db
        .query<{ payload: string; payload_sha256: string }, []>('SELECT payload, payload_sha256 FROM ledger_jobs')
        .get()!
      expect(row.payload).toBe(canonicalJson(payload))
      expect(row.payload).toStartWith('{"createdAt":')
      expect(row.payload_sha256).toBe(new Bun.CryptoHasher('sha256').update(row.payload).digest('hex'))
      expect((await reopened(payload.jobId))?.payload).toEqual(payload)
      expect(ledger.nextReceived('canonical')?.payload).toEqual(payload)
    },
  )

  test('canonical JSON leaves out what JSON leaves out, and writes null where JSON does', () => {
    const value = { b: undefined, a: [1, undefined, Number.NaN], c: { z: 1, y: undefined } }
    expect(canonicalJson(value)).toBe('{"a":[1,null,null],"c":{"z":1}}')
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)))
  })
})

describe('the table itself', () => {
  test('every state is listed, and the table names no other', () => {
    expect(everyStateListed).toBe(true)
    const named = new Set(EVENTS.flatMap((event) => [...LEDGER_TRANSITIONS[event].from, LEDGER_TRANSITIONS[event].to]))
    expect([...named].sort()).toEqual([...STATES].sort())
  })

  test('every state is open (some event applies to it) xor finished', () => {
    expect<readonly LedgerState[]>(LEDGER_STATE_SETS.finished).toEqual(FINISHED)
    for (const state of STATES)
      expect([state, EVENTS.some((event) => canApply(event, state)) !== isFinished(state)]).toEqual([state, true])
  })

  test('no event leads out of a finished state, nor back to where it started', () => {
    for (const event of EVENTS) {
      const { from, to } = LEDGER_TRANSITIONS[event]
      expect([event, from.filter(isFinished)]).toEqual([event, []])
      expect([event, (from as readonly LedgerState[]).includes(to)]).toEqual([event, false])
    }
  })

  test('a job in a finished state keeps no payload; an open one keeps it to print', () => {
    for (const state of STATES) {
      const job = ledgerJobInState(ledger, state)
      expect([state, job.state, job.payload === null]).toEqual([state, state, isFinished(state)])
    }
  })
})

for (const event of EVENTS) {
  const { from, to } = LEDGER_TRANSITIONS[event]
  describe(`${event}: ${from.join(', ')} → ${to}`, () => {
    for (const state of STATES) {
      const applies = canApply(event, state)
      const outcome = applies ? `→ ${to}, its reports queued` : 'refused, nothing changes or is queued'
      test(`${state}: ${outcome}`, async () => {
        const before = ledgerJobInState(ledger, state)
        const queuedBefore = outbox()
        // claim has no report: it is the record of intent, before a byte goes to the printer; nor
        // has resume, which undoes a claim a crash cut short before the first byte.
        const reports = event === 'claim' || event === 'resume' ? [] : [`report:${event} from ${state}`]
        const applied =
          event === 'claim'
            ? ledger.claim(before.seq)
            : event === 'resume'
              ? ledger.resume(before.seq)
              : ledger.finish(before.seq, event, reports)
        expect(applied).toBe(applies)
        const after = ledger.job(before.jobId)
        if (applies) {
          // A resumed job counts the recoveries it went through.
          expect(after).toEqual({
            ...before,
            state: to,
            payload: isFinished(to) ? null : before.payload,
            reports: [...before.reports, ...reports],
            recoveryCount: before.recoveryCount + (event === 'resume' ? 1 : 0),
          })
          expect(outbox()).toEqual([...queuedBefore, ...reports])
        } else {
          expect(after).toEqual(before)
          expect(outbox()).toEqual(queuedBefore)
        }
        expect(await reopened(before.jobId)).toEqual(after)
        expect(outbox()).toEqual(applies ? [...queuedBefore, ...reports] : queuedBefore)
      })
    }
  })
}
