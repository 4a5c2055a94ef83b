// A run through every route of the admin API on a test hub, as the dashboard and a technician use
// them: each call's request and answer (a copy of it) are handed to `check`, which the admin
// API's contract test compares with the OpenAPI document. Starts signed in as the first owner.
import { expect } from 'bun:test'
import { ADMIN_API_PREFIX } from '../../src/protocol/admin-api.ts'
import { CloudPrntPrinter } from './cloudprnt-printer.ts'
import { FakeAgent, pairAgent, virtualPrinter } from './fake-agent.ts'
import { adminToken } from './fixtures.ts'
import type { TestHub } from './hub.ts'
import { waitFor } from './wait.ts'

export interface AdminCall {
  method: string
  /** Under the admin API's prefix, with its query. */
  path: string
  body: unknown
  /** The answer, for the check to read (JSON a copy of it). */
  response: Response
}

type Session = { cookie: string; csrf: string }
type As = Session | string

export async function adminRun(hub: TestHub, owner: Session, check: (call: AdminCall) => Promise<void>) {
  const token = adminToken(hub.hub.store, 'owner')
  /** The answer of a call, checked; its JSON when it is JSON. */
  const call = async (method: string, path: string, body?: unknown, as: As | null = owner): Promise<any> => {
    const headers: Record<string, string> =
      as === null || typeof as === 'string' ? {} : { cookie: as.cookie, 'x-csrf-token': as.csrf }
    const response = await hub.request(method, ADMIN_API_PREFIX + path, {
      key: typeof as === 'string' ? as : null,
      body,
      headers,
    })
    const type = response.headers.get('content-type') ?? ''
    if (type.startsWith('text/event-stream')) return check({ method, path, body, response: await firstEvent(response) })
    if (!type.startsWith('application/json')) return check({ method, path, body, response })
    const text = await response.text()
    await check({ method, path, body, response: new Response(text, response) })
    return JSON.parse(text)
  }
  const post = (path: string, body?: unknown, as?: As | null) => call('POST', path, body, as)
  const publicCall = async (method: string, path: string, body?: unknown) =>
    (await hub.request(method, `/v1/projects/${hub.projectId}${path}`, { body })).json() as Promise<any>
  const jobState = async (id: string) => (await call('GET', `/jobs/${id}`)).job.state as string

  // Signing in and one's own account.
  await call('GET', '/login', undefined, null)
  const password = 'owner password one'
  const other = await post('/login', { name: 'olga', password }, null)
  await call('GET', '/session')
  await call('GET', '/session', undefined, token)
  await call('PUT', '/session/language', { language: 'de' })
  await call('PUT', '/session/language', { language: null })
  await call('GET', '/sessions')
  await post(`/sessions/${other.session.id}/revoke`)
  await post('/sessions/revoke-others')
  await call('PUT', '/password', { currentPassword: password, newPassword: 'owner password two' })
  const made = await post('/tokens', { name: 'script' })
  await call('GET', '/tokens')
  await post(`/tokens/${made.token.id}/revoke`)

  // The overview, and the stream of changes.
  await call('GET', '/overview')
  await call('GET', '/events')

  // Printers: models, what is plugged in, adding, editing, a test page, its history and receipt.
  await call('GET', '/profiles')
  await call('GET', '/printers/detect')
  const counter = (
    await post('/printers', { projectId: hub.projectId, id: 'counter', connection: 'virtual://counter' })
  ).printer
  await call('PATCH', `/printers/${counter.id}`, { name: 'Counter', width: 58, profile: 'generic-58mm' })
  const test = await post(`/printers/${counter.id}/test`)
  await waitFor(async () => (await jobState(test.job.id)) === 'COMPLETED', 10_000)
  await call('GET', `/printers/${counter.id}/last-receipt.png`)
  await call('GET', `/printers/${counter.id}/history`)
  await call('GET', '/printers')
  // A printer that polls: seen, then adopted.
  const star = new CloudPrntPrinter({ url: `${hub.url}/cloudprnt`, mac: '00:11:62:aa:00:42' })
  await star.poll()
  await call('GET', '/printers/polling')
  const adopted = (
    await post('/printers/adopt', { printer: '00:11:62:aa:00:42', projectId: hub.projectId, id: 'star' })
  ).printer
  await call('DELETE', `/printers/${adopted.id}`)

  // Jobs: one printed, one waiting (cancelled), a reprint, and one posted to every printer of a destination.
  const waiting = (
    await post('/printers', { projectId: hub.projectId, id: 'off', connection: 'virtual://off?mode=offline' })
  ).printer
  const document = { width: 80, sections: [{ type: 'text', value: 'Table 7' }, { type: 'cut' }] }
  const printed = (await publicCall('POST', '/jobs', { printerId: 'demo', idempotencyKey: 'a', document })).job
  await waitFor(async () => (await jobState(printed.id)) === 'COMPLETED', 10_000)
  await call('GET', `/jobs/${printed.id}`)
  await call('GET', `/jobs/${printed.id}/preview.png`)
  await post(`/jobs/${printed.id}/reprint`)
  const held = (await publicCall('POST', '/jobs', { printerId: 'off', idempotencyKey: 'b', document })).job
  await post(`/jobs/${held.id}/cancel`)
  await post(`/projects/${hub.projectId}/destinations`, { name: 'everywhere', mode: 'all', printers: ['demo', 'off'] })
  const parent = (await publicCall('POST', '/jobs', { printerId: 'everywhere', idempotencyKey: 'c', document })).job
  const fanOut = await call('GET', `/jobs/${parent.id}`)
  await call('GET', `/jobs/${fanOut.children[0].job.id}`)
  await call('GET', `/jobs?project=${hub.projectId}&state=COMPLETED&q=Table`)
  await call('GET', '/jobs?fanOut=true')
  await call('GET', '/destinations')
  await call('DELETE', `/projects/${hub.projectId}/destinations/everywhere`)
  await call('DELETE', `/printers/${waiting.id}`)

  // Projects and their keys.
  const project = (await post('/projects', { name: 'Bar' })).project
  await call('GET', '/projects')
  const key = (await post(`/projects/${project.id}/keys`, { name: 'till', scopes: ['jobs:read', 'jobs:write'] })).key
  await call('GET', `/projects/${project.id}/keys`)
  await post(`/keys/${key.id}/revoke`)

  // Agents: a pairing code printed, the agent it pairs with its printers, revoked.
  const code = await post('/pairing-codes', { ttlSeconds: 600, printOn: counter.id })
  const credentials = await pairAgent(hub.url, code.code, 'bar-pi')
  const agent = await FakeAgent.online(hub.url, credentials, [virtualPrinter('till')])
  try {
    await waitFor(
      async () =>
        (await hub
          .request('GET', `${ADMIN_API_PREFIX}/agents`, { key: token })
          .then((response) => response.json())
          .then(({ agents }) => agents.find((a: { id: string }) => a.id === credentials.agentId)?.printers.length)) > 0,
    )
    await call('GET', '/agents')
    await post(`/agents/${credentials.agentId}/revoke`)
  } finally {
    await agent.close()
  }

  // Settings, a backup, webhooks.
  await call('GET', '/settings')
  await call('PUT', '/settings', { serverName: 'Bar hub', retentionDays: 14 })
  await call('GET', '/backup', undefined, token)
  const webhook = (await publicCall('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['job.created'] }))
    .webhook
  await post(`/webhooks/${webhook.id}/test`)
  await call('GET', '/webhooks')
  await post(`/webhooks/${webhook.id}/enable`)
  await call('DELETE', `/webhooks/${webhook.id}`)

  // Accounts, the audit log, the document itself; and signing out.
  const added = (await post('/users', { name: 'sam', role: 'staff', password: 'staff password two' })).user
  await call('PATCH', `/users/${added.id}`, { role: 'technician', disabled: true })
  await call('GET', '/users')
  const page = await call('GET', '/audit?limit=2')
  expect(page.nextCursor).toBeString()
  await call('GET', `/audit?limit=2&cursor=${page.nextCursor}`)
  await call('GET', '/audit.csv')
  await call('GET', '/openapi.json')
  await post('/logout')
}

/** The stream's first event, as its own answer (the stream is closed). */
async function firstEvent(response: Response): Promise<Response> {
  const reader = response.body!.getReader()
  let text = ''
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value)
  await reader.cancel()
  return new Response(text.slice(0, text.indexOf('\n\n') + 2), { headers: response.headers })
}
