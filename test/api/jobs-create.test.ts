// POST /v1/projects/:projectId/jobs with good input: 202, the projection, idempotency, limits.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { jobRule } from '../../src/protocol/job.ts'
import { validate } from '../../src/protocol/rules.ts'
import { driveJob, jobCount, refuseJobInserts, storedJobState } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
/** The hub's log (its lines besides the request lines). */
const events: string[] = []
const builtinAgentId = () => t.hub.store.agents.builtin()!.id
beforeAll(async () => {
  t = await startTestHub({ offline: true, events: (line) => events.push(line) })
})
afterAll(() => t.stop())

const jobsPath = () => `/v1/projects/${t.projectId}/jobs`
/** The stored state of a job, read straight from the database. */
const storedState = (idempotencyKey: unknown) => storedJobState(t.hub.store, t.projectId, idempotencyKey as string)
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('creating a job', () => {
  test('202 with the 15-field projection of a new PENDING job', async () => {
    const body = jobBody()
    const before = Date.now()
    const response = await t.request('POST', jobsPath(), { body })
    expect(response.status).toBe(202)
    const { job, duplicate } = await response.json()
    expect(duplicate).toBe(false)
    expect(Object.keys(job).sort()).toEqual(
      [
        'id',
        'projectId',
        'printerId',
        'idempotencyKey',
        'state',
        'metadata',
        'expiresAt',
        'attemptCount',
        'maxAttempts',
        'lastErrorCode',
        'lastErrorMessage',
        'receivedAt',
        'submittedAt',
        'createdAt',
        'updatedAt',
      ].sort(),
    )
    const printer = t.hub.store.printers.resolve(t.projectId, 'demo')!
    expect(job).toMatchObject({
      projectId: t.projectId,
      printerId: printer.id,
      idempotencyKey: body.idempotencyKey,
      state: 'PENDING',
      metadata: null,
      attemptCount: 0,
      maxAttempts: 5,
      lastErrorCode: null,
      lastErrorMessage: null,
      receivedAt: null,
      submittedAt: null,
    })
    expect(validate(jobRule, job)).toEqual({ ok: true, value: job })
    expect(job.id).toMatch(/^job_[0-9a-f]{32}$/)
    for (const field of ['createdAt', 'updatedAt', 'expiresAt']) expect(job[field]).toMatch(ISO_MS)
    expect(Date.parse(job.createdAt)).toBeGreaterThanOrEqual(before - 1)
    expect(Date.parse(job.expiresAt) - Date.parse(job.createdAt)).toBe(86_400_000)
    expect(job.updatedAt).toBe(job.createdAt)
    // The document is stored, and never part of the projection.
    expect(t.hub.store.jobs.document(job.id)).toEqual(body.document as any)
    expect(JSON.stringify(job)).not.toContain('sections')
  })

  test('metadata, expiresInMs and maxAttempts are honoured', async () => {
    const metadata = { order: '1042', table: '12', 'ünïcode key': 'värde' }
    const response = await t.request('POST', jobsPath(), {
      body: jobBody({ metadata, expiresInMs: 10_000, maxAttempts: 1 }),
    })
    expect(response.status).toBe(202)
    const { job } = await response.json()
    expect(job.metadata).toEqual(metadata)
    expect(job.maxAttempts).toBe(1)
    expect(Date.parse(job.expiresAt) - Date.parse(job.createdAt)).toBe(10_000)
    const longest = await t.request('POST', jobsPath(), {
      body: jobBody({ expiresInMs: 2_592_000_000, maxAttempts: 10, metadata: null }),
    })
    expect(longest.status).toBe(202)
    expect((await longest.json()).job.metadata).toBeNull()
  })

  test('values at every upper limit are accepted', async () => {
    const printer = t.hub.store.printers.add({
      projectId: t.projectId,
      remoteId: 'p'.repeat(256),
      name: null,
      connection: 'virtual',
      profile: 'generic-80mm',
      width: 80,
      agentId: builtinAgentId(),
    })!
    const metadata = Object.fromEntries(
      Array.from({ length: 32 }, (_, i) => [`${i}`.padStart(64, 'k'), 'v'.repeat(1_000)]),
    )
    const body = jobBody({
      printerId: printer.remoteId,
      idempotencyKey: 'i'.repeat(256),
      metadata,
      expiresInMs: 2_592_000_000,
      maxAttempts: 10,
    })
    const response = await t.request('POST', jobsPath(), { body })
    expect(response.status).toBe(202)
    const { job } = await response.json()
    expect(job).toMatchObject({ printerId: printer.id, idempotencyKey: 'i'.repeat(256), metadata, maxAttempts: 10 })
    const lowest = await t.request('POST', jobsPath(), {
      body: jobBody({ idempotencyKey: 'i', expiresInMs: 10_000, maxAttempts: 1, metadata: {} }),
    })
    expect(lowest.status).toBe(202)
    expect((await lowest.json()).job.metadata).toEqual({})
  })

  test('a failed commit is a 500 in the envelope, without internals, and no job', async () => {
    const mend = refuseJobInserts(t.hub.store, 'disk I/O error at /var/lib/secret')
    try {
      const body = jobBody()
      const response = await t.request('POST', jobsPath(), { body })
      expect(response.status).toBe(500)
      const text = await response.text()
      expect(JSON.parse(text)).toEqual({
        error: {
          code: 'server_error',
          message: 'The request could not be completed.',
          requestId: response.headers.get('x-request-id')!,
        },
      })
      expect(text).not.toContain('secret')
      expect(storedState(body.idempotencyKey)).toBeUndefined()
      // The operator's side: one error line with the request ID the answer carried, and what went wrong.
      const requestId = response.headers.get('x-request-id')!
      const lines = events.filter((line) => line.includes(`request=${requestId}`))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(
        new RegExp(
          `Z error api request=${requestId} error="[^"]*disk I/O error at /var/lib/secret" stack=".*" internal error$`,
        ),
      )
    } finally {
      mend()
    }
    // The hub goes on taking jobs.
    expect((await t.request('POST', jobsPath(), { body: jobBody() })).status).toBe(202)
  })

  test('the printer may be named by record ID or by remote ID', async () => {
    const printer = t.hub.store.printers.resolve(t.projectId, 'demo')!
    const byRecord = await t.request('POST', jobsPath(), { body: jobBody({ printerId: printer.id }) })
    expect(byRecord.status).toBe(202)
    expect((await byRecord.json()).job.printerId).toBe(printer.id)
  })

  test('an unknown or removed printer is 404 not_found and creates nothing', async () => {
    const unknown = await t.request('POST', jobsPath(), { body: jobBody({ printerId: 'bar' }) })
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error).toMatchObject({
      code: 'not_found',
      message: 'This project has no printer "bar".',
    })
    const other = t.hub.store.projects.create('elsewhere')
    const foreign = t.hub.store.printers.add({
      projectId: other.id,
      remoteId: 'bar',
      name: null,
      connection: 'virtual',
      profile: 'generic-80mm',
      width: 80,
      agentId: builtinAgentId(),
    })!
    expect((await t.request('POST', jobsPath(), { body: jobBody({ printerId: foreign.id }) })).status).toBe(404)
    const gone = t.hub.store.printers.add({
      projectId: t.projectId,
      remoteId: 'gone',
      name: null,
      connection: 'virtual',
      profile: 'generic-80mm',
      width: 80,
      agentId: builtinAgentId(),
    })!
    t.hub.store.printers.remove(gone.id)
    const body = jobBody({ printerId: 'gone' })
    expect((await t.request('POST', jobsPath(), { body })).status).toBe(404)
    expect(storedState(body.idempotencyKey)).toBeUndefined()
  })
})

