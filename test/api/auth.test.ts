// Authentication exactly as the specification says: Bearer project keys, 401 and 403.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { jobBody, startTestHub, type TestHub } from '../support/hub.ts'

let t: TestHub
let otherProjectKey: string
let readOnlyKey: string
let writeOnlyKey: string
let revokedKey: string

beforeAll(async () => {
  t = await startTestHub()
  const { store } = t.hub
  const other = store.projects.create('other')
  otherProjectKey = store.apiKeys.create(other.id, ['jobs:read', 'jobs:write'], null).secret
  readOnlyKey = store.apiKeys.create(t.projectId, ['jobs:read'], null).secret
  writeOnlyKey = store.apiKeys.create(t.projectId, ['jobs:write'], null).secret
  const revoked = store.apiKeys.create(t.projectId, ['jobs:read', 'jobs:write'], null)
  store.apiKeys.revoke(revoked.key.id)
  revokedKey = revoked.secret
})
afterAll(() => t.stop())

const jobsPath = () => `/v1/projects/${t.projectId}/jobs`

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status)
  const body = await response.json()
  expect(body.error.code).toBe(code)
  expect(body.error.requestId).toBe(response.headers.get('x-request-id')!)
  return body
}

describe('API key authentication', () => {
  const unauthorizedCases: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['another scheme', { authorization: `Basic ${btoa('user:pass')}` }],
    ['no key after Bearer', { authorization: 'Bearer ' }],
    ['a key without its prefix', { authorization: 'Bearer abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq' }],
    ['a key of the wrong length', { authorization: 'Bearer phk_short' }],
    [
      'two keys',
      {
        authorization:
          'Bearer phk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa phk_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
      },
    ],
    ['an unknown well-formed key', { authorization: 'Bearer phk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
  ]
  for (const [name, headers] of unauthorizedCases) {
    test(`401 for ${name}, on both job routes`, async () => {
      await expectError(await t.request('GET', jobsPath(), { key: null, headers }), 401, 'unauthorized')
      const post = await t.request('POST', jobsPath(), { key: null, headers, body: jobBody() })
      await expectError(post, 401, 'unauthorized')
      expect(post.headers.get('www-authenticate')).toBe('Bearer')
    })
  }

  test('401 for a revoked key', async () => {
    await expectError(await t.request('GET', jobsPath(), { key: revokedKey }), 401, 'unauthorized')
    await expectError(await t.request('POST', jobsPath(), { key: revokedKey, body: jobBody() }), 401, 'unauthorized')
  })

  test("401 for another project's key, and for an unknown project", async () => {
    await expectError(await t.request('GET', jobsPath(), { key: otherProjectKey }), 401, 'unauthorized')
    await expectError(
      await t.request('POST', jobsPath(), { key: otherProjectKey, body: jobBody() }),
      401,
      'unauthorized',
    )
    await expectError(await t.request('GET', '/v1/projects/prj_nope/jobs'), 401, 'unauthorized')
  })

  test('403 for a valid key without the scope', async () => {
    await expectError(await t.request('POST', jobsPath(), { key: readOnlyKey, body: jobBody() }), 403, 'forbidden')
    await expectError(await t.request('GET', jobsPath(), { key: writeOnlyKey }), 403, 'forbidden')
    expect((await t.request('GET', jobsPath(), { key: readOnlyKey })).status).toBe(200)
    expect((await t.request('POST', jobsPath(), { key: writeOnlyKey, body: jobBody() })).status).toBe(202)
  })

  test('the scheme name is case-insensitive', async () => {
    expect(
      (await t.request('GET', jobsPath(), { key: null, headers: { authorization: `bearer ${t.apiKey}` } })).status,
    ).toBe(200)
  })

  test('authentication comes before the body: an unauthenticated oversized body is refused 401', async () => {
    const response = await t.request('POST', jobsPath(), { key: null, body: 'x'.repeat(3_000_000) })
    await expectError(response, 401, 'unauthorized')
  })

  test('health, discovery and pairing need no key', async () => {
    expect((await t.request('GET', '/health', { key: null })).status).toBe(200)
    expect((await t.request('GET', '/.well-known/printservice', { key: null })).status).toBe(200)
    const pair = await t.request('POST', '/printservice/pair', { key: null, body: {} })
    expect(pair.status).toBe(400)
    expect((await pair.json()).error.code).toBe('invalid_public_key')
  })

  test('error bodies never echo the key', async () => {
    const response = await t.request('GET', jobsPath(), { key: otherProjectKey })
    const text = await response.text()
    expect(text).not.toContain(otherProjectKey)
    expect(t.logs.join('\n')).not.toContain(otherProjectKey)
    expect(t.logs.join('\n')).not.toContain(t.apiKey)
  })
})
