// The job list's fanOut=true: the parents of jobs posted to a destination of mode "all", each as
// GET …/jobs/:jobId answers it, newest first, with the list's other filters and its paging; the
// list without it stays the jobs that print (the children among them).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { type Job, listJobsResponseRule, pagedJobsResponseRule } from '../../src/protocol/job.ts'
import { validate } from '../../src/protocol/rules.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
let offset = 0
/** The parents, oldest first: to "everywhere" (i even) or "drinks" (i odd), metadata order 2000+i. */
const parents: Job[] = []
const others: Job[] = []
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
  for (const name of ['everywhere', 'drinks'])
    expect(
      (
        await t.request('POST', `/v1/projects/${t.projectId}/destinations`, {
          body: { name, mode: 'all', printers: ['demo', 'bar'] },
        })
      ).status,
    ).toBe(201)
  for (let i = 0; i < 9; i++) {
    offset += 60_000
    const posted = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: jobBody({ printerId: i % 2 === 0 ? 'everywhere' : 'drinks', metadata: { order: `${2000 + i}` } }),
    })
    expect(posted.status).toBe(202)
    parents.push((await posted.json()).job)
    const other = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: jobBody({ printerId: 'bar', metadata: { order: `${2000 + i}` } }),
    })
    others.push((await other.json()).job)
  }
})
afterAll(() => t.stop())

async function list(query: string): Promise<{ status: number; body: Record<string, any> }> {
  const response = await t.request('GET', `/v1/projects/${t.projectId}/jobs${query}`)
  return { status: response.status, body: await response.json() }
}

/** Every page from `query`, following nextCursor: the jobs' IDs in order. */
async function follow(query: string): Promise<string[]> {
  const ids: string[] = []
  let next: string | null = query
  while (next !== null) {
    const { status, body } = await list(next)
    expect([next, status]).toEqual([next, 200])
    expect(validate(pagedJobsResponseRule, body).ok).toBe(true)
    ids.push(...body.jobs.map((j: Job) => j.id))
    next = body.nextCursor === null ? null : `?cursor=${body.nextCursor}&limit=2`
  }
  return ids
}

const newestFirst = (pick: (job: Job, i: number) => boolean) =>
  parents
    .filter(pick)
    .map((j) => j.id)
    .reverse()

describe('the job list of fan-out parents', () => {
  test(
    '?fanOut=true lists the parents, newest first, each as its own page ' +
      'answers it; without it, the jobs that print',
    async () => {
      const { status, body } = await list('?fanOut=true')
      expect(status).toBe(200)
      expect(Object.keys(body)).toEqual(['jobs', 'keyPrefix'])
      expect(validate(listJobsResponseRule, body).ok).toBe(true)
      expect(body.jobs.map((j: Job) => j.id)).toEqual(newestFirst(() => true))
      for (const job of body.jobs as Job[]) {
        const detail = await (await t.request('GET', `/v1/projects/${t.projectId}/jobs/${job.id}`)).json()
        expect(job).toEqual(detail.job)
        expect(detail.children).toHaveLength(2)
      }
      // The list as it always was: children and the other jobs, no parent.
      const plain = (await list('')).body.jobs.map((j: Job) => j.id)
      expect(plain).toHaveLength(27)
      expect(plain.filter((id: string) => parents.some((p) => p.id === id))).toEqual([])
      expect((await list('?fanOut=false')).body.jobs.map((j: Job) => j.id)).toEqual(plain)
    },
  )

  test(
    'with the other filters and paging: the destination (printerId), ' +
      'metadata, a state, a time range; cursors carry fanOut',
    async () => {
      const at = (i: number) => parents[i]!.createdAt
      const cases: [string, (job: Job, i: number) => boolean][] = [
        ['?fanOut=true&limit=2', () => true],
        ['?fanOut=true&printerId=drinks&limit=2', (_, i) => i % 2 === 1],
        ['?fanOut=true&metadata.order=2004&limit=2', (_, i) => i === 4],
        ['?fanOut=true&state=PENDING&limit=2', () => true],
        ['?fanOut=true&state=COMPLETED&limit=2', () => false],
        [`?fanOut=true&createdAfter=${at(2)}&createdBefore=${at(7)}&limit=2`, (_, i) => i > 2 && i < 7],
        ['?fanOut=true&printerId=bar&limit=2', () => false],
      ]
      for (const [query, pick] of cases) expect([query, await follow(query)]).toEqual([query, newestFirst(pick)])
      // Without paging, a filtered list of parents keeps the specification's shape.
      const { body } = await list('?fanOut=true&printerId=everywhere')
      expect(Object.keys(body)).toEqual(['jobs', 'keyPrefix'])
      expect(body.jobs.map((j: Job) => j.id)).toEqual(newestFirst((_, i) => i % 2 === 0))
    },
  )

  test("the OpenAPI document names it among the list's query parameters", async () => {
    const document = await (await fetch(`${t.url}/openapi.json`)).json()
    const parameters = document.paths['/v1/projects/{projectId}/jobs'].get.parameters as {
      name: string
      in: string
      schema: { type?: string }
    }[]
    expect(parameters.find((p) => p.name === 'fanOut')).toMatchObject({ in: 'query', schema: { type: 'boolean' } })
  })

  test('a bad fanOut is 400 invalid_request naming it; a cursor carries it, so it cannot come beside one', async () => {
    const { body: first } = await list('?fanOut=true&limit=2')
    for (const [query, paths] of [
      ['?fanOut=yes', ['query.fanOut']],
      ['?fanOut=', ['query.fanOut']],
      ['?fanOut=true&fanOut=true', ['query.fanOut']],
      [`?cursor=${first.nextCursor}&fanOut=true`, ['query.fanOut']],
      [`?cursor=${Buffer.from('{"v":1,"before":5,"fanOut":"yes"}').toString('base64url')}`, ['query.cursor']],
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
