// The admin API and the dashboard on two nodes of a cluster on one real PostgreSQL: the first owner made through
// the one setup link the nodes share, a session made on one node that works on the other, wrong passwords counted
// across nodes (the limit holds whichever node is asked), the overview and the printers the same on both with an
// agent held by one of them, a project made on one listed on the other, an open dashboard on one node told of a job
// accepted on the other, and a backup download refused with where to look instead.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { ClusterNode } from '../../src/hub/start-node.ts'
import { LOGIN_FAILURES } from '../../src/http/failure-rate-limit.ts'
import { ADMIN_API_PREFIX } from '../../src/protocol/admin-api.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import { agentWithPrinter, migratedDatabase, projectWithKey, startNode } from '../support/cluster.ts'
import type { FakeAgent } from '../support/fake-agent.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'
import { waitFor } from '../support/wait.ts'

const PASSWORD = 'correct horse battery'
let pg: TestPostgres
let nodes: ClusterNode[] = []
let agent: FakeAgent
let services: HubServices
let projectId: string
let apiKey: string
const lines: string[] = []

beforeAll(async () => {
  pg = await startPostgres()
  const url = await migratedDatabase(pg, 'cluster_admin')
  // One after the other: the second finds the first's setup link valid and keeps it.
  for (const _ of [0, 1]) nodes.push(await startNode(url, {}, (line) => lines.push(line)))
  services = new HubServices(undefined, { units: nodes[0]!.store })
  ;({ projectId, apiKey } = await projectWithKey(services, 'Brasserie du Port'))
  // An agent held by the second node, with a printer of the project.
  ;({ agent } = await agentWithPrinter(services, nodes[1]!.url, { projectId, printer: 'bar' }))
}, 60_000)

afterAll(async () => {
  await agent?.close()
  await Promise.all(nodes.map((node) => node.stop()))
  await pg?.stop()
})

type Session = { cookie: string; csrf: string }

/** A call of the admin API on `node`, as `as` (a session) when given. */
const admin = (node: ClusterNode, method: string, path: string, options: { body?: unknown; as?: Session } = {}) =>
  fetch(node.url + ADMIN_API_PREFIX + path, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.as ? { cookie: options.as.cookie, 'x-csrf-token': options.as.csrf } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })

async function sessionOf(response: Response): Promise<Session> {
  expect(response.status).toBe(200)
  return {
    cookie: response.headers.get('set-cookie')!.split(';')[0]!,
    csrf: ((await response.json()) as { csrfToken: string }).csrfToken,
  }
}

let owner: Session
/** The job the dashboard's stream is told of. */
let jobId: string

test('the first node made the setup link, the second kept it: made on one node, used on the other, once', async () => {
  const [first, second] = nodes as [ClusterNode, ClusterNode]
  expect(first.setupToken).toBeString()
  expect(second.setupToken).toBeUndefined()
  owner = await sessionOf(
    await admin(second, 'POST', '/setup', { body: { token: first.setupToken, password: PASSWORD } }),
  )
  const again = await admin(first, 'POST', '/setup', { body: { token: first.setupToken, password: PASSWORD } })
  expect(again.status).toBe(401)
  // The session made on the second node is the cluster's.
  const session = await admin(first, 'GET', '/session', { as: owner })
  expect(session.status).toBe(200)
  expect(((await session.json()) as { user: { role: string } }).user.role).toBe('owner')
})

