// Destinations of mode "all" (fan-out) against a real hub and two emulated Epson printers on TCP:
// a job posted to the destination is one child job per printer, each printed once at its own
// printer with its own state; the job posted (the parent) is never dispatched and its state
// summarises its children's (domain/fan-out.ts); its events, cancellation, expiry, idempotency key
// and reprint; its children never move, whatever the destination becomes.
import { adminToken } from '../support/fixtures.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type EmulatedReceipt, PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import type { Job } from '../../src/protocol/job.ts'
import { addBuiltinPrinter, jobBody, startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
const printed: Record<'kitchen' | 'bar', EmulatedReceipt[]> = { kitchen: [], bar: [] }
const emulators: Record<'kitchen' | 'bar', PrinterEmulator> = {} as never
const ids: Record<'kitchen' | 'bar', string> = {} as never

beforeAll(async () => {
  t = await startTestHub({
    env: {
      PRINTHUB_STATUS_POLL_MS: '200',
      PRINTHUB_FAILOVER_AFTER_MS: '500',
      PRINTHUB_RETRY_INITIAL_MS: '300',
      PRINTHUB_RETRY_MAX_MS: '1000',
    },
  })
  for (const name of ['kitchen', 'bar'] as const) {
    emulators[name] = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('epson-tm-t20iii')!,
      width: 80,
      onReceipt: (receipt) => printed[name].push(receipt),
    })
    ids[name] = await addBuiltinPrinter(t, name, `tcp://127.0.0.1:${emulators[name].port}`, 'epson-tm-t20iii')
  }
  const made = await t.request('POST', `/v1/projects/${t.projectId}/destinations`, {
    body: { name: 'everywhere', mode: 'all', printers: ['kitchen', 'bar'] },
  })
  expect(made.status).toBe(201)
})
afterAll(async () => {
  await t.stop()
  for (const emulator of Object.values(emulators)) emulator.stop()
})

const detail = async (id: string): Promise<{ job: Job; children?: Job[] }> =>
  (await t.request('GET', `/v1/projects/${t.projectId}/jobs/${id}`)).json()
const printerState = async (name: string) =>
  (await (await t.request('GET', `/v1/projects/${t.projectId}/printers/${name}`)).json()).printer.state
const texts = (name: 'kitchen' | 'bar') =>
  printed[name].map((receipt) => receipt.preview.text.filter((line) => line !== '').join('\n'))
const ticket = (value: string) => ({ width: 80, sections: [{ type: 'text', value }, { type: 'cut' }] })
const times = (marker: string) => [...texts('kitchen'), ...texts('bar')].filter((text) => text.includes(marker)).length
const paper = async (name: 'kitchen' | 'bar', paper: 'ok' | 'out') => {
  emulators[name].set({ paper })
  await waitFor(async () => (await printerState(name)) === (paper === 'ok' ? 'ready' : 'paper_out'), 10_000)
}
/** The job in `state`, once both printers have filed what they were sent (emulator.ts: `quiet`). */
const settled = (id: string, state: Job['state'], timeoutMs = 15_000) =>
  waitFor(async () => {
    const now = await detail(id)
    return now.job.state === state && emulators.kitchen.quiet && emulators.bar.quiet ? now : undefined
  }, timeoutMs)

