// The client's behaviour against a scripted fault server: a real local HTTP server that answers
// with programmed sequences. Waits between attempts go through a fake clock.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  ApiError,
  NetworkError,
  PrintHubError,
  ResponseError,
  TimeoutError,
  type CreateJobInput,
} from '../../src/client/index.ts'
import { realScheduler } from '../../src/client/retry.ts'
import { clientWith, fakeScheduler, faultServer, json, silence } from './support.ts'

const API_KEY = `phk_${'a'.repeat(43)}`
const PROJECT = 'prj_test'
const JOBS_PATH = `/v1/projects/${PROJECT}/jobs`
const input: CreateJobInput = {
  printerId: 'kitchen',
  idempotencyKey: 'order-42',
  document: { width: 58, sections: [{ type: 'text', value: 'Soup' }] },
}

const at = '2026-11-21T12:00:00.000Z'
const jobBody = {
  id: 'job_1',
  projectId: PROJECT,
  printerId: 'prn_1',
  idempotencyKey: 'order-42',
  state: 'PENDING',
  metadata: null,
  expiresAt: at,
  attemptCount: 0,
  maxAttempts: 5,
  lastErrorCode: null,
  lastErrorMessage: null,
  receivedAt: null,
  submittedAt: null,
  createdAt: at,
  updatedAt: at,
}
const created = json(202, { job: jobBody, duplicate: false })
const failure = (status: number, code = 'server_error') =>
  json(status, { error: { code, message: 'try later', requestId: 'req_1' } })

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected the call to fail'),
    (error: unknown) => error,
  )
}

