// Every change through the admin API and the public API is in the audit log once, named by the
// operation that made it (not by its route), with who made it, on what and from where; job
// submissions are not (their events are their record). A sign-in and a failed one too.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { adminToken } from '../support/fixtures.ts'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'
import { PNG_1X1 } from '../support/images.ts'

let hub: TestHub
let owner: string

beforeAll(async () => {
  hub = await startTestHub({ offline: true })
  owner = adminToken(hub.hub.store, 'owner', 'olga')
})
afterAll(() => hub.stop())

async function admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await hub.request(method, `/admin/v1${path}`, { key: owner, body })
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`)
  return (answer.headers.get('content-type')?.includes('json') ? await answer.json() : null) as T
}

async function application(method: string, path: string, body?: unknown): Promise<any> {
  const answer = await hub.request(method, `/v1/projects/${hub.projectId}${path}`, { body })
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`)
  return answer.status === 204 ? null : answer.json()
}

test('each change once, named by its operation, with who, on what and from where', async () => {
  const project = (await admin('POST', '/projects', { name: ' Bar ' })).project
  const { key } = await admin('POST', `/projects/${project.id}/keys`, { scopes: ['jobs:read'] })
  await admin('POST', `/keys/${key.id}/revoke`)
  const shelf = (await admin('POST', '/printers', { projectId: hub.projectId, id: 'shelf', connection: 'virtual' }))
    .printer
  await admin('PATCH', `/printers/${shelf.id}`, { name: 'Shelf' })
  await admin('POST', `/printers/${shelf.id}/test`)
  await admin('POST', `/projects/${hub.projectId}/destinations`, { name: 'both', printers: ['demo', 'shelf'] })
  await admin('DELETE', `/projects/${hub.projectId}/destinations/both`)
  await admin('PUT', '/settings', { retentionDays: 45, serverName: 'Bar Luna' })
  await admin('POST', '/pairing-codes', {})
  const waiting = await submitJob(hub)
  await admin('POST', `/jobs/${waiting.id}/cancel`)
  await admin('POST', `/jobs/${waiting.id}/reprint`)
  await admin('DELETE', `/printers/${shelf.id}`)
  const sam = (await admin('POST', '/users', { name: 'sam', role: 'staff', password: 'a password for sam' })).user
  await admin('PATCH', `/users/${sam.id}`, { role: 'technician', password: 'another password for sam' })
  const token = (await admin('POST', '/tokens', { name: 'script' })).token
  await admin('POST', `/tokens/${token.id}/revoke`)
  await admin('PUT', '/session/language', { language: 'de' })
  await admin('POST', '/logout')
  const webhook = (await application('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['job.created'] }))
    .webhook
  await admin('POST', `/webhooks/${webhook.id}/test`)
  await admin('DELETE', `/webhooks/${webhook.id}`)
  await application('PUT', '/images/logo', { mediaType: 'image/png', data: PNG_1X1 })
  await application('DELETE', '/images/logo')
  expect(
    (await hub.request('POST', '/admin/v1/login', { key: null, body: { name: 'sam', password: 'wrong' } })).status,
  ).toBe(401)

  const { entries } = await admin<{ entries: { user: string | null; action: string; target: string | null }[] }>(
    'GET',
    '/audit?limit=500',
  )
  const keyPrefix = hub.hub.store.apiKeys.list(hub.projectId)[0]!.keyPrefix
  const app = `API key ${keyPrefix}`
  expect(entries.reverse().map(({ user, action, target }) => [user, action, target])).toEqual([
    ['olga', 'projects.create', 'Bar'],
    ['olga', 'keys.create', project.id],
    ['olga', 'keys.revoke', key.id],
    ['olga', 'printers.add', 'shelf'],
    ['olga', 'printers.change', shelf.id],
    ['olga', 'printers.test', shelf.id],
    ['olga', 'destinations.create', 'both'],
    ['olga', 'destinations.delete', 'both'],
    ['olga', 'settings.set', 'server-name Bar Luna, retention-days 45'],
    ['olga', 'pairing-codes.create', null],
    ['olga', 'jobs.cancel', waiting.id],
    ['olga', 'jobs.reprint', waiting.id],
    ['olga', 'printers.remove', shelf.id],
    ['olga', 'users.create', 'sam (staff)'],
    ['olga', 'users.role', 'sam (technician)'],
    ['olga', 'users.password', 'sam'],
    ['olga', 'tokens.create', 'olga: script'],
    ['olga', 'tokens.revoke', token.id],
    ['olga', 'users.language', 'olga'],
    ['olga', 'session.sign_out', null],
    [app, 'webhooks.create', webhook.id],
    ['olga', 'webhooks.test', webhook.id],
    ['olga', 'webhooks.delete', webhook.id],
    [app, 'images.put', 'logo'],
    [app, 'images.delete', 'logo'],
    ['sam', 'session.sign_in_failed', null],
  ])
  expect(new Set(entries.map((entry) => (entry as unknown as { address: string }).address))).toEqual(
    new Set(['127.0.0.1']),
  )
})
