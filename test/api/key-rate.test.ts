// How fast one API key may submit, against a real hub with a clock the test moves: a minute's
// worth of jobs at once, then one every 60/N seconds; documents' bytes the same way; each key on
// its own; a retry of a job already made is answered with it whatever the quota says; a refused
// submission stores nothing. (Limits lowered here: 5 jobs and 1 MB a minute.)
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { jobCount } from '../support/fixtures.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'
import { pngOfSize } from '../support/images.ts'

let t: TestHub
let clock = Date.now()
beforeAll(async () => {
  t = await startTestHub({
    offline: true,
    now: () => clock,
    env: { PRINTHUB_KEY_JOBS_PER_MINUTE: '5', PRINTHUB_KEY_MB_PER_MINUTE: '1' },
  })
})
afterAll(() => t.stop())

const post = (key: string, options: { apiKey?: string; document?: unknown } = {}) =>
  t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
    key: options.apiKey,
    body: jobBody({ idempotencyKey: key, ...(options.document ? { document: options.document } : {}) }),
  })

test(
  'a minute of jobs at once, then refused with 429 and when to come back; a ' +
    'retry of a made job is still answered; another key has its own',
  async () => {
    for (let i = 0; i < 5; i++) expect((await post(`burst-${i}`)).status).toBe(202)
    const before = jobCount(t.hub.store)
    const refused = await post('one-too-many')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('12')
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'rate_limited',
      message: 'This API key submits more than 5 jobs a minute, its limit; try again shortly.',
    })
    expect(jobCount(t.hub.store)).toBe(before)
    // The client that lost the answer to its first job asks again: it gets that job.
    expect((await post('burst-0')).status).toBe(200)
    const other = t.hub.store.apiKeys.create(t.projectId, ['jobs:write'], 'another till').secret
    expect((await post('from-another-key', { apiKey: other })).status).toBe(202)
    // Twelve seconds later there is room for one more.
    clock += 12_000
    expect((await post('one-too-many')).status).toBe(202)
    expect((await post('and-another')).status).toBe(429)
  },
)

test("documents' bytes count the same way: 1 MB a minute", async () => {
  clock += 60_000
  const big = { width: 80, sections: [{ type: 'image', mediaType: 'image/png', data: pngOfSize(450_000) }] }
  expect((await post('big-1', { document: big })).status).toBe(202)
  const refused = await post('big-2', { document: big })
  expect(refused.status).toBe(429)
  expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
    'This API key submits more than 1 MB of documents a minute, its limit; try again shortly.',
  )
  clock += 60_000
  expect((await post('big-2', { document: big })).status).toBe(202)
})
