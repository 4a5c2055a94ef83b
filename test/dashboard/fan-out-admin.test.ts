// The admin API of the dashboard's jobs page for jobs posted to every printer of a destination:
// the list of those parents (fanOut=true) with the page's other filters, and a parent's page with
// each printer's job, its state and its printer; staff may see them, as they see any job.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { adminToken } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let hub: TestHub
let staff: string
let bar: string
/**
 * Oldest first: to "everywhere" (demo, bar), metadata order 3000+i; the oldest one's bar job cancelled, the middle
 * one's both.
 */
const parents: Job[] = []
let plain: Job

beforeAll(async () => {
  hub = await startTestHub({ offline: true })
  staff = adminToken(hub.hub.store, 'staff')
  bar = hub.hub.store.printers.add({
    projectId: hub.projectId,
    remoteId: 'bar',
    name: 'Bar printer',
    connection: 'virtual://bar?mode=offline',
    profile: 'generic-80mm',
    width: 80,
    agentId: hub.hub.store.agents.builtin()!.id,
  })!.id
  expect(
    (
      await hub.request('POST', `/v1/projects/${hub.projectId}/destinations`, {
        body: { name: 'everywhere', mode: 'all', printers: ['demo', 'bar'] },
      })
    ).status,
  ).toBe(201)
  for (let i = 0; i < 3; i++) {
    const posted = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
      body: jobBody({ printerId: 'everywhere', metadata: { order: `${3000 + i}` } }),
    })
    expect(posted.status).toBe(202)
    parents.push((await posted.json()).job)
  }
  plain = (
    await (
      await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
        body: jobBody({ metadata: { order: '3001' } }),
      })
    ).json()
  ).job
  const cancelled = [
    ...hub.hub.store.fanOuts.children(parents[1]!.id),
    hub.hub.store.fanOuts.children(parents[0]!.id).find((child) => child.printerId === bar)!,
  ]
  for (const child of cancelled)
    expect((await admin('POST', `/jobs/${child.id}/cancel`, adminToken(hub.hub.store))).status).toBe(200)
})
afterAll(() => hub.stop())

async function admin<T = any>(method: string, path: string, key = staff): Promise<{ status: number; body: T }> {
  const response = await hub.request(method, `/admin/v1${path}`, { key })
  return { status: response.status, body: (await response.json()) as T }
}
const ids = (jobs: Job[]) => jobs.map((job) => job.id)
const newestFirst = (...indexes: number[]) => indexes.map((i) => parents[i]!.id)

describe('fan-outs in the admin API', () => {
  test(
    "fanOut=true lists the parents, newest first, with the jobs page's " + 'filters; without it, the jobs that print',
    async () => {
      const list = async (query: string) => {
        const { status, body } = await admin<{ jobs: Job[]; more: boolean }>('GET', `/jobs?fanOut=true${query}`)
        expect([query, status]).toEqual([query, 200])
        return ids(body.jobs)
      }
      expect(await list('')).toEqual(newestFirst(2, 1, 0))
      expect(await list(`&project=${hub.projectId}`)).toEqual(newestFirst(2, 1, 0))
      expect(await list('&project=prj_nothing')).toEqual([])
      expect(await list('&state=PENDING')).toEqual(newestFirst(2, 0))
      expect(await list('&state=CANCELLED')).toEqual(newestFirst(1))
      expect(await list('&state=COMPLETED')).toEqual([])
      expect(await list(`&printer=${bar}`)).toEqual(newestFirst(2, 1, 0))
      expect(await list('&q=3001')).toEqual(newestFirst(1))
      expect(await list(`&before=${parents[2]!.id}`)).toEqual(newestFirst(1, 0))
      expect(await list(`&from=${encodeURIComponent(parents[1]!.createdAt)}`)).toEqual(newestFirst(2, 1))
      expect(await list(`&to=${encodeURIComponent(parents[1]!.createdAt)}`)).toEqual(newestFirst(0))
      const everything = ids((await admin<{ jobs: Job[] }>('GET', '/jobs')).body.jobs)
      expect(everything).toContain(plain.id)
      expect(everything.filter((id) => parents.some((p) => p.id === id))).toEqual([])
      expect((await admin('GET', '/jobs?fanOut=maybe')).status).toBe(400)
    },
  )

  test(
    "a parent's page: the job as the API answers it, and each printer's job " +
      "with its state and printer, in the destination's order",
    async () => {
      const { status, body } = await admin('GET', `/jobs/${parents[0]!.id}`)
      expect(status).toBe(200)
      const api = await (await hub.request('GET', `/v1/projects/${hub.projectId}/jobs/${parents[0]!.id}`)).json()
      expect(body.job).toEqual(api.job)
      expect(body.job.state).toBe('PENDING')
      expect(
        body.children.map((child: { job: Job; printer: { remoteId: string; name: string | null } }) => [
          child.job.id,
          child.job.state,
          child.printer.remoteId,
          child.printer.name,
        ]),
      ).toEqual([
        [api.children[0].id, 'PENDING', 'demo', 'Demo printer (virtual)'],
        [api.children[1].id, 'CANCELLED', 'bar', 'Bar printer'],
      ])
      // A child's page names its parent and its state.
      const child = await admin('GET', `/jobs/${api.children[1].id}`)
      expect(child.body.fanOut).toMatchObject({
        id: parents[0]!.id,
        destination: 'everywhere',
        state: 'PENDING',
        jobs: [api.children[0].id, api.children[1].id],
      })
      expect(child.body.children).toBeUndefined()
      expect((await admin('GET', '/jobs/job_nothing')).status).toBe(404)
    },
  )
})
