// The job list's opt-in paging and filters: ?limit=N or ?cursor=C answer { jobs, keyPrefix,
// nextCursor }; printerId, createdAfter, createdBefore and metadata.KEY=VALUE filter; without limit
// and cursor the answer keeps exactly the specification's shape.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { pagedJobsResponseRule } from '../../src/protocol/job.ts'
import { validate } from '../../src/protocol/rules.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
/** The hub's clock runs this far ahead of the wall clock: each job below is a minute after the one before. */
let offset = 0
const jobs: Job[] = []
beforeAll(async () => {
  t = await startTestHub({ offline: true, now: () => Date.now() + offset })
  t.hub.store.printers.add({
    projectId: t.projectId,
    remoteId: 'bar',
    name: null,
    connection: 'virtual://bar?mode=offline',
    profile: 'generic-80mm',
    width: 80,
    agentId: t.hub.store.agents.builtin()!.id,
  })
  for (let i = 0; i < 45; i++) {
    offset += 60_000
    const body = jobBody({
      printerId: i % 3 === 0 ? 'bar' : 'demo',
      metadata: { order: `${1000 + i}`, table: `${i % 4}` },
    })
    const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body })
    expect(response.status).toBe(202)
    jobs.push((await response.json()).job)
  }
})
afterAll(() => t.stop())

async function list(query: string): Promise<{ status: number; body: Record<string, any> }> {
  const response = await t.request('GET', `/v1/projects/${t.projectId}/jobs${query}`)
  return { status: response.status, body: await response.json() }
}

/** Every page from `query`, following nextCursor; the jobs' IDs in order. */
async function follow(query: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = []
  let next: string | null = query
  let pages = 0
  while (next !== null) {
    const { status, body } = await list(next)
    expect(status).toBe(200)
    expect(validate(pagedJobsResponseRule, body).ok).toBe(true)
    expect(Object.keys(body)).toEqual(['jobs', 'keyPrefix', 'nextCursor'])
    ids.push(...body.jobs.map((j: Job) => j.id))
    pages++
    next =
      body.nextCursor === null
        ? null
        : `?cursor=${body.nextCursor}&limit=${new URLSearchParams(query.slice(1)).get('limit') ?? 100}`
  }
  return { ids, pages }
}

const newestFirst = (pick: (job: Job, i: number) => boolean) =>
  jobs
    .filter(pick)
    .map((j) => j.id)
    .reverse()

describe('paging the job list', () => {
  test('?limit=N pages through every job, newest first, none twice; the last page says null', async () => {
    const { ids, pages } = await follow('?limit=10')
    expect(ids).toEqual(newestFirst(() => true))
    expect(pages).toBe(5)
  })

  test(
    'without limit and cursor, the specification`s answer exactly: { jobs, ' + 'keyPrefix }, the newest 100',
    async () => {
      const { body } = await list('')
      expect(Object.keys(body)).toEqual(['jobs', 'keyPrefix'])
      const filtered = await list('?metadata.order=1007')
      expect(Object.keys(filtered.body)).toEqual(['jobs', 'keyPrefix'])
      expect(filtered.body.jobs.map((j: Job) => j.id)).toEqual([jobs[7]!.id])
    },
  )

  test('a cursor stays right while new jobs arrive: the next page goes on after the last job seen', async () => {
    const first = await list('?limit=5')
    offset += 60_000
    const newer = (await (await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody() })).json()).job
    const second = await list(`?cursor=${first.body.nextCursor}&limit=5`)
    expect([...first.body.jobs, ...second.body.jobs].map((j: Job) => j.id)).toEqual(
      newestFirst(() => true).slice(0, 10),
    )
    expect(second.body.jobs.map((j: Job) => j.id)).not.toContain(newer.id)
    jobs.push(newer)
  })

  test(
    'filters: a printer by name or record ID, a time range, metadata entries ' +
      '(all of them), a state; cursors carry them',
    async () => {
      const bar = t.hub.store.printers.resolve(t.projectId, 'bar')!.id
      const within = jobs.slice(0, 45)
      const at = (i: number) => jobs[i]!.createdAt
      const cases: [string, (job: Job, i: number) => boolean][] = [
        ['?printerId=bar&limit=4', (_, i) => i % 3 === 0],
        [`?printerId=${bar}&limit=4`, (_, i) => i % 3 === 0],
        [`?createdAfter=${at(10)}&createdBefore=${at(20)}&limit=3`, (_, i) => i > 10 && i < 20],
        ['?metadata.order=1012&limit=3', (_, i) => i === 12],
        ['?metadata.table=2&printerId=bar&limit=2', (_, i) => i % 4 === 2 && i % 3 === 0],
        ['?metadata.table=1&metadata.order=1005&limit=2', (_, i) => i === 5],
        ['?metadata.table=1&metadata.order=1006&limit=2', () => false],
        ['?state=PENDING&metadata.table=3&limit=5', (_, i) => i % 4 === 3],
        ['?printerId=nowhere&limit=5', () => false],
      ]
      for (const [query, pick] of cases)
        expect([query, (await follow(query)).ids]).toEqual([
          query,
          within
            .filter(pick)
            .map((j) => j.id)
            .reverse(),
        ])
    },
  )

  test('bad paging and filters are 400 invalid_request naming each problem, and nothing else is answered', async () => {
    const { body: first } = await list('?limit=2')
    for (const [query, paths] of [
      ['?limit=0', ['query.limit']],
      ['?limit=abc', ['query.limit']],
      ['?limit=1&limit=2', ['query.limit']],
      ['?cursor=not-a-cursor', ['query.cursor']],
      [`?cursor=${Buffer.from('{"v":1,"before":"x"}').toString('base64url')}`, ['query.cursor']],
      [`?cursor=${Buffer.from('{"v":2,"before":5}').toString('base64url')}`, ['query.cursor']],
      [`?cursor=${Buffer.from('{"v":1,"before":5,"extra":1}').toString('base64url')}`, ['query.cursor']],
      [`?cursor=${first.nextCursor}&state=PENDING`, ['query.state']],
      [`?cursor=${first.nextCursor}&metadata.order=1`, ['query.metadata.order']],
      ['?createdAfter=yesterday', ['query.createdAfter']],
      ['?createdBefore=2026-11-21', ['query.createdBefore']],
      ['?metadata.=x', ['query.metadata.']],
      ['?metadata.order=1&metadata.order=2', ['query.metadata.order']],
      [`?${['a', 'b', 'c', 'd', 'e'].map((k) => `metadata.${k}=1`).join('&')}`, ['query.metadata']],
      [`?metadata.${'k'.repeat(65)}=1`, [`query.metadata.${'k'.repeat(65)}`]],
      [`?printerId=${'p'.repeat(257)}`, ['query.printerId']],
      ['?page=2', ['query.page']],
      ['?limit=0&createdAfter=soon', ['query.limit', 'query.createdAfter']],
    ] as const) {
      const { status, body } = await list(query)
      expect([query, status]).toEqual([query, 400])
      expect(body.error.code).toBe('invalid_request')
      expect([query, body.error.details.map((d: { path: string }) => d.path).sort()]).toEqual([
        query,
        [...paths].sort(),
      ])
    }
  })
})
