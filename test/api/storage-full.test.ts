// A full database is an answer, never a 500: the write is refused with 507 storage_full and
// nothing of it stays; what was accepted before is kept and readable; when there is room again,
// jobs are taken again without a restart. (A full disk, with the disk guard's own answer before
// SQLite's, is tested on a real small file system in test/cli/full-disk.test.ts.)
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { fillDatabase, jobCount } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub({ offline: true })
})
afterAll(() => t.stop())

const jobsPath = () => `/v1/projects/${t.projectId}/jobs`

describe('SQLite says the database is full', () => {
  test(
    '507 storage_full in the envelope with Retry-After; nothing half written; ' +
      'accepted jobs kept; taken again once there is room',
    async () => {
      const accepted = jobBody({ idempotencyKey: 'before-full' })
      expect((await t.request('POST', jobsPath(), { body: accepted })).status).toBe(202)
      const before = jobCount(t.hub.store)
      const roomAgain = fillDatabase(t.hub.store)
      try {
        const big = jobBody({
          idempotencyKey: 'while-full',
          document: {
            width: 80,
            sections: Array.from({ length: 150 }, (_, i) => ({ type: 'text', value: `line ${i} ${'x'.repeat(400)}` })),
          },
        })
        const refused = await t.request('POST', jobsPath(), { body: big })
        expect(refused.status).toBe(507)
        expect(refused.headers.get('retry-after')).toBe('60')
        const body = (await refused.json()) as { error: { code: string; message: string; requestId: string } }
        expect(body).toEqual({
          error: {
            code: 'storage_full',
            message: expect.stringContaining('out of disk space'),
            requestId: refused.headers.get('x-request-id')!,
          },
        })
        expect(jobCount(t.hub.store)).toBe(before)
        // Reads go on, and a retry of the accepted job is answered as it is.
        const list = await t.request('GET', jobsPath())
        expect(list.status).toBe(200)
        expect(
          ((await list.json()) as { jobs: { idempotencyKey: string }[] }).jobs.map((j) => j.idempotencyKey),
        ).toContain('before-full')
        expect((await t.request('POST', jobsPath(), { body: accepted })).status).toBe(200)
      } finally {
        roomAgain()
      }
      const taken = await t.request('POST', jobsPath(), { body: jobBody({ idempotencyKey: 'while-full' }) })
      expect(taken.status).toBe(202)
      expect(jobCount(t.hub.store)).toBe(before + 1)
    },
  )
})