describe('idempotency', () => {
  test('the same key returns the existing job with 200 and duplicate: true, whatever the body', async () => {
    const first = await t.request('POST', jobsPath(), { body: jobBody({ idempotencyKey: 'order-77' }) })
    expect(first.status).toBe(202)
    const created = (await first.json()).job
    const again = await t.request('POST', jobsPath(), {
      body: jobBody({
        idempotencyKey: 'order-77',
        metadata: { changed: 'yes' },
        document: { width: 58, sections: [{ type: 'divider' }] },
      }),
    })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual({ job: created, duplicate: true })
  })

  test('a duplicate is found even after its printer was removed', async () => {
    const printer = t.hub.store.printers.add({
      projectId: t.projectId,
      remoteId: 'bar-2',
      name: null,
      connection: 'virtual',
      profile: 'generic-80mm',
      width: 80,
      agentId: builtinAgentId(),
    })!
    const body = jobBody({ printerId: 'bar-2' })
    expect((await t.request('POST', jobsPath(), { body })).status).toBe(202)
    t.hub.store.printers.remove(printer.id)
    const again = await t.request('POST', jobsPath(), { body })
    expect(again.status).toBe(200)
    expect((await again.json()).duplicate).toBe(true)
  })

  test('idempotency keys are per project', async () => {
    const other = t.hub.store.projects.create('second')
    const otherKey = t.hub.store.apiKeys.create(other.id, ['jobs:write'], null).secret
    t.hub.store.printers.add({
      projectId: other.id,
      remoteId: 'demo',
      name: null,
      connection: 'virtual',
      profile: 'generic-80mm',
      width: 80,
      agentId: builtinAgentId(),
    })
    const body = jobBody({ idempotencyKey: 'shared-key' })
    expect((await t.request('POST', jobsPath(), { body })).status).toBe(202)
    expect((await t.request('POST', `/v1/projects/${other.id}/jobs`, { body, key: otherKey })).status).toBe(202)
  })

  test('50 simultaneous submissions with one key create exactly one job', async () => {
    const body = jobBody({ idempotencyKey: 'burst-key' })
    const responses = await Promise.all(Array.from({ length: 50 }, () => t.request('POST', jobsPath(), { body })))
    const results = await Promise.all(responses.map(async (r) => ({ status: r.status, body: await r.json() })))
    expect(results.filter((r) => r.status === 202)).toHaveLength(1)
    expect(results.filter((r) => r.status === 200)).toHaveLength(49)
    expect(new Set(results.map((r) => r.body.job.id)).size).toBe(1)
    expect(results.every((r) => r.body.duplicate === (r.status === 200))).toBe(true)
    expect(jobCount(t.hub.store, 'burst-key')).toBe(1)
  })

  test('200 simultaneous distinct submissions are all committed', async () => {
    const bodies = Array.from({ length: 200 }, (_, i) => jobBody({ idempotencyKey: `many-${i}` }))
    const responses = await Promise.all(bodies.map((body) => t.request('POST', jobsPath(), { body })))
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(202))
    const jobs = await Promise.all(responses.map((r) => r.json()))
    expect(new Set(jobs.map((j) => j.job.id)).size).toBe(200)
    for (const body of bodies) expect(storedState(body.idempotencyKey)).toBe('PENDING')
  })
})

