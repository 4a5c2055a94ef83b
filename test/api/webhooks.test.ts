// Webhooks against a real hub and a real receiver: made with a secret shown once, listed, deleted;
// deliveries signed as Standard Webhooks define (checked with the client's verifyWebhook), in
// order; a receiver that is down for a while gets every event afterwards, once each, after the
// retries; a webhook failing for 5 days is disabled; bad input is 400 and makes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { verifyWebhook } from '../../src/client/index.ts'
import { freePort } from '../support/ports.ts'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
/** Added to the hub's clock: the retry schedule's waits pass without waiting. */
let offset = 0
beforeAll(async () => {
  t = await startTestHub({ now: () => Date.now() + offset })
})
afterAll(() => t.stop())

interface Received {
  headers: Headers
  body: string
}

/** A receiver on `port` that keeps what it is sent and answers `status`. */
function receiver(port: number, status = 204) {
  const received: Received[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    fetch: async (request) => (
      received.push({ headers: request.headers, body: await request.text() }), new Response(null, { status })
    ),
  })
  return { received, stop: () => server.stop(true) }
}

const webhooks = (method: string, body?: unknown, suffix = '') =>
  t.request(method, `/v1/projects/${t.projectId}/webhooks${suffix}`, { body })

describe('webhooks', () => {
  test('made with its secret shown once, listed without it, deleted; bad input is 400 and makes nothing', async () => {
    const made = await webhooks('POST', { url: 'http://127.0.0.1:9/hook', events: ['job.created'], description: 'POS' })
    expect(made.status).toBe(201)
    const { webhook, secret } = await made.json()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(webhook).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: 'http://127.0.0.1:9/hook',
      events: ['job.created'],
      createdAt: expect.any(String),
    })
    const listed = await (await webhooks('GET')).json()
    expect(listed.webhooks).toEqual([{ ...webhook, description: 'POS', failingSince: null, disabledAt: null }])
    expect(JSON.stringify(listed)).not.toContain(secret)
    for (const bad of [
      { url: 'ftp://x/y', events: ['job.created'] },
      { url: 'http://u:p@x/', events: ['job.created'] },
      { url: 'http://x/', events: [] },
      { url: 'http://x/', events: ['job.printed'] },
      { url: 'http://x/', events: ['job.created'], extra: 1 },
    ]) {
      const response = await webhooks('POST', bad)
      expect([JSON.stringify(bad), response.status]).toEqual([JSON.stringify(bad), 400])
    }
    expect((await webhooks('DELETE', undefined, `/${webhook.id}`)).status).toBe(204)
    expect((await webhooks('DELETE', undefined, `/${webhook.id}`)).status).toBe(404)
    expect((await (await webhooks('GET')).json()).webhooks).toEqual([])
    const jobsOnly = t.hub.store.apiKeys.create(t.projectId, ['jobs:read', 'jobs:write'], null).secret
    expect((await t.request('GET', `/v1/projects/${t.projectId}/webhooks`, { key: jobsOnly })).status).toBe(403)
  })

  test('a receiver that is down gets every event after it comes back, signed, in order, once each', async () => {
    const port = freePort()
    const { webhook, secret } = await (
      await webhooks('POST', { url: `http://127.0.0.1:${port}/printhub`, events: ['job.created', 'job.state_changed'] })
    ).json()
    const jobs: string[] = []
    for (let i = 0; i < 3; i++)
      jobs.push(
        (await (await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody() })).json()).job.id,
      )
    // Nobody listens: the first attempt fails, and the webhook is failing. The jobs print meanwhile.
    await waitFor(
      () => t.hub.store.webhooks.list(t.projectId).find((w) => w.id === webhook.id)?.failingSince !== null,
      5_000,
    )
    await waitFor(() => jobs.every((id) => t.hub.store.jobs.get(id)!.state === 'COMPLETED'), 5_000)
    const up = receiver(port)
    try {
      // Past the retry's wait (5 s) on the hub's clock.
      offset += 6_000
      const expected = t.hub.store.events
        .after(t.projectId, 0, 1_000)
        .filter((e) => 'job' in e && jobs.includes(e.job.id))
      await waitFor(() => up.received.length >= expected.length, 10_000)
      const bodies = await Promise.all(
        up.received.map((r) => verifyWebhook(secret, r.headers, r.body, Date.now() + offset)),
      )
      expect(bodies.map((b) => (b.data as { id: number }).id)).toEqual(expected.map((e) => e.id))
      expect(bodies.map((b) => b.type)).toEqual(expected.map((e) => e.type))
      expect(up.received.map((r) => r.headers.get('webhook-id'))).toEqual(expected.map((e) => `evt_${e.id}`))
      expect(t.hub.store.webhooks.list(t.projectId).find((w) => w.id === webhook.id)!.failingSince).toBeNull()
    } finally {
      up.stop()
      await webhooks('DELETE', undefined, `/${webhook.id}`)
    }
  }, 20_000)

  test('a webhook whose receiver fails for 5 days is disabled, and gets nothing more', async () => {
    const port = freePort()
    const failing = receiver(port, 500)
    try {
      const { webhook } = await (
        await webhooks('POST', { url: `http://127.0.0.1:${port}/`, events: ['job.created'] })
      ).json()
      await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody() })
      // The first attempt failed and is recorded (not only received): the webhook has been failing since then.
      await waitFor(
        () => t.hub.store.webhooks.list(t.projectId).find((w) => w.id === webhook.id)!.failingSince !== null,
        5_000,
      )
      expect(failing.received.length).toBeGreaterThanOrEqual(1)
      expect(t.hub.store.webhooks.list(t.projectId).find((w) => w.id === webhook.id)!.disabledAt).toBeNull()
      offset += 5 * 86_400_000 + 60_000
      await waitFor(
        () => t.hub.store.webhooks.list(t.projectId).find((w) => w.id === webhook.id)!.disabledAt !== null,
        10_000,
      )
      // Nothing more is queued for it: a new job's events go to enabled webhooks only.
      const queued = t.hub.store.webhooks.deliveries(webhook.id, 1_000).length
      await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody() })
      expect(t.hub.store.webhooks.deliveries(webhook.id, 1_000).length).toBe(queued)
      expect(t.hub.store.webhooks.heads().some((h) => h.webhookId === webhook.id)).toBe(false)
      expect(
        (await (await webhooks('GET')).json()).webhooks.find((w: { id: string }) => w.id === webhook.id).disabledAt,
      ).not.toBeNull()
    } finally {
      failing.stop()
    }
  }, 20_000)
})