test('the overview and the printers are the same on every node: the agent held by one is online on both', async () => {
  const overviews = await Promise.all(
    nodes.map(async (node) => (await admin(node, 'GET', '/overview', { as: owner })).json() as Promise<any>),
  )
  for (const overview of overviews) {
    const bar = overview.printers.find((p: { remoteId: string }) => p.remoteId === 'bar')
    expect(bar).toMatchObject({ projectId, agentOnline: true, builtin: false, queue: 0 })
    expect(bar.state).not.toBe('offline')
    // The cluster's built-in agent (each node runs it) and the paired one.
    expect(overview.agents).toEqual({ online: 2, paired: 2 })
  }
  expect(overviews[0].printers).toEqual(overviews[1].printers)
  const listed = await Promise.all(
    nodes.map(async (node) => (await admin(node, 'GET', '/printers', { as: owner })).json() as Promise<any>),
  )
  expect(listed[0]).toEqual(listed[1])
  const agents = (await (await admin(nodes[0]!, 'GET', '/agents', { as: owner })).json()) as any
  expect(agents.agents.find((a: { id: string }) => a.id === agent.agentId).online).toBe(true)
})

test('a project made through one node is listed by the other, with its audit entry', async () => {
  const made = await admin(nodes[0]!, 'POST', '/projects', { body: { name: 'Café de la Gare' }, as: owner })
  expect(made.status).toBe(201)
  const { project } = (await made.json()) as { project: { id: string } }
  const listed = (await (await admin(nodes[1]!, 'GET', '/projects', { as: owner })).json()) as any
  expect(listed.projects.map((p: { id: string }) => p.id)).toContain(project.id)
  const audit = (await (await admin(nodes[1]!, 'GET', '/audit', { as: owner })).json()) as any
  expect(audit.entries.some((e: { action: string }) => e.action === 'projects.create')).toBe(true)
})

