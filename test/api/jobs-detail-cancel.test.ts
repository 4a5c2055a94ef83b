// GET /v1/projects/:projectId/jobs/:jobId and POST …/cancel, beside the specification's routes:
// one job as the list shows it; an application's cancellation, which wins or loses against the
// dispatch exactly once, and a cancelled job never prints.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { jobInState, setPrinterConnection } from '../support/fixtures.ts'
import { addBuiltinPrinter, startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { previewOf } from '../support/virtual.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
/** A second project with its own key, to show projects do not see each other's jobs. */
let other: { projectId: string; apiKey: string }
beforeAll(async () => {
  t = await startTestHub()
  const store = t.hub.store
  const project = store.projects.create('other')
  other = { projectId: project.id, apiKey: store.apiKeys.create(project.id, ['jobs:read', 'jobs:write'], null).secret }
})
afterAll(() => t.stop())

const getJob = (id: string, options: { project?: string; key?: string } = {}) =>
  t.request('GET', `/v1/projects/${options.project ?? t.projectId}/jobs/${id}`, { key: options.key })
const cancel = (id: string, options: { project?: string; key?: string } = {}) =>
  t.request('POST', `/v1/projects/${options.project ?? t.projectId}/jobs/${id}/cancel`, { key: options.key })

describe('one job', () => {
  let offlinePrinter: string
  beforeAll(async () => {
    offlinePrinter = await addBuiltinPrinter(t, 'closed', 'virtual://closed?mode=offline')
  })

  test('is the projection the list shows, with its request ID', async () => {
    const job = await submitJob(t, { printerId: 'closed', metadata: { order: '1042' } })
    const response = await getJob(job.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('x-request-id')).toMatch(/^req_/)
    const body = await response.json()
    expect(Object.keys(body)).toEqual(['job'])
    const listed = (await (await t.request('GET', `/v1/projects/${t.projectId}/jobs`)).json()).jobs.find(
      (j: Job) => j.id === job.id,
    )
    expect(body.job).toEqual(listed)
    expect(Object.keys(body.job).sort()).toEqual([
      'attemptCount',
      'createdAt',
      'expiresAt',
      'id',
      'idempotencyKey',
      'lastErrorCode',
      'lastErrorMessage',
      'maxAttempts',
      'metadata',
      'printerId',
      'projectId',
      'receivedAt',
      'state',
      'submittedAt',
      'updatedAt',
    ])
    expect(body.job).toMatchObject({ id: job.id, printerId: offlinePrinter, metadata: { order: '1042' } })
  })

  test('an unknown job, and a job of another project, are 404 not_found: never 403', async () => {
    const job = await submitJob(t, { printerId: 'closed' })
    for (const response of [
      await getJob('job_00000000000000000000000000000000'),
      await getJob('nonsense'),
      await getJob(job.id, { project: other.projectId, key: other.apiKey }),
    ]) {
      expect(response.status).toBe(404)
      const { error } = await response.json()
      expect(error.code).toBe('not_found')
      expect(error.requestId).toBe(response.headers.get('x-request-id'))
    }
    // The other project's cancel does not reach it either, and it stays as it was.
    expect((await cancel(job.id, { project: other.projectId, key: other.apiKey })).status).toBe(404)
    expect(t.hub.store.jobs.get(job.id)!.state).toBe('PENDING')
  })

  test('the spec`s auth rules: no key 401, another project`s key 401, a key without the scope 403', async () => {
    const job = await submitJob(t, { printerId: 'closed' })
    expect((await getJob(job.id, { key: null as unknown as string })).status).toBe(401)
    expect((await getJob(job.id, { key: other.apiKey })).status).toBe(401)
    const writeOnly = t.hub.store.apiKeys.create(t.projectId, ['jobs:write'], null).secret
    const readOnly = t.hub.store.apiKeys.create(t.projectId, ['jobs:read'], null).secret
    expect((await getJob(job.id, { key: writeOnly })).status).toBe(403)
    expect((await cancel(job.id, { key: readOnly })).status).toBe(403)
    expect((await getJob(job.id, { key: readOnly })).status).toBe(200)
    expect(t.hub.store.jobs.get(job.id)!.state).toBe('PENDING')
  })

  test('a query parameter is refused: 400 invalid_request naming it', async () => {
    const job = await submitJob(t, { printerId: 'closed' })
    for (const response of [
      await t.request('GET', `/v1/projects/${t.projectId}/jobs/${job.id}?state=PENDING`),
      await t.request('POST', `/v1/projects/${t.projectId}/jobs/${job.id}/cancel?force=1`),
    ]) {
      expect(response.status).toBe(400)
      expect((await response.json()).error.details).toEqual([
        { path: expect.stringMatching(/^query\.(state|force)$/), message: 'is not an allowed query parameter' },
      ])
    }
    expect(t.hub.store.jobs.get(job.id)!.state).toBe('PENDING')
  })
})

describe('cancelling', () => {
  test(
    'a PENDING job: 200 CANCELLED at once; again: 200, the same; it is never ' + 'delivered once its printer is back',
    async () => {
      const printerId = await addBuiltinPrinter(t, 'later', 'virtual://later?mode=offline')
      const job = await submitJob(t, {
        printerId: 'later',
        document: { width: 80, sections: [{ type: 'text', value: 'never printed' }] },
      })
      const first = await cancel(job.id)
      expect(first.status).toBe(200)
      const { job: cancelled } = await first.json()
      expect(cancelled).toMatchObject({ id: job.id, state: 'CANCELLED', attemptCount: 0 })
      const again = await cancel(job.id)
      expect(again.status).toBe(200)
      expect((await again.json()).job).toEqual(cancelled)
      // The printer comes back; a job after the cancelled one prints, the cancelled one never.
      setPrinterConnection(t.hub.store, printerId, 'virtual://later')
      const next = await submitJob(t, {
        printerId: 'later',
        document: { width: 80, sections: [{ type: 'text', value: 'printed' }] },
      })
      await waitFor(() => t.hub.store.jobs.get(next.id)!.state === 'COMPLETED', 5_000)
      expect(t.hub.virtualPrinters.printed('later').map((o) => previewOf(o).text)).toEqual([['printed']])
      expect(t.hub.store.jobs.get(job.id)!).toMatchObject({ state: 'CANCELLED', attemptCount: 0 })
    },
  )

  test(
    'a job its agent holds, at the printer, or finished: 409 ' +
      'job_not_cancellable with its state, and it is left as it was',
    async () => {
      const printerId = t.hub.store.printers.resolve(t.projectId, 'closed')!.id
      for (const state of ['DELIVERED', 'PRINTING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const) {
        const driven = jobInState(t.hub.store, { projectId: t.projectId, printerId }, state)
        const job = driven
        const response = await cancel(job.id)
        expect([state, response.status]).toEqual([state, 409])
        const { error } = await response.json()
        expect(error).toMatchObject({ code: 'job_not_cancellable', details: [{ path: 'job.state', message: state }] })
        expect(error.message).toStartWith(`The job is ${state}: `)
        expect(t.hub.store.jobs.get(job.id)).toEqual(driven)
      }
    },
  )

  test('races with the dispatch: each one won by exactly one side, and a cancelled job never prints', async () => {
    // Sixty jobs wait for a printer that is off. It comes back, and its queue goes to its agent
    // one job at a time (each once the agent confirmed the one before), while every job is
    // cancelled, in a shuffled order, one a millisecond: the cancellations meet jobs still
    // waiting, on their way to the agent, and with it already.
    const printerId = await addBuiltinPrinter(t, 'race', 'virtual://race?mode=offline')
    const jobs: { id: string; marker: string }[] = []
    for (let i = 0; i < 60; i++) {
      const marker = `race ticket ${i}`
      jobs.push({
        id: (
          await submitJob(t, {
            printerId: 'race',
            document: { width: 80, sections: [{ type: 'text', value: marker }, { type: 'cut' }] },
          })
        ).id,
        marker,
      })
    }
    const order = jobs
      .map((job, i) => ({ job, key: (i * 37) % 61 }))
      .sort((a, b) => a.key - b.key)
      .map((entry) => entry.job)
    setPrinterConnection(t.hub.store, printerId, 'virtual://race')
    // The agent finds the printer back at its next status check: from then on the queue drains.
    await waitFor(() => t.hub.store.jobs.get(jobs[0]!.id)!.state !== 'PENDING', 5_000)
    const started = performance.now()
    const outcomes = await Promise.all(
      order.map(async (job, i) => {
        await Bun.sleep(Math.max(0, started + i - performance.now()))
        const response = await cancel(job.id)
        const body = await response.json()
        if (response.status === 409) expect(body.error.code).toBe('job_not_cancellable')
        else expect(body.job.id).toBe(job.id)
        return { ...job, status: response.status }
      }),
    )
    const finals = await waitFor(() => {
      const now = outcomes.map((o) => t.hub.store.jobs.get(o.id)!)
      return now.every((j) => j.state === 'CANCELLED' || j.state === 'COMPLETED') ? now : undefined
    }, 10_000)
    const printed = t.hub.virtualPrinters.printed('race').map((o) => previewOf(o).text[0])
    for (const [i, outcome] of outcomes.entries()) {
      const times = printed.filter((line) => line === outcome.marker).length
      const state = finals[i]!.state
      // 200: cancelled, never printed. 409: too late, printed once. (202 only when an agent is silent.)
      if (outcome.status === 200) expect([outcome.marker, state, times]).toEqual([outcome.marker, 'CANCELLED', 0])
      else expect([outcome.marker, outcome.status, state, times]).toEqual([outcome.marker, 409, 'COMPLETED', 1])
    }
    // Both sides won some: the test reached the race it is about.
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(0)
    expect(outcomes.filter((o) => o.status === 409).length).toBeGreaterThan(0)
  })
})
