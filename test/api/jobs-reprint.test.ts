// POST /v1/projects/:projectId/jobs/:jobId/reprint against a real hub: a new job of the stored
// document under a REPRINT banner with the original's time, linked to its original; its own
// idempotency key; one banner for a reprint of a reprint; 404 for another project's job or none;
// 409 document_pruned once retention deleted the job; bad input 400, scopes 403, nothing made.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { venueTime } from '../../src/domain/reprint.ts'
import type { Job } from '../../src/protocol/job.ts'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { previewOf } from '../support/virtual.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub()
})
afterAll(() => t.stop())

const job = async (id: string): Promise<Job> =>
  (await (await t.request('GET', `/v1/projects/${t.projectId}/jobs/${id}`)).json()).job
const reprint = (id: string, body: unknown, key?: string) =>
  t.request('POST', `/v1/projects/${t.projectId}/jobs/${id}/reprint`, { body, ...(key ? { key } : {}) })
const jobCount = () => t.hub.store.db.query<{ n: number }, []>('SELECT count(*) AS n FROM jobs').get()!.n
const printed = async (id: string) => {
  await waitFor(async () => (await job(id)).state === 'COMPLETED')
  return previewOf(t.hub.virtualPrinters.printed('virtual').at(-1)!).text.filter((line) => line !== '')
}

describe('reprinting a job', () => {
  test(
    '202 with the new job and its original; it prints under a REPRINT banner ' +
      'with the time of the first; the same key again is 200, the same job',
    async () => {
      const original = await submitJob(t, {
        metadata: { order: '1042' },
        document: { width: 80, sections: [{ type: 'text', value: 'Table 12: 2x soup' }] },
      })
      await printed(original.id)
      const made = await reprint(original.id, { idempotencyKey: 'order-1042-reprint' })
      expect(made.status).toBe(202)
      const body = await made.json()
      expect(Object.keys(body)).toEqual(['job', 'duplicate', 'reprintOf'])
      expect(body).toMatchObject({
        duplicate: false,
        reprintOf: original.id,
        job: {
          state: 'PENDING',
          idempotencyKey: 'order-1042-reprint',
          printerId: original.printerId,
          metadata: { order: '1042' },
        },
      })
      // The spec's job projection, exactly: no reprint field in it.
      expect(Object.keys(body.job)).toEqual(Object.keys(original))
      const lines = await printed(body.job.id)
      const when = venueTime(Date.parse(original.createdAt))
      const centred = (text: string) => `${' '.repeat(Math.floor((48 - text.length) / 2))}${text}`
      expect(lines.slice(0, 4)).toEqual([
        centred('*** REPRINT ***'),
        centred(`First printed for ${when}`),
        '-'.repeat(48),
        'Table 12: 2x soup',
      ])

      const again = await reprint(original.id, { idempotencyKey: 'order-1042-reprint' })
      expect(again.status).toBe(200)
      expect(await again.json()).toMatchObject({ duplicate: true, reprintOf: original.id, job: { id: body.job.id } })

      // A reprint of the reprint: one banner, the first original's time; linked to the reprint it was made from.
      const second = await (await reprint(body.job.id, { idempotencyKey: 'order-1042-reprint-2' })).json()
      expect(second.reprintOf).toBe(body.job.id)
      const secondLines = await printed(second.job.id)
      expect(secondLines.filter((line) => line.includes('REPRINT'))).toHaveLength(1)
      expect(secondLines[1]).toContain(when)
    },
  )

  test(
    "another project's job, or none, is 404; a key that made another kind of " + 'job is 409; nothing is made',
    async () => {
      const count = jobCount()
      const other = t.hub.store.projects.create('elsewhere')
      const key = t.hub.store.apiKeys.create(other.id, ['jobs:read', 'jobs:write'], null).secret
      const mine = await submitJob(t)
      const foreign = await t.request('POST', `/v1/projects/${other.id}/jobs/${mine.id}/reprint`, {
        body: { idempotencyKey: 'x' },
        key,
      })
      expect(foreign.status).toBe(404)
      expect((await foreign.json()).error.code).toBe('not_found')
      expect((await reprint('job_00000000000000000000000000000000', { idempotencyKey: 'x' })).status).toBe(404)
      const reused = await reprint(mine.id, { idempotencyKey: mine.idempotencyKey })
      expect(reused.status).toBe(409)
      expect((await reused.json()).error.message).toContain('not a reprint')
      expect(jobCount()).toBe(count + 1)
    },
  )

  test('bad bodies are 400 naming the field; a key without jobs:write is 403', async () => {
    const mine = await submitJob(t)
    const count = jobCount()
    for (const [body, path] of [
      [{}, 'idempotencyKey'],
      [{ idempotencyKey: '' }, 'idempotencyKey'],
      [{ idempotencyKey: 'k', copies: 2 }, 'copies'],
      [{ idempotencyKey: 7 }, 'idempotencyKey'],
    ] as const) {
      const answer = await reprint(mine.id, body)
      expect(answer.status).toBe(400)
      expect((await answer.json()).error.details[0].path).toBe(path)
    }
    const readOnly = t.hub.store.apiKeys.create(t.projectId, ['jobs:read'], null).secret
    expect((await reprint(mine.id, { idempotencyKey: 'k' }, readOnly)).status).toBe(403)
    expect(jobCount()).toBe(count)
  })

  test('a job retention deleted is 409 document_pruned, not 404', async () => {
    const old = await submitJob(t)
    await waitFor(async () => (await job(old.id)).state === 'COMPLETED')
    t.hub.store.commits.commit()
    expect(t.hub.store.retention.pruneJobs(Date.now() + 1, 1_000)).toBeGreaterThan(0)
    t.hub.store.commits.commit()
    expect((await t.request('GET', `/v1/projects/${t.projectId}/jobs/${old.id}`)).status).toBe(404)
    const answer = await reprint(old.id, { idempotencyKey: 'too-late' })
    expect(answer.status).toBe(409)
    const { error } = await answer.json()
    expect(error.code).toBe('document_pruned')
    expect(error.message).toContain('no longer kept')
  })
})