test('an open dashboard on one node is told at once of a job accepted by the other', async () => {
  const controller = new AbortController()
  const stream = await fetch(`${nodes[0]!.url}${ADMIN_API_PREFIX}/events`, {
    headers: { cookie: owner.cookie },
    signal: controller.signal,
  })
  expect(stream.headers.get('content-type')).toStartWith('text/event-stream')
  const reader = stream.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const nextChange = async () => {
    for (;;) {
      const end = text.indexOf('\n\n')
      if (end >= 0) {
        const event = text.slice(0, end)
        text = text.slice(end + 2)
        if (event.startsWith('event: change')) return JSON.parse(event.slice(event.indexOf('data: ') + 6))
        continue
      }
      const { value, done } = await reader.read()
      if (done) throw new Error('the stream ended')
      text += decoder.decode(value, { stream: true })
    }
  }
  const before = await nextChange()
  const posted = await fetch(`${nodes[1]!.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      printerId: 'bar',
      idempotencyKey: 'order-1',
      document: { width: 80, sections: [{ type: 'text', value: 'Un café crème' }, { type: 'cut' }] },
    }),
  })
  expect(posted.status).toBe(202)
  jobId = ((await posted.json()) as { job: { id: string } }).job.id
  const after = await nextChange()
  controller.abort()
  const total = (overview: { jobsToday: { counts: Record<string, number> } }) =>
    Object.values(overview.jobsToday.counts).reduce((a, b) => a + b, 0)
  expect(total(after)).toBe(total(before) + 1)
})

test(`a right password takes its attempt back: ${LOGIN_FAILURES.limit + 2} sign-ins over both nodes`, async () => {
  for (let i = 0; i < LOGIN_FAILURES.limit + 2; i++)
    expect((await admin(nodes[i % 2]!, 'POST', '/login', { body: { password: PASSWORD } })).status).toBe(200)
}, 60_000)

test(`wrong passwords are counted across nodes: of ${3 * LOGIN_FAILURES.limit} at once from one address over both, ` +
  `${LOGIN_FAILURES.limit} are checked, the rest and the right one get 429 on each`, async () => {
  const wrong = (node: ClusterNode) => admin(node, 'POST', '/login', { body: { password: 'wrong password!' } })
  const sent = 3 * LOGIN_FAILURES.limit
  const answers = await Promise.all(Array.from({ length: sent }, (_, i) => wrong(nodes[i % 2]!)))
  const counts: Record<number, number> = {}
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1
  expect(counts).toEqual({ 401: LOGIN_FAILURES.limit, 429: sent - LOGIN_FAILURES.limit })
  for (const node of nodes) {
    const limited = await admin(node, 'POST', '/login', { body: { password: PASSWORD } })
    expect(limited.status).toBe(429)
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
  }
  // Said in the log of the node that counted the last failure, with the address and no password.
  const told = lines.filter((line) => line.includes('locked out after wrong passwords'))
  expect(told.length).toBe(1)
  expect(told.join('\n')).not.toContain('wrong password!')
}, 60_000)

test('every reading of the admin API answers on each node, the same where it reads only the data', async () => {
  const printers = (await (await admin(nodes[0]!, 'GET', '/printers', { as: owner })).json()) as any
  const bar = printers.printers.find((p: { remoteId: string }) => p.remoteId === 'bar').id
  const reads = [
    '/overview',
    '/agents',
    '/audit',
    '/audit.csv',
    '/destinations',
    '/jobs',
    `/jobs/${jobId}`,
    `/jobs/${jobId}/preview.png`,
    '/printers',
    '/printers/detect',
    '/profiles',
    '/printers/polling',
    `/printers/${bar}/history`,
    '/projects',
    `/projects/${projectId}/keys`,
    '/session',
    '/sessions',
    '/tokens',
    '/settings',
    '/users',
    '/webhooks',
    '/openapi.json',
  ]
  for (const path of reads) {
    const answers = await Promise.all(nodes.map((node) => admin(node, 'GET', path, { as: owner })))
    expect([path, ...answers.map((answer) => answer.status)]).toEqual([path, 200, 200])
    const [one, other] = await Promise.all(answers.map((answer) => answer.arrayBuffer()))
    if (['/jobs', '/projects', '/users', '/settings', `/jobs/${jobId}`].includes(path))
      expect([path, Buffer.from(one!).equals(Buffer.from(other!))]).toEqual([path, true])
  }
})

test("a printer added through one node's admin API is driven by a node: its test page prints", async () => {
  const added = await admin(nodes[0]!, 'POST', '/printers', {
    body: { projectId, id: 'counter', connection: 'virtual' },
    as: owner,
  })
  expect(added.status).toBe(201)
  const { printer } = (await added.json()) as { printer: { id: string } }
  const test = await admin(nodes[1]!, 'POST', `/printers/${printer.id}/test`, { as: owner })
  expect(test.status).toBe(202)
  const { id } = ((await test.json()) as { job: { id: string } }).job
  const state = await waitFor(async () => {
    const answer = (await (await admin(nodes[0]!, 'GET', `/jobs/${id}`, { as: owner })).json()) as any
    return answer.job.state === 'COMPLETED' ? answer.job.state : undefined
  }, 20_000)
  expect(state).toBe('COMPLETED')
}, 30_000)

test('a printer added while the nodes run reads ready on every node, as its driver records it', async () => {
  const added = await admin(nodes[1]!, 'POST', '/printers', {
    body: { projectId, id: 'shelf', connection: 'virtual' },
    as: owner,
  })
  expect(added.status).toBe(201)
  // A virtual printer says nothing of itself: its agent says it is there, and the node driving it records that.
  for (const node of nodes) {
    const ready = await waitFor(async () => {
      const answer = await fetch(`${node.url}/v1/projects/${projectId}/printers/shelf`, {
        headers: { authorization: `Bearer ${apiKey}` },
      })
      const { printer } = (await answer.json()) as { printer: { state: string } }
      return printer.state === 'ready' ? printer.state : undefined
    }, 10_000)
    expect(ready).toBe('ready')
  }
}, 30_000)

test("a backup is refused on a node, saying to use PostgreSQL's tools; the dashboard's pages are served", async () => {
  const refused = await admin(nodes[0]!, 'GET', '/backup', { as: owner })
  expect(refused.status).toBe(409)
  expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('pg_dump')
  const page = await fetch(`${nodes[1]!.url}/dashboard/`)
  expect(page.status).toBe(200)
  expect(page.headers.get('content-type')).toContain('text/html')
})
