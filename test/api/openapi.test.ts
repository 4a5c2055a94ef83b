// GET /openapi.json: a valid OpenAPI 3.1 document (checked by a validator from npm), naming every
// public route the hub registers, whose schemas accept what the hub really answers and refuse what
// its rules refuse.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import Ajv2020 from 'ajv/dist/2020.js'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
let document: Record<string, any>
beforeAll(async () => {
  t = await startTestHub({ offline: true })
  const response = await fetch(`${t.url}/openapi.json`)
  expect(response.status).toBe(200)
  document = await response.json()
})
afterAll(() => t.stop())

/**
 * Routes that are not the public API: the agents' WebSocket (OpenPrinter, private), the admin API
 * and the dashboard (and `/`, which leads to it), and the printers' own polling protocols (Star's
 * and Epson's, documented in docs/cloud-printers.md).
 */
const PRIVATE = [
  /^\/\.well-known\/printservice\/gateway$/,
  /^\/admin\//,
  /^\/dashboard/,
  /^\/$/,
  /^\/cloudprnt$/,
  /^\/epson-sdp$/,
]

describe('the OpenAPI document', () => {
  test('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(document)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(document.openapi).toBe('3.1.0')
  })

  test('names every public route the hub registers, with its method, and no other', () => {
    const registered = t.hub
      .routes()
      .filter(
        (route) => !PRIVATE.some((pattern) => pattern.test(route.path)) && route.path !== '*' && route.method !== 'ALL',
      )
      .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`)
    const documented = Object.entries(document.paths as Record<string, object>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method} ${path}`),
    )
    expect([...new Set(registered)].sort()).toEqual(documented.sort())
  })

  test('its schemas accept what the hub answers, and refuse a body its rules refuse', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    const schema = (path: string, method: string, status: string, type = 'application/json') =>
      ajv.compile(document.paths[path][method].responses[status].content[type].schema)
    const created = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, {
      body: jobBody({ metadata: { order: '9' } }),
    })
    const job = await created.json()
    expect(schema('/v1/projects/{projectId}/jobs', 'post', '202')(job)).toBe(true)
    const list = await (await t.request('GET', `/v1/projects/${t.projectId}/jobs`)).json()
    const paged = await (await t.request('GET', `/v1/projects/${t.projectId}/jobs?limit=1`)).json()
    for (const answer of [list, paged]) expect(schema('/v1/projects/{projectId}/jobs', 'get', '200')(answer)).toBe(true)
    expect(
      schema(
        '/v1/projects/{projectId}/jobs/{jobId}',
        'get',
        '200',
      )(await (await t.request('GET', `/v1/projects/${t.projectId}/jobs/${job.job.id}`)).json()),
    ).toBe(true)
    expect(
      schema(
        '/v1/projects/{projectId}/printers',
        'get',
        '200',
      )(await (await t.request('GET', `/v1/projects/${t.projectId}/printers`)).json()),
    ).toBe(true)
    expect(schema('/health', 'get', '200')(await (await fetch(`${t.url}/health`)).json())).toBe(true)
    const events = t.hub.store.events.after(t.projectId, 0, 100)
    expect(events.length).toBeGreaterThan(0)
    const event = schema('/v1/projects/{projectId}/events', 'get', '200', 'text/event-stream')
    for (const e of events) expect([e.type, event(JSON.parse(JSON.stringify(e)))]).toEqual([e.type, true])
    const error = await (await t.request('GET', `/v1/projects/${t.projectId}/jobs/nothing`)).json()
    expect(ajv.compile(document.components.responses.Error.content['application/json'].schema)(error)).toBe(true)
    // The request body's schema is the hub's rule: what it refuses, the schema refuses too.
    const body = ajv.compile(
      document.paths['/v1/projects/{projectId}/jobs'].post.requestBody.content['application/json'].schema,
    )
    expect(body(jobBody())).toBe(true)
    for (const bad of [
      jobBody({ extra: 1 }),
      jobBody({ printerId: '' }),
      jobBody({ document: { width: 81, sections: [] } }),
      jobBody({ maxAttempts: 0 }),
    ])
      expect(body(bad)).toBe(false)
  })
})
