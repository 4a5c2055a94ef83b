// GET /v1/projects/:projectId/jobs: the newest 100, newest first, with an optional state filter.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { JOB_STATES } from '../../src/protocol/job.ts'
import { driveJob } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
const created: string[] = []
beforeAll(async () => {
  t = await startTestHub({ offline: true })
  for (let i = 0; i < 105; i++) {
    const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody({ idempotencyKey: `list-${i}` }) })
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
