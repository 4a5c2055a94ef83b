// Delivery's steps of the job state machine on both stores, through units as a node runs them: the head of a
// printer's queue claimed, received, submitted, printed; a failed attempt back after its backoff or ended; late and
// repeated reports changing nothing; an agent's cancellation, a silent one settled, expiry; each change with its
// project's event. On PostgreSQL alone, what a cluster adds: one attempt in flight per printer whatever the nodes
// do, a locked head never passed, a node whose lease was taken changing nothing (a write under a lease holds it until
// it commits), and the built-in agent's intents to print, which a node taking a printer over reads.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { SQL } from 'bun'
import { leaseHolds, PgLeases } from '../../src/pgstore/leases.ts'
import type { PgStore } from '../../src/pgstore/pg-store.ts'
import { failure } from '../../src/protocol/failures.ts'
import type { Job } from '../../src/protocol/job.ts'
import type { Actor } from '../../src/services/actor.ts'
import { JobService } from '../../src/services/jobs.ts'
import { PrinterService } from '../../src/services/printers.ts'
import { ProjectService } from '../../src/services/projects.ts'
import type { UnitRunner } from '../../src/storage/repositories.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { bothEngines, type Engine } from '../support/engines.ts'
import { tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const ACTOR: Actor = { userId: 'usr_1', user: 'kim', address: '192.168.1.20' }
const ENGINES = bothEngines()
const AGENT = { name: 'hub', version: '1', platform: 'linux', installationId: 'inst', publicKey: 'A'.repeat(43) }
const PAPER_OUT = failure('printer.paper_out', 'The printer is out of paper.')
const REFUSED = failure('render.width_unsupported', 'The printer does not take 80 mm paper.')

/** A project with printers `kitchen` and `bar` on the built-in agent, and a job service on them. */
async function venue(units: UnitRunner) {
  const jobs = new JobService({ units, listener: { jobCreated() {}, cancelRequested() {} } })
  const made = await new ProjectService(units).create(ACTOR, 'Bar Luna')
  if (made.kind !== 'created') throw new Error(made.kind)
  await units.write((db) => db.agents.insert(AGENT, 0, { builtin: true }))
  const printers: Record<string, string> = {}
  for (const id of ['kitchen', 'bar']) {
    const added = await new PrinterService(units, jobs).add(
      ACTOR,
      made.project.id,
      { id, connection: 'virtual' },
      confinementOf(tempDir(), []),
    )
    if (added.kind !== 'added') throw new Error(added.kind)
    printers[id] = added.printer.id
  }
  let n = 0
  const submit = async (printer: string, expiresInMs?: number): Promise<Job> => {
    const outcome = await jobs.submit({
      projectId: made.project.id,
      printerId: printer,
      idempotencyKey: `order-${++n}`,
      document: { width: 80, sections: [{ type: 'text', value: `Ticket ${n} · crème brûlée` }, { type: 'cut' }] },
      expiresInMs,
    })
    if (outcome.kind !== 'created') throw new Error(outcome.kind)
    return outcome.job
  }
  return { projectId: made.project.id, printers, submit, jobs }
}

for (const [name, open] of Object.entries(ENGINES)) {
  describe(`delivery's steps on ${name}`, () => {
    let engine: Engine
    let units: UnitRunner
    let place: Awaited<ReturnType<typeof venue>>

    beforeAll(async () => {
      engine = await open()
      units = engine.units
      place = await venue(units)
    })

    afterAll(async () => {
      await engine?.close()
    })

    const claim = (printerId: string) => units.write((db) => db.jobStates.claim(printerId))
    const state = async (id: string) => (await units.read((db) => db.jobs.get(id)))?.state

    test('claimed in order, one in flight per printer: DISPATCHING, DELIVERED, PRINTING, COMPLETED', async () => {
      const kitchen = place.printers.kitchen!
      const first = await place.submit('kitchen')
      const second = await place.submit('kitchen')
      expect(await units.read((db) => db.jobStates.queueHead(kitchen))).toMatchObject({
        id: first.id,
        state: 'PENDING',
      })
      const attempt = await claim(kitchen)
      expect(attempt).toMatchObject({ job: { id: first.id, state: 'DISPATCHING', attemptCount: 1 }, attempt: 1 })
      expect(attempt!.movedNote).toBeNull()
      // Its head is out: nothing more to claim until its agent has it.
      expect(await claim(kitchen)).toBeUndefined()
      expect(await units.read((db) => db.jobStates.currentAttempt(first.id))).toEqual(attempt)
      const at = Date.parse('2026-12-07T10:00:01.000Z')
      expect(await units.write((db) => db.jobStates.markReceived(first.id, 1, at))).toMatchObject({
        state: 'DELIVERED',
        receivedAt: '2026-12-07T10:00:01.000Z',
      })
      // Said twice: the second changes nothing.
      expect(await units.write((db) => db.jobStates.markReceived(first.id, 1, at))).toBeUndefined()
      expect(await units.read((db) => db.jobStates.heldCount(kitchen, 10))).toBe(1)
      expect(await units.read((db) => db.jobStates.withAgent(kitchen, 10))).toEqual([first.id])
      expect((await claim(kitchen))?.job.id).toBe(second.id)
      expect(await units.write((db) => db.jobStates.markSubmitted(first.id, 1, at + 100, true))).toMatchObject({
        state: 'PRINTING',
      })
      expect(await units.write((db) => db.jobStates.markCompleted(first.id, 1, at + 900))).toMatchObject({
        state: 'COMPLETED',
        submittedAt: '2026-12-07T10:00:01.100Z',
      })
      expect(await units.read((db) => db.jobStates.heldCount(kitchen, 10))).toBe(0)
      const events = await units.read((db) => db.events.after(place.projectId, 0, 100))
      const ofFirst = events.filter((event) => 'job' in event && event.job.id === first.id)
      expect(ofFirst.map((event) => ('state' in event ? event.state : event.type))).toEqual([
        'job.created',
        'DISPATCHING',
        'DELIVERED',
        'PRINTING',
        'COMPLETED',
      ])
      // The second, never received: given up, so its printer is free again.
      expect(await units.write((db) => db.jobStates.failAttempt(second.id, 1, PAPER_OUT, 0))).toMatchObject({
        state: 'PENDING',
      })
    })

    test('a failed attempt waits for its backoff, a late report of it changes nothing, a refusal ends it', async () => {
      const bar = place.printers.bar!
      const job = await place.submit('bar')
      await claim(bar)
      const failed = await units.write((db) => db.jobStates.failAttempt(job.id, 1, PAPER_OUT, 5_000))
      expect(failed).toMatchObject({ state: 'PENDING', lastErrorCode: 'printer.paper_out', attemptCount: 1 })
      expect(await claim(bar)).toBeUndefined()
      engine.advance(5_000)
      expect(await claim(bar)).toMatchObject({ attempt: 2 })
      // The first attempt's receipt, late: not this attempt's.
      expect(await units.write((db) => db.jobStates.markReceived(job.id, 1, 0))).toBeUndefined()
      expect(await units.write((db) => db.jobStates.failAttempt(job.id, 1, PAPER_OUT, 0))).toBeUndefined()
      expect(await units.write((db) => db.jobStates.failAttempt(job.id, 2, REFUSED, 0))).toMatchObject({
        state: 'FAILED',
        attemptCount: 5,
        lastErrorCode: 'render.width_unsupported',
      })
      expect(await units.read((db) => db.jobStates.queueHead(bar))).toBeUndefined()
    })

    test('cancellations: asked of the agent, stopped by it, or its silence settled; the asked listed', async () => {
      const bar = place.printers.bar!
      const stopped = await place.submit('bar')
      await claim(bar)
      expect(await units.write((db) => db.jobStates.markCancelled(stopped.id))).toBeUndefined()
      const asked = await place.jobs.cancel(ACTOR, stopped.id)
      expect(asked.kind).toBe('requested')
      expect(await units.read((db) => db.jobStates.cancelRequests())).toMatchObject([
        { id: stopped.id, printerId: bar, attempt: 1 },
      ])
      expect(await units.write((db) => db.jobStates.markCancelled(stopped.id))).toMatchObject({ state: 'CANCELLED' })
      expect(await units.read((db) => db.jobStates.cancelRequests())).toEqual([])
      const silent = await place.submit('bar')
      await claim(bar)
      await units.write((db) => db.jobStates.markReceived(silent.id, 1, 0))
      await place.jobs.cancel(ACTOR, silent.id)
      const requestedAt = (await units.read((db) => db.jobStates.cancelRequests()))[0]!.requestedAt
      expect(await units.write((db) => db.jobStates.cancelUnanswered(silent.id, requestedAt - 1))).toBeUndefined()
      expect(await units.write((db) => db.jobStates.cancelUnanswered(silent.id, requestedAt))).toMatchObject({
        state: 'CANCELLED',
      })
      // A failure after an operator's cancellation: CANCELLED, never tried again.
      const third = await place.submit('bar')
      await claim(bar)
      await place.jobs.cancel(ACTOR, third.id)
      expect(await units.write((db) => db.jobStates.failAttempt(third.id, 1, PAPER_OUT, 0))).toMatchObject({
        state: 'CANCELLED',
      })
    })

    test('jobs whose time ran out expire, one out to its agent with them; the printers left listed', async () => {
      const kitchen = place.printers.kitchen!
      await place.submit('bar', 10_000)
      const queued = await units.read((db) => db.jobStates.printersWithQueuedJobs())
      expect(queued.sort()).toEqual([place.printers.bar!, kitchen].sort())
      const out = (await claim(kitchen))!
      engine.advance(2 * 86_400_000)
      expect(await claim(place.printers.bar!)).toBeUndefined()
      const expired = await units.write((db) => db.jobStates.expire(64))
      expect(expired.map((job) => [job.printerId, job.state]).sort()).toEqual(
        [
          [place.printers.bar!, 'PENDING'],
          [kitchen, 'DISPATCHING'],
        ].sort(),
      )
      expect(expired.find((job) => job.printerId === kitchen)).toMatchObject({ id: out.job.id, attempt: 2 })
      expect(await state(out.job.id)).toBe('EXPIRED')
      expect(await units.read((db) => db.jobStates.printersWithQueuedJobs())).toEqual([])
      expect(await units.write((db) => db.jobStates.expire(64))).toEqual([])
    })
  })
}

/** The printer's lane emptied of what the tests before left in it: each job claimed if need be, and printed. */
async function emptyLane(store: PgStore, printerId: string): Promise<void> {
  for (let head = await store.read((db) => db.jobStates.queueHead(printerId)); head; ) {
    const out =
      head.state === 'DISPATCHING' ? head.id : (await store.write((db) => db.jobStates.claim(printerId)))?.job.id
    await store.write((db) => db.jobStates.markCompleted(out!, 1, 0))
    head = await store.read((db) => db.jobStates.queueHead(printerId))
  }
}

/** Until a statement of the database waits for a lock another transaction holds. */
async function someoneWaitsForALock(sql: SQL): Promise<void> {
  await waitFor(
    async () =>
      Number((await sql`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)[0].n) > 0 ||
      undefined,
  )
}

describe('delivery across nodes on postgres', () => {
  let engine: Engine
  let place: Awaited<ReturnType<typeof venue>>
  let leases: PgLeases

  beforeAll(async () => {
    engine = await ENGINES.postgres()
    place = await venue(engine.units)
    leases = new PgLeases(engine.sql!)
    for (const id of ['node-a', 'node-b']) await leases.join({ id, name: id, address: null, version: 'test' })
  })

  afterAll(async () => {
    await engine?.close()
  })

  test('three nodes claiming one printer at once start one attempt: its lane is the database', async () => {
    const kitchen = place.printers.kitchen!
    const jobs = [await place.submit('kitchen'), await place.submit('kitchen')]
    const nodes = [engine.units, await engine.node(), await engine.node()]
    const claims = await Promise.all(
      nodes.flatMap((node) => [1, 2].map(() => node.write((db) => db.jobStates.claim(kitchen)))),
    )
    const started = claims.filter((attempt) => attempt !== undefined)
    expect(started.map((attempt) => [attempt.job.id, attempt.attempt])).toEqual([[jobs[0]!.id, 1]])
    await engine.units.write((db) => db.jobStates.markReceived(jobs[0]!.id, 1, 0))
    await engine.units.write((db) => db.jobStates.markReceived(jobs[1]!.id, 1, 0))
    expect((await engine.units.read((db) => db.jobs.get(jobs[1]!.id)))?.state).toBe('PENDING')
  })

  test("a head another transaction holds is skipped, never passed: the printer's order stays", async () => {
    const bar = place.printers.bar!
    const head = await place.submit('bar')
    const next = await place.submit('bar')
    const held = await engine.sql!.reserve()
    try {
      await held`BEGIN`
      await held`SELECT 1 FROM jobs WHERE id = ${head.id} FOR UPDATE`
      expect(await engine.units.write((db) => db.jobStates.claim(bar))).toBeUndefined()
      await held`COMMIT`
    } finally {
      held.release()
    }
    expect((await engine.units.write((db) => db.jobStates.claim(bar)))?.job.id).toBe(head.id)
    expect((await engine.units.read((db) => db.jobs.get(next.id)))?.state).toBe('PENDING')
  })

  test('a node whose lease was taken over changes nothing: no claim, no report, no failure', async () => {
    const kitchen = place.printers.kitchen!
    const resource = `printer:${kitchen}`
    const mine = (await leases.take(resource, 'node-a', 60_000))!
    const store = engine.units as PgStore
    const a = store.fenced({ resource, fence: mine.fence })
    const job = (await engine.units.read((db) => db.jobStates.queueHead(kitchen)))!
    const attempt = (await a.write((db) => db.jobStates.claim(kitchen)))!
    expect(attempt.job.id).toBe(job.id)
    // The lease runs out (node A stalled) and node B takes it with a new number.
    await engine.sql!`UPDATE leases SET expires_at = 0 WHERE resource = ${resource}`
    const theirs = (await leases.take(resource, 'node-b', 60_000))!
    expect(theirs.fence).toBeGreaterThan(mine.fence)
    expect(await a.write((db) => db.jobStates.markReceived(job.id, attempt.attempt, 0))).toBeUndefined()
    expect(await a.write((db) => db.jobStates.failAttempt(job.id, attempt.attempt, PAPER_OUT, 0))).toBeUndefined()
    expect(await a.write((db) => db.jobStates.markSubmitted(job.id, attempt.attempt, 0, false))).toBeUndefined()
    expect((await engine.units.read((db) => db.jobs.get(job.id)))?.state).toBe('DISPATCHING')
    const b = store.fenced({ resource, fence: theirs.fence })
    expect(await b.write((db) => db.jobStates.markReceived(job.id, attempt.attempt, 0))).toMatchObject({
      state: 'DELIVERED',
    })
    const later = await place.submit('kitchen')
    expect(await a.write((db) => db.jobStates.claim(kitchen))).toBeUndefined()
    expect((await b.write((db) => db.jobStates.claim(kitchen)))?.job).toMatchObject({
      id: later.id,
      state: 'DISPATCHING',
    })
  })

  test("built-in printers' intents under their lease: a node taking one over fails what may have printed", async () => {
    const store = engine.units as PgStore
    const kitchen = place.printers.kitchen!
    const resource = `printer:${kitchen}`
    await engine.sql!`DELETE FROM leases WHERE resource = ${resource}`
    await emptyLane(store, kitchen)
    const [printing, waiting, unconfirmed] = [
      await place.submit('kitchen'),
      await place.submit('kitchen'),
      await place.submit('kitchen'),
    ]
    const mine = (await leases.take(resource, 'node-a', 60_000))!
    const a = { resource, fence: mine.fence }
    for (const job of [printing, waiting]) {
      await store.fenced(a).write((db) => db.jobStates.claim(kitchen))
      await store.fenced(a).write((db) => db.jobStates.markReceived(job.id, 1, 0))
    }
    await store.fenced(a).write((db) => db.jobStates.claim(kitchen))
    // About to print: the intent recorded. One whose receipt was not recorded yet is received with it.
    expect(await store.recordIntent(a, printing.id, 1)).toBe(true)
    expect(await store.recordIntent(a, unconfirmed.id, 1)).toBe(true)
    expect((await store.read((db) => db.jobs.get(unconfirmed.id)))?.state).toBe('DELIVERED')
    // Not for an attempt that is not the job's latest.
    expect(await store.recordIntent(a, waiting.id, 2)).toBe(false)
    // What this side guesses (the agent went away, no receipt in time) never fails an attempt that may have printed
    // (the agent's own failure still does: it says nothing printed).
    for (const code of ['agent.disconnected', 'agent.ack_timeout'] as const)
      expect(
        await store.fenced(a).write((db) => db.jobStates.failAttempt(printing.id, 1, failure(code, 'gone'), 0)),
      ).toBeUndefined()
    expect((await store.read((db) => db.jobs.get(printing.id)))?.state).toBe('DELIVERED')
    // Node A stalls past its lease; node B takes the printer over.
    await engine.sql!`UPDATE leases SET expires_at = 0 WHERE resource = ${resource}`
    const theirs = (await leases.take(resource, 'node-b', 60_000))!
    const b = { resource, fence: theirs.fence }
    expect(await store.recordIntent(a, waiting.id, 1)).toBe(false)
    expect(await store.takeOverPrinter(a, kitchen)).toEqual([])
    const uncertain = await store.takeOverPrinter(b, kitchen)
    expect(uncertain.map((job) => [job.id, job.state, job.lastErrorCode])).toEqual([
      [printing.id, 'FAILED', 'job.recovery_uncertain'],
      [unconfirmed.id, 'FAILED', 'job.recovery_uncertain'],
    ])
    expect(uncertain[0]!.lastErrorMessage).toContain('node of the cluster')
    // The job node A held and never began to print is node B's to print.
    expect((await store.read((db) => db.jobs.get(waiting.id)))?.state).toBe('DELIVERED')
    expect(await store.recordIntent(b, waiting.id, 1)).toBe(true)
    expect(await store.takeOverPrinter(b, kitchen)).toHaveLength(1)
  })

  test('a guess never fails an attempt whose intent is being recorded at that moment: it waits, sees it', async () => {
    const store = engine.units as PgStore
    const bar = place.printers.bar!
    await emptyLane(store, bar)
    const job = await place.submit('bar')
    await store.write((db) => db.jobStates.claim(bar))
    await store.write((db) => db.jobStates.markReceived(job.id, 1, 0))
    // A node's agent records its intent (as recordIntent does: the job's row held, the intent written), not yet
    // committed, while this side gives the attempt up as its agent went away.
    const writer = await engine.sql!.reserve()
    try {
      await writer`BEGIN`
      await writer`SELECT 1 FROM jobs WHERE id = ${job.id} FOR SHARE`
      await writer`INSERT INTO print_intents (job_id, attempt, recorded_at) VALUES (${job.id}, 1, 0)`
      const guessed = store.write(
        (db) => db.jobStates.failAttempt(job.id, 1, failure('agent.disconnected', 'gone'), 0),
        { lockedRows: true },
      )
      await someoneWaitsForALock(engine.sql!)
      await writer`COMMIT`
      expect(await guessed).toBeUndefined()
    } finally {
      writer.release()
    }
    expect((await store.read((db) => db.jobs.get(job.id)))?.state).toBe('DELIVERED')
  })

  test('a write under a lease holds it until it commits: a node taking the lease waits, then sees it', async () => {
    const resource = 'printer:held-by-a-write'
    const mine = (await leases.take(resource, 'node-a', 60_000))!
    await engine.sql!`UPDATE leases SET expires_at = 0 WHERE resource = ${resource}`
    const writer = await engine.sql!.reserve()
    try {
      await writer`BEGIN`
      // What each fenced write's condition does (leaseHolds): the lease's row read, and locked until the commit.
      const [row] = await writer.unsafe(`SELECT ${leaseHolds('$1', '$2')} AS holds`, [resource, mine.fence])
      expect(row.holds).toBe(true)
      const taking = leases.take(resource, 'node-b', 60_000)
      await someoneWaitsForALock(engine.sql!)
      await writer`COMMIT`
      expect((await taking)?.fence).toBeGreaterThan(mine.fence)
    } finally {
      writer.release()
    }
  })

  test("the jobs of an agent gone for good fail as may-have-printed; a connected agent's are kept", async () => {
    const store = engine.units as PgStore
    const bar = place.printers.bar!
    await emptyLane(store, bar)
    const held = await place.submit('bar', 10_000)
    await store.write((db) => db.jobStates.claim(bar))
    await store.write((db) => db.jobStates.markReceived(held.id, 1, 0))
    const builtin = (await store.read((db) => db.agents.builtin()))!
    // Its agent is connected to a node (a live lease): nothing is given up, even past the job's time.
    const lease = (await leases.take(`agent:${builtin.id}`, 'node-a', 60_000))!
    engine.advance(20_000)
    expect(await store.giveUpOnGoneAgents(Date.parse('2027-01-01'), 64)).toEqual([])
    await leases.release(`agent:${builtin.id}`, 'node-a', lease.fence)
    // Connected nowhere, not seen since before `awaySince`, its job's time run out: FAILED, and said why.
    const given = await store.giveUpOnGoneAgents(Date.parse('2027-01-01'), 64)
    expect(given.map((job) => [job.id, job.state, job.lastErrorCode])).toEqual([
      [held.id, 'FAILED', 'job.recovery_uncertain'],
    ])
    expect(given[0]!.lastErrorMessage).toContain('went away')
    // Revoked: at once, whatever the job's time.
    const revoked = await place.submit('bar')
    await store.write((db) => db.jobStates.claim(bar))
    await store.write((db) => db.jobStates.markReceived(revoked.id, 1, 0))
    await engine.sql!`UPDATE agents SET revoked_at = 1 WHERE id = ${builtin.id}`
    // Every job it holds, on each of its printers.
    const gone = await store.giveUpOnGoneAgents(-1, 64)
    expect(gone.map((job) => job.id)).toContain(revoked.id)
    expect(gone.every((job) => job.state === 'FAILED' && job.lastErrorMessage?.includes('revoked'))).toBe(true)
  })
})
