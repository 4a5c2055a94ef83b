// The dashboard's view of webhooks through the admin API, against a real hub and a real receiver:
// every project's webhooks with their recent deliveries (status codes, errors, attempts) and never
// a secret; a test event signed like any other; a webhook disabled for failing refuses a test
// until enabled, and then gets what waited; delete; unknown IDs are 404; no session is 401.
import { adminToken } from '../support/fixtures.ts'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { verifyWebhook } from '../../src/client/index.ts'
import { DISABLE_AFTER_MS } from '../../src/services/webhooks.ts'
import { freePort } from '../support/ports.ts'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

let t: TestHub
let token: string
/** Added to the hub's clock: retries and the 5 days before disabling pass without waiting. */
let offset = 0
beforeAll(async () => {
  t = await startTestHub({ now: () => Date.now() + offset })
  token = adminToken(t.hub.store)
})
afterAll(() => t.stop())

async function admin<T = any>(
  method: string,
  path: string,
  key: string | null = token,
): Promise<{ status: number; body: T }> {
  const response = await t.request(method, `/admin/v1${path}`, { key })
  return { status: response.status, body: (response.status === 204 ? null : await response.json()) as T }
}

/** A receiver that answers `status()` and keeps what it got. */
function receiver(port: number, status: () => number) {
  const received: { headers: Headers; body: string }[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    fetch: async (request) => (
      received.push({ headers: request.headers, body: await request.text() }), new Response(null, { status: status() })
    ),
  })
  return { received, stop: () => server.stop(true) }
}

async function makeWebhook(port: number): Promise<{ id: string; secret: string }> {
  const made = await t.request('POST', `/v1/projects/${t.projectId}/webhooks`, {
    body: { url: `http://127.0.0.1:${port}/hooks`, events: ['job.created'], description: 'till' },
  })
  expect(made.status).toBe(201)
  const { webhook, secret } = await made.json()
  return { id: webhook.id, secret }
}

const viewOf = async (id: string) =>
  (await admin('GET', '/webhooks')).body.webhooks.find((w: { id: string }) => w.id === id)

describe('webhooks in the dashboard', () => {
  test(
    'listed with their recent deliveries and status codes, never the secret; ' + 'a test event is signed and delivered',
    async () => {
      const port = await freePort()
      let status = 200
      const hook = receiver(port, () => status)
      try {
        const { id, secret } = await makeWebhook(port)
        await submitJob(t, { idempotencyKey: 'dash-webhook-1' })
        await waitFor(async () => (await viewOf(id))?.deliveries[0]?.deliveredAt != null)
        const listed = await admin('GET', '/webhooks')
        expect(listed.status).toBe(200)
        expect(JSON.stringify(listed.body)).not.toContain(secret.slice(6))
        const view = listed.body.webhooks.find((w: { id: string }) => w.id === id)
        expect(view).toEqual({
          id,
          projectId: t.projectId,
          projectName: 'default',
          url: `http://127.0.0.1:${port}/hooks`,
          events: ['job.created'],
          description: 'till',
          createdAt: expect.any(String),
          failingSince: null,
          disabledAt: null,
          deliveries: [
            {
              messageId: expect.stringMatching(/^evt_\d+$/),
              type: 'job.created',
              attempts: 1,
              lastStatus: 200,
              lastError: null,
              deliveredAt: expect.any(String),
              createdAt: expect.any(String),
            },
          ],
        })

        const sent = await admin('POST', `/webhooks/${id}/test`)
        expect(sent.status).toBe(202)
        expect(sent.body.messageId).toMatch(/^msg_test_/)
        await waitFor(() => hook.received.some((r) => r.headers.get('webhook-id') === sent.body.messageId))
        const test = hook.received.find((r) => r.headers.get('webhook-id') === sent.body.messageId)!
        const delivery = await verifyWebhook(secret, test.headers, test.body, Date.now() + offset)
        expect(delivery).toEqual({
          type: 'webhook.test',
          timestamp: expect.any(String),
          data: { webhookId: id, message: 'A test event sent from the printhub dashboard.' },
        })
        await waitFor(async () => (await viewOf(id)).deliveries[0].deliveredAt !== null)
        expect((await viewOf(id)).deliveries[0]).toMatchObject({
          messageId: sent.body.messageId,
          type: 'webhook.test',
          lastStatus: 200,
        })

        // A receiver that fails: its status code shows, and the webhook is failing.
        status = 503
        const failing = await admin('POST', `/webhooks/${id}/test`)
        await waitFor(async () => (await viewOf(id)).deliveries[0].attempts === 1)
        expect((await viewOf(id)).deliveries[0]).toMatchObject({
          messageId: failing.body.messageId,
          lastStatus: 503,
          lastError: 'answered 503',
          deliveredAt: null,
        })
        expect((await viewOf(id)).failingSince).not.toBeNull()
        expect((await admin('DELETE', `/webhooks/${id}`)).status).toBe(204)
        expect(await viewOf(id)).toBeUndefined()
      } finally {
        hook.stop()
      }
    },
  )

  test(
    'disabled after failing for 5 days: a test is 409 until it is enabled ' + 'again, then what waited is sent',
    async () => {
      const port = await freePort()
      let status = 500
      const hook = receiver(port, () => status)
      try {
        const { id } = await makeWebhook(port)
        await submitJob(t, { idempotencyKey: 'dash-webhook-2' })
        await waitFor(async () => (await viewOf(id))?.failingSince != null)
        // Its next attempt, 5 days and an hour later, fails too: it is disabled.
        offset += DISABLE_AFTER_MS + 3_600_000
        await waitFor(async () => (await viewOf(id)).disabledAt !== null, 10_000)
        expect((await viewOf(id)).deliveries[0]).toMatchObject({ attempts: 2, lastStatus: 500, deliveredAt: null })
        const refused = await admin('POST', `/webhooks/${id}/test`)
        expect(refused.status).toBe(409)
        expect(refused.body.error.message).toContain('enable it first')

        status = 204
        const enabled = await admin('POST', `/webhooks/${id}/enable`)
        expect(enabled.status).toBe(200)
        expect(enabled.body.webhook).toMatchObject({ id, disabledAt: null, failingSince: null })
        await waitFor(async () => (await viewOf(id)).deliveries[0].deliveredAt !== null)
        expect((await viewOf(id)).deliveries[0].lastStatus).toBe(204)
        expect((await admin('POST', `/webhooks/${id}/test`)).status).toBe(202)
      } finally {
        hook.stop()
      }
    },
  )

  test('unknown webhooks are 404; without a session or token, 401', async () => {
    for (const [method, path] of [
      ['POST', '/webhooks/whk_nope/test'],
      ['POST', '/webhooks/whk_nope/enable'],
      ['DELETE', '/webhooks/whk_nope'],
    ] as const) {
      const answer = await admin(method, path)
      expect({ path, status: answer.status, code: answer.body.error.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      })
    }
    expect((await admin('GET', '/webhooks', null)).status).toBe(401)
    expect((await admin('POST', '/webhooks/whk_nope/test', null)).status).toBe(401)
  })
})