describe('entitlement limit', () => {
  test('a project at its limit of unfinished jobs gets 429 entitlement_limit with Retry-After', async () => {
    const hub = await startTestHub({ env: { PRINTHUB_MAX_OPEN_JOBS: '3' }, offline: true })
    try {
      const path = `/v1/projects/${hub.projectId}/jobs`
      const accepted = [jobBody(), jobBody(), jobBody()]
      const ids: string[] = []
      for (const body of accepted) {
        const response = await hub.request('POST', path, { body })
        expect(response.status).toBe(202)
        ids.push((await response.json()).job.id)
      }
      const refused = await hub.request('POST', path, { body: jobBody() })
      expect(refused.status).toBe(429)
      expect(refused.headers.get('retry-after')).toBe('30')
      const error = (await refused.json()).error
      expect(error.code).toBe('entitlement_limit')
      expect(error.message).toContain('3 unfinished jobs')
      // A retry of an accepted job is still answered: it creates nothing.
      expect((await hub.request('POST', path, { body: accepted[0] })).status).toBe(200)
      // A finished job frees its place.
      driveJob(hub.hub.store, ids[1]!, 'COMPLETED')
      expect((await hub.request('POST', path, { body: jobBody() })).status).toBe(202)
      expect(hub.hub.store.projects.get(hub.projectId)!.openJobs).toBe(3)
    } finally {
      await hub.stop()
    }
  })
})
