// The hub tells its first work apart from liveness checks: serve sets the normal JIT policy then
// (src/platform/jit.ts), so a hub that has only been asked /health keeps no machine code for its
// idling. The executable itself, which starts with the policy raised, is run by test/binary.
import { afterEach, expect, test } from 'bun:test'
import { startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

test('firstWork is called once, with the first request that is not GET /health', async () => {
  let calls = 0
  t = await startTestHub({ firstWork: () => calls++ })
  for (const path of ['/health', '/health?probe=1', '/health'])
    expect((await t.request('GET', path, { key: null })).status).toBe(200)
  expect(calls).toBe(0)
  expect((await t.request('GET', `/v1/projects/${t.projectId}/jobs`)).status).toBe(200)
  expect(calls).toBe(1)
  // Any later request, a refused one too, changes nothing.
  expect((await t.request('GET', `/v1/projects/${t.projectId}/jobs`, { key: 'phk_wrong' })).status).toBe(401)
  expect((await t.request('GET', '/no-such-route')).status).toBe(404)
  expect(calls).toBe(1)
})

test('an unknown route is work too: the first request of any kind but /health counts', async () => {
  let calls = 0
  t = await startTestHub({ firstWork: () => calls++ })
  expect((await t.request('GET', '/healthz', { key: null })).status).toBe(404)
  expect(calls).toBe(1)
})
