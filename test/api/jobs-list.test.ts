// GET /v1/projects/:projectId/jobs: the newest 100, newest first, with an optional state filter.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { JOB_STATES } from '../../src/protocol/job.ts'
import { driveJob } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
const created: string[] = []
beforeAll(async () => {
  t = await startTestHub({ offline: true })
  for (let i = 0; i < 105; i++) {
    const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: jobBody({ idempotencyKey: `list-${i}` }),
    })
    created.push((await response.json()).job.id)
  }
  // Two of them failed (the printer is offline: nothing else moves them on).
  for (const id of [created[3]!, created[104]!]) driveJob(t.hub.store, id, 'FAILED')
})
afterAll(() => t.stop())

const list = (query = '', key?: string) => t.request('GET', `/v1/projects/${t.projectId}/jobs${query}`, { key })

describe('listing jobs', () => {
  test('the newest 100, newest first, with the key prefix', async () => {
    const response = await list()
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(Object.keys(body).sort()).toEqual(['jobs', 'keyPrefix'])
    expect(body.jobs).toHaveLength(100)
    expect(body.jobs.map((j: { id: string }) => j.id)).toEqual(created.slice(5).reverse())
    expect(body.keyPrefix).toBe(t.apiKey.slice(0, 12))
    expect(body.keyPrefix).toMatch(/^phk_.{8}$/)
    expect(JSON.stringify(body)).not.toContain('sections')
  })

  test('the state filter is an exact match', async () => {
    const failed = await (await list('?state=FAILED')).json()
    expect(failed.jobs.map((j: { id: string }) => j.id)).toEqual([created[104], created[3]])
    const pending = await (await list('?state=PENDING')).json()
    expect(pending.jobs).toHaveLength(100)
    expect(pending.jobs.every((j: { state: string }) => j.state === 'PENDING')).toBe(true)
    for (const state of JOB_STATES.filter((s) => s !== 'FAILED' && s !== 'PENDING')) {
      expect((await (await list(`?state=${state}`)).json()).jobs).toEqual([])
    }
  })

  test('an invalid filter is 400 invalid_request', async () => {
    for (const [query, path] of [
      ['?state=pending', 'query.state'],
      ['?state=', 'query.state'],
      ['?state=DONE', 'query.state'],
      ['?state=FAILED&state=PENDING', 'query.state'],
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?cursor=nonsense', 'query.cursor'],
      ['?createdAfter=yesterday', 'query.createdAfter'],
    ]) {
      const response = await list(query)
      expect(response.status).toBe(400)
      const error = (await response.json()).error
      expect(error.code).toBe('invalid_request')
      expect(error.details[0].path).toBe(path)
    }
  })

  test("a project's list shows only its own jobs", async () => {
    const other = t.hub.store.projects.create('other')
    const key = t.hub.store.apiKeys.create(other.id, ['jobs:read'], null).secret
    const response = await t.request('GET', `/v1/projects/${other.id}/jobs`, { key })
    expect(await response.json()).toEqual({ jobs: [], keyPrefix: key.slice(0, 12) })
  })
})

// Pollers ask the same page again and again: it is answered with the bytes made for the first ask
// until a row changes (src/http/unchanged-answers.ts). These check that a kept page is never stale.
describe('a page asked again', () => {
  test('is the same answer until a job changes, then shows the change at once', async () => {
    const first = await (await list()).text()
    expect(await (await list()).text()).toBe(first)
    const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: jobBody({ idempotencyKey: 'list-again' }),
    })
    const job = (await response.json()).job
    const after = (await (await list()).json()).jobs
    expect(after[0].id).toBe(job.id)
    expect(after).toHaveLength(100)
    // A cancelled job shows as cancelled on the next ask, in the list and under its state.
    expect((await t.request('POST', `/v1/projects/${t.projectId}/jobs/${job.id}/cancel`)).status).toBe(200)
    expect((await (await list()).json()).jobs[0]).toMatchObject({ id: job.id, state: 'CANCELLED' })
    expect((await (await list('?state=CANCELLED')).json()).jobs.map((j: { id: string }) => j.id)).toEqual([job.id])
  })

  test('a change committed by another process shows on the next ask', async () => {
    const before = (await (await list()).json()).jobs[0]
    expect((await (await list()).json()).jobs[0]).toEqual(before)
    // As the CLI or a second process would: its own connection to the hub's file. In this process the hub cannot end
    // its batch while the connection waits for the write lock (one thread): it is ended first, as it would be soon.
    t.hub.store.commits.commit()
    const other = new Database(join(t.dataDir, DATABASE_FILE), { strict: true })
    try {
      other.run('PRAGMA busy_timeout = 5000')
      other.run('UPDATE jobs SET updated_at = updated_at + 60000 WHERE id = ?', [before.id])
    } finally {
      other.close()
    }
    const after = (await (await list()).json()).jobs[0]
    expect(after.id).toBe(before.id)
    expect(Date.parse(after.updatedAt) - Date.parse(before.updatedAt)).toBe(60_000)
  })

  test('each key is answered with its own prefix, each filter with its own page', async () => {
    const second = t.hub.store.apiKeys.create(t.projectId, ['jobs:read'], 'second').secret
    const mine = await (await list()).json()
    const theirs = await (await list('', second)).json()
    expect(mine.keyPrefix).toBe(t.apiKey.slice(0, 12))
    expect(theirs.keyPrefix).toBe(second.slice(0, 12))
    expect(theirs.jobs).toEqual(mine.jobs)
    expect((await (await list('?state=FAILED')).json()).jobs.map((j: { id: string }) => j.id)).toEqual([
      created[104],
      created[3],
    ])
    expect((await (await list()).json()).jobs).toEqual(mine.jobs)
  })

  test('the answer carries the headers of every answer', async () => {
    await list()
    const response = await list()
    expect(response.headers.get('content-type')).toBe('application/json;charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('x-request-id')).toMatch(/^req_/)
  })
})
