// One project cannot fill the disk with unfinished jobs: the bytes of their documents count
// against a limit (256 MiB; lowered here), kept by the store's triggers as jobs are stored and
// end. At the limit a new job gets 429 entitlement_limit saying so; once some end, room again.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { OPEN_BYTES_PER_PROJECT } from '../../src/store/jobs.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'
import { pngOfSize } from '../support/images.ts'

let t: TestHub
beforeAll(async () => {
  t = await startTestHub({ offline: true })
})
afterAll(() => t.stop())

const openBytes = () =>
  t.hub.store.db
    .query<{ open_bytes: number }, [string]>('SELECT open_bytes FROM projects WHERE id = ?')
    .get(t.projectId)!.open_bytes
const storedBytes = () =>
  t.hub.store.db
    .query<{ n: number }, [string]>(
      `SELECT COALESCE(SUM(length(CAST(d.document AS BLOB))), 0) AS n FROM jobs
        j JOIN job_documents d ON d.job_seq = j.seq WHERE j.project_id = ? AND
        j.state NOT IN ('COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED')`,
    )
    .get(t.projectId)!.n
const post = (key: string) =>
  t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
    body: jobBody({
      idempotencyKey: key,
      document: { width: 80, sections: [{ type: 'image', mediaType: 'image/png', data: pngOfSize(75_000) }] },
    }),
  })

test('the bytes of unfinished jobs are counted as they are stored and freed as they end', async () => {
  expect(OPEN_BYTES_PER_PROJECT).toBe(256 * 1024 * 1024)
  t.hub.store.jobs.openBytesLimit = 350_000
  const before = openBytes()
  expect(before).toBe(storedBytes())
  const accepted: string[] = []
  for (const key of ['a', 'b', 'c']) {
    const response = await post(key)
    expect(response.status).toBe(202)
    accepted.push(((await response.json()) as { job: { id: string } }).job.id)
  }
  expect(openBytes()).toBe(storedBytes())
  expect(openBytes()).toBeGreaterThan(before + 3 * 100_000)

  const refused = await post('d')
  expect(refused.status).toBe(429)
  expect(refused.headers.get('retry-after')).toBe('30')
  const { error } = (await refused.json()) as { error: { code: string; message: string } }
  expect(error.code).toBe('entitlement_limit')
  expect(error.message).toBe(
    "The project's unfinished jobs hold 0.3 MB of documents, and this one " +
      'would pass its limit of 0.3 MB; try again when some have finished.',
  )

  // One ends (cancelled): its bytes are free again, and the next job fits.
  expect(t.hub.store.jobStates.cancel(accepted[0]!).kind).toBe('cancelled')
  expect(openBytes()).toBe(storedBytes())
  expect((await post('d')).status).toBe(202)
  expect(openBytes()).toBe(storedBytes())
})