describe('a destination of mode "all"', () => {
  test('made and listed with its mode; a job posted to it prints once at every ' +
    'printer, and its state summarises its children', async () => {
    expect(
      (await (await t.request('GET', `/v1/projects/${t.projectId}/destinations/everywhere`)).json()).destination,
    ).toMatchObject({ mode: 'all', printers: [ids.kitchen, ids.bar] })
    await waitFor(
      async () => (await printerState('kitchen')) === 'ready' && (await printerState('bar')) === 'ready',
      10_000,
    )
    const posted = await submitJob(t, {
      printerId: 'everywhere',
      metadata: { order: '1042' },
      document: ticket('<one>'),
    })
    expect(posted).toMatchObject({
      printerId: 'everywhere',
      state: 'PENDING',
      metadata: { order: '1042' },
      attemptCount: 0,
    })
    const done = await settled(posted.id, 'COMPLETED')
    expect(done.children!.map((child) => [child.printerId, child.state, child.metadata])).toEqual([
      [ids.kitchen, 'COMPLETED', { order: '1042' }],
      [ids.bar, 'COMPLETED', { order: '1042' }],
    ])
    expect(done.job).toMatchObject({
      id: posted.id,
      idempotencyKey: posted.idempotencyKey,
      attemptCount: 1,
      lastErrorCode: null,
    })
    expect(done.job.submittedAt).toBe([...done.children!.map((child) => child.submittedAt!)].sort().at(-1)!)
    expect(texts('kitchen')).toEqual(['<one>\n[partial cut]'])
    expect(texts('bar')).toEqual(['<one>\n[partial cut]'])
    // The children are the project's jobs (found by the order's number); the parent is found by its ID.
    const listed = (
      await (await t.request('GET', `/v1/projects/${t.projectId}/jobs?limit=10&metadata.order=1042`)).json()
    ).jobs as Job[]
    expect(listed.map((listedJob) => listedJob.id).sort()).toEqual(done.children!.map((child) => child.id).sort())
    // The dashboard's job page of a child links the job posted and the other printers' jobs.
    const admin = adminToken(t.hub.store)
    const page = await (await t.request('GET', `/admin/v1/jobs/${done.children![1]!.id}`, { key: admin })).json()
    expect(page.fanOut).toEqual({
      id: posted.id,
      destination: 'everywhere',
      state: 'COMPLETED',
      jobs: done.children!.map((child) => child.id),
    })
    expect((await (await t.request('GET', `/admin/v1/jobs/${listed[0]!.id}`, { key: admin })).json()).reprints).toEqual(
      [],
    )
    // Applications following the project heard of the parent as of any job: made, then COMPLETED.
    const events = t.hub.store.events
      .after(t.projectId, 0, 10_000)
      .flatMap((event) => ('job' in event && event.job.id === posted.id ? [event] : []))
    // Each change of its summary once, in order: PENDING, then the least advanced of its children's states, to
    // COMPLETED.
    expect(events[0]).toMatchObject({ type: 'job.created', job: { state: 'PENDING', printerId: 'everywhere' } })
    expect(events.at(-1)).toMatchObject({ type: 'job.state_changed', state: 'COMPLETED', job: { state: 'COMPLETED' } })
    for (const [i, event] of events.entries())
      if (i > 0) expect(event).toMatchObject({ type: 'job.state_changed', previousState: events[i - 1]!.job.state })
  }, 40_000)

  test('one printer out of paper: the other prints at once, the job stays ' +
    'PENDING until the last prints, and nothing prints twice', async () => {
    await paper('bar', 'out')
    const posted = await submitJob(t, { printerId: 'everywhere', maxAttempts: 10, document: ticket('<two>') })
    const kitchenDone = await waitFor(async () => {
      const now = await detail(posted.id)
      return now.children![0]!.state === 'COMPLETED' ? now : undefined
    }, 15_000)
    expect(kitchenDone.job.state).toBe('PENDING')
    expect(kitchenDone.children![1]!.state).toBe('PENDING')
    await paper('bar', 'ok')
    await settled(posted.id, 'COMPLETED')
    expect(times('<two>')).toBe(2)
    expect(texts('bar').at(-1)).toBe('<two>\n[partial cut]')
  }, 40_000)

  test('the same idempotency key again is the same job, whether posted to the ' +
    'destination or to a printer; nothing more prints', async () => {
    const body = jobBody({ printerId: 'everywhere', document: ticket('<three>') })
    const first = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body })
    expect(first.status).toBe(202)
    const made = (await first.json()).job as Job
    const again = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual({
      job: expect.objectContaining({ id: made.id, printerId: 'everywhere' }),
      duplicate: true,
    })
    const elsewhere = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: { ...body, printerId: 'kitchen' },
    })
    expect(elsewhere.status).toBe(200)
    expect((await elsewhere.json()).job.id).toBe(made.id)
    await settled(made.id, 'COMPLETED')
    expect((await detail(made.id)).children).toHaveLength(2)
    expect(times('<three>')).toBe(2)
  }, 40_000)

  test('cancelled while one printer is out of paper: the job that printed stays ' +
    'printed, the waiting one never prints, and the job says so', async () => {
    await paper('bar', 'out')
    const posted = await submitJob(t, { printerId: 'everywhere', maxAttempts: 10, document: ticket('<four>') })
    await waitFor(async () => (await detail(posted.id)).children![0]!.state === 'COMPLETED', 15_000)
    const cancelled = await t.request('POST', `/v1/projects/${t.projectId}/jobs/${posted.id}/cancel`)
    expect(cancelled.status).toBe(200)
    const body = (await cancelled.json()).job as Job
    expect(body).toMatchObject({
      id: posted.id,
      state: 'CANCELLED',
      lastErrorMessage: 'printed at kitchen; cancelled at bar',
    })
    expect((await detail(posted.id)).children!.map((child) => child.state)).toEqual(['COMPLETED', 'CANCELLED'])
    await paper('bar', 'ok')
    // A job posted after it prints at the bar: the cancelled child, before it, never did.
    const next = await submitJob(t, { printerId: 'bar', document: ticket('<after-four>') })
    await settled(next.id, 'COMPLETED')
    expect(times('<four>')).toBe(1)
    // Nothing is left to cancel: too late, said as for any job.
    const again = await t.request('POST', `/v1/projects/${t.projectId}/jobs/${posted.id}/cancel`)
    expect(again.status).toBe(200)
  }, 40_000)

  test("its time runs out at both printers: EXPIRED, with the first printer's reason", async () => {
    await Promise.all([paper('kitchen', 'out'), paper('bar', 'out')])
    const posted = await submitJob(t, {
      printerId: 'everywhere',
      maxAttempts: 10,
      expiresInMs: 10_000,
      document: ticket('<five>'),
    })
    const expired = await settled(posted.id, 'EXPIRED')
    expect(expired.children!.map((child) => child.state)).toEqual(['EXPIRED', 'EXPIRED'])
    expect(expired.job.lastErrorCode).toBe(expired.children![0]!.lastErrorCode)
    expect(expired.job.lastErrorMessage).toBe(`kitchen: ${expired.children![0]!.lastErrorMessage}`)
    await Promise.all([paper('kitchen', 'ok'), paper('bar', 'ok')])
    const next = await submitJob(t, { printerId: 'everywhere', document: ticket('<after-five>') })
    await settled(next.id, 'COMPLETED')
    expect(times('<five>')).toBe(0)
  }, 40_000)

  test("a reprint is asked of one printer's job, not of the fan-out", async () => {
    const posted = await submitJob(t, { printerId: 'everywhere', document: ticket('<six>') })
    const done = await settled(posted.id, 'COMPLETED')
    const refused = await t.request('POST', `/v1/projects/${t.projectId}/jobs/${posted.id}/reprint`, {
      body: { idempotencyKey: `reprint-${posted.id}` },
    })
    expect(refused.status).toBe(409)
    expect((await refused.json()).error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(done.children![1]!.id),
    })
    const reprint = await t.request('POST', `/v1/projects/${t.projectId}/jobs/${done.children![1]!.id}/reprint`, {
      body: { idempotencyKey: `reprint-${posted.id}` },
    })
    expect(reprint.status).toBe(202)
    const again = (await reprint.json()).job as Job
    expect(again.printerId).toBe(ids.bar)
    await settled(again.id, 'COMPLETED')
    expect(texts('bar').at(-1)).toContain('REPRINT')
    expect(times('<six>')).toBe(3)
  }, 40_000)

  test('its children never move: with the destination changed to failover, a job ' +
    'of the failover moves past a printer out of paper, and the child waiting ' +
    'there stays and prints there', async () => {
    await Promise.all([paper('kitchen', 'out'), paper('bar', 'out')])
    const posted = await submitJob(t, { printerId: 'everywhere', maxAttempts: 10, document: ticket('<seven>') })
    const changed = await t.request('PUT', `/v1/projects/${t.projectId}/destinations/everywhere`, {
      body: { mode: 'failover', printers: ['bar', 'kitchen'] },
    })
    expect(changed.status).toBe(200)
    // No printer can print: the failover's job waits at its first printer, the bar.
    const moving = await submitJob(t, { printerId: 'everywhere', maxAttempts: 10, document: ticket('<moving>') })
    expect(moving.printerId).toBe(ids.bar)
    await paper('kitchen', 'ok')
    // The failover's job moved to the kitchen and printed there: the watch ran past its threshold.
    const moved = await settled(moving.id, 'COMPLETED')
    expect(moved.job.printerId).toBe(ids.kitchen)
    const waiting = await detail(posted.id)
    expect(waiting.job.state).toBe('PENDING')
    expect(waiting.children!.map((child) => [child.printerId, child.state])).toEqual([
      [ids.kitchen, 'COMPLETED'],
      [ids.bar, 'PENDING'],
    ])
    await paper('bar', 'ok')
    await settled(posted.id, 'COMPLETED')
    expect(texts('bar').at(-1)).toBe('<seven>\n[partial cut]')
    expect(times('<seven>')).toBe(2)
    expect(times('<moving>')).toBe(1)
    expect(
      (
        await t.request('PUT', `/v1/projects/${t.projectId}/destinations/everywhere`, {
          body: { mode: 'all', printers: ['kitchen', 'bar'] },
        })
      ).status,
    ).toBe(200)
  }, 40_000)
})