describe('retries', () => {
  test('job creation is retried on each retryable status, with the same body and idempotency key', async () => {
    for (const status of [408, 425, 429, 500, 502, 503, 504]) {
      const server = await faultServer([failure(status), failure(status), created])
      const clock = fakeScheduler()
      const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, clock)
      assert.deepEqual(await client.jobs.create(input), { job: jobBody, duplicate: false })
      assert.equal(server.requests.length, 3, `status ${status}`)
      assert.deepEqual(new Set(server.requests.map((r) => r.body)).size, 1)
      assert.equal(JSON.parse(server.requests[2]!.body).idempotencyKey, 'order-42')
      assert.equal(server.requests[0]!.headers.authorization, `Bearer ${API_KEY}`)
      await server.close()
    }
  })

  test('full jitter: random times up to min(max, base x 2^n)', async () => {
    const server = await faultServer([failure(503), failure(503), failure(503), failure(503), failure(503), created])
    const clock = fakeScheduler(0.5)
    const client = clientWith(
      {
        baseUrl: server.url,
        apiKey: API_KEY,
        projectId: PROJECT,
        maxRetries: 5,
        retryBaseDelayMs: 100,
        retryMaxDelayMs: 1_000,
      },
      clock,
    )
    await client.jobs.create(input)
    // Half of 100, 200, 400, 800, then the cap of 1,000.
    assert.deepEqual(clock.delays, [50, 100, 200, 400, 500])
    await server.close()
  })

  test('gives up after maxRetries with the last ApiError', async () => {
    const server = await faultServer([failure(502), failure(503), failure(504, 'gateway_timeout')])
    const clock = fakeScheduler()
    const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, clock)
    const error = await caught(client.jobs.create(input))
    assert.ok(error instanceof ApiError)
    assert.equal(error.status, 504)
    // A code outside the API's family (a proxy's, or a newer hub's) is kept in the message, not typed.
    assert.equal(error.code, undefined)
    assert.match(error.message, /HTTP 504: gateway_timeout: try later$/)
    assert.equal(server.requests.length, 3)
    assert.equal(clock.delays.length, 2)
    await server.close()
  })

  test('429 with Retry-After waits exactly that long, in seconds or as a date', async () => {
    const inTwoSeconds = new Date(Date.now() + 2_000).toUTCString()
    const server = await faultServer([
      json(429, { error: { code: 'entitlement_limit', message: 'full' } }, { 'retry-after': '3' }),
      json(503, { error: { code: 'server_error', message: 'busy' } }, { 'retry-after': inTwoSeconds }),
      json(200, { jobs: [], keyPrefix: 'phk_aaaaaaaa' }),
    ])
    const clock = fakeScheduler()
    const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, clock)
    assert.deepEqual(await client.jobs.list(), { jobs: [], keyPrefix: 'phk_aaaaaaaa' })
    assert.equal(clock.delays[0], 3_000)
    // An HTTP date has whole seconds: the wait is what is left of them.
    assert.ok(clock.delays[1]! > 0 && clock.delays[1]! <= 2_000, String(clock.delays[1]))
    await server.close()
  })

  test('a Retry-After longer than retryMaxDelayMs ends the retries', async () => {
    const server = await faultServer([
      json(429, { error: { code: 'entitlement_limit', message: 'full' } }, { 'retry-after': '30' }),
    ])
    const clock = fakeScheduler()
    const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, clock)
    const error = await caught(client.jobs.create(input))
    assert.ok(error instanceof ApiError && error.code === 'entitlement_limit')
    assert.equal(server.requests.length, 1)
    assert.deepEqual(clock.delays, [])
    await server.close()
  })

  test('other statuses are not retried', async () => {
    for (const status of [400, 401, 403, 404, 409, 413, 415, 422, 501]) {
      const server = await faultServer([failure(status, 'nope'), created])
      const clock = fakeScheduler()
      const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, clock)
      const error = await caught(client.jobs.create(input))
      assert.ok(error instanceof ApiError && error.status === status, `status ${status}`)
      assert.equal(server.requests.length, 1)
      await server.close()
    }
  })

  test('pairing is never retried', async () => {
    const server = await faultServer([json(503, { error: { code: 'server_error', message: 'busy' } }), json(200, {})])
    const clock = fakeScheduler()
    const client = clientWith({ baseUrl: server.url }, clock)
    const request = {
      protocolVersion: '1' as const,
      code: 'ABCD-EFGH',
      agent: { name: 'Pi', version: '1', platform: 'linux', installationId: 'installation_1' },
      credential: {
        algorithm: 'Ed25519' as const,
        publicKey: { kty: 'OKP' as const, crv: 'Ed25519' as const, x: '11qYAYKxCrfVS_7TyWfd0GEQYBxPjS_8Z_xBiwx6QmY' },
      },
    }
    const error = await caught(client.pair(request))
    assert.ok(error instanceof ApiError && error.status === 503)
    assert.equal(server.requests.length, 1)
    assert.equal(server.requests[0]!.headers.authorization, undefined)
    await server.close()
  })

  test('retry: false and maxRetries: 0 send once', async () => {
    for (const options of [{ retry: false as const }, { maxRetries: 0 }]) {
      const server = await faultServer([failure(503), created])
      const client = clientWith(
        { baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT, ...options },
        fakeScheduler(),
      )
      assert.ok((await caught(client.jobs.create(input))) instanceof ApiError)
      assert.equal(server.requests.length, 1)
      await server.close()
    }
  })

  test('a refused connection is retried, then a NetworkError', async () => {
    const server = await faultServer([])
    const url = server.url
    await server.close()
    const clock = fakeScheduler()
    const client = clientWith({ baseUrl: url }, clock)
    const error = await caught(client.health())
    assert.ok(error instanceof NetworkError && error instanceof PrintHubError)
    assert.equal(error.url, `${url}/health`)
    assert.equal(clock.delays.length, 2)
  })
})

describe('timeouts and cancellation', () => {
  test('each attempt is bounded by timeoutMs; a timed-out attempt is retried, then TimeoutError', async () => {
    const server = await faultServer([silence, silence, silence])
    const clock = fakeScheduler()
    const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT, timeoutMs: 50 }, clock)
    const error = await caught(client.jobs.create(input))
    assert.ok(error instanceof TimeoutError)
    assert.deepEqual(
      { timeoutMs: error.timeoutMs, method: error.method, url: error.url },
      { timeoutMs: 50, method: 'POST', url: server.url + JOBS_PATH },
    )
    assert.equal(server.requests.length, 3)
    await server.close()
  })

  test('a timed-out attempt followed by an answer succeeds', async () => {
    const server = await faultServer([silence, created])
    const client = clientWith(
      { baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT, timeoutMs: 50 },
      fakeScheduler(),
    )
    assert.equal((await client.jobs.create(input)).job.id, 'job_1')
    await server.close()
  })

  test('aborting cancels the request in flight at once, with the signal reason', async () => {
    const server = await faultServer([silence])
    const client = clientWith({ baseUrl: server.url, timeoutMs: 60_000 }, fakeScheduler())
    const controller = new AbortController()
    const pending = client.health({ signal: controller.signal })
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 1))
    const started = performance.now()
    controller.abort()
    const error = await caught(pending)
    assert.ok(error instanceof Error && error.name === 'AbortError', String(error))
    assert.ok(performance.now() - started < 1_000)
    await server.close()
  })

  test('aborting cancels a pending backoff at once', async () => {
    const server = await faultServer([failure(503), created])
    // The real clock, with the jitter drawn at its top so the wait is the full minute: only the
    // abort can end it early.
    const client = clientWith(
      { baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT, retryBaseDelayMs: 60_000, retryMaxDelayMs: 60_000 },
      { ...realScheduler, random: () => 1 },
    )
    const controller = new AbortController()
    const reason = new Error('the till closed')
    const pending = client.jobs.create(input, { signal: controller.signal })
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 1))
    await new Promise((resolve) => setTimeout(resolve, 20))
    const started = performance.now()
    controller.abort(reason)
    assert.equal(await caught(pending), reason)
    assert.ok(performance.now() - started < 1_000)
    assert.equal(server.requests.length, 1)
    await server.close()
  })

  test('an already aborted signal sends nothing', async () => {
    const server = await faultServer([created])
    const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, fakeScheduler())
    const error = await caught(client.jobs.create(input, { signal: AbortSignal.abort() }))
    assert.ok(error instanceof Error && error.name === 'AbortError')
    assert.equal(server.requests.length, 0)
    await server.close()
  })
})

describe('answers outside the contract', () => {
  const cases: [string, ReturnType<typeof json>][] = [
    [
      'not JSON',
      (response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>proxy login</html>'),
    ],
    ['a missing field', json(202, { job: { ...jobBody, state: undefined }, duplicate: false })],
    ['a wrong type', json(202, { job: { ...jobBody, attemptCount: '0' }, duplicate: false })],
    ['an unknown state', json(202, { job: { ...jobBody, state: 'PRINTED' }, duplicate: false })],
    ['no duplicate flag', json(202, { job: jobBody })],
    ['an empty body', json(200, '')],
  ]
  for (const [name, reply] of cases) {
    test(`a 2xx with ${name} is a ResponseError, not retried`, async () => {
      const server = await faultServer([reply, created])
      const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, fakeScheduler())
      const error = await caught(client.jobs.create(input))
      assert.ok(error instanceof ResponseError, String(error))
      assert.equal(error.method, 'POST')
      assert.equal(error.url, server.url + JOBS_PATH)
      assert.ok(error.cause instanceof Error)
      assert.equal(server.requests.length, 1)
      await server.close()
    })
  }

  test('a non-2xx without an envelope is still an ApiError, with the header request ID', async () => {
    const server = await faultServer([
      (response) => response.writeHead(502, { 'x-request-id': 'req_proxy' }).end('Bad Gateway'),
    ])
    const client = clientWith({ baseUrl: server.url, retry: false }, fakeScheduler())
    const error = await caught(client.health())
    assert.ok(error instanceof ApiError)
    assert.deepEqual([error.status, error.code, error.requestId], [502, undefined, 'req_proxy'])
    await server.close()
  })

  test('an ApiError carries the envelope: code, request ID, details', async () => {
    const details = [{ path: 'document.width', message: 'must be one of 58, 80' }]
    const server = await faultServer([
      json(400, {
        error: {
          code: 'invalid_request',
          message: 'The request is invalid; see details.',
          requestId: 'req_9',
          details,
        },
      }),
    ])
    const client = clientWith({ baseUrl: server.url, apiKey: API_KEY, projectId: PROJECT }, fakeScheduler())
    const error = await caught(client.jobs.create(input))
    assert.ok(error instanceof ApiError)
    assert.deepEqual(
      [error.status, error.code, error.requestId, error.details],
      [400, 'invalid_request', 'req_9', details],
    )
    assert.ok(!error.message.includes(API_KEY))
    await server.close()
  })
})
