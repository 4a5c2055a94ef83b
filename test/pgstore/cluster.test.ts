// Three nodes of a cluster on one real PostgreSQL, each a real HTTP server with its gateway, agents spread over them:
// a job posted to any node is sent once, by the node that holds its printer's agent, and its state is the same on
// every node; thirty posts of one idempotency key over the three make one job; a stream on one node tells of jobs
// accepted on another; an agent that moves to another node takes its printer's lane with it, nothing sent twice.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { resolveConfig } from '../../src/hub/config.ts'
import { type ClusterNode, startClusterNode } from '../../src/hub/start-node.ts'
import { migrate } from '../../src/pgstore/migrate.ts'
import { API_KEY_SCOPES } from '../../src/protocol/api-key.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import { type AgentCredentials, FakeAgent, type Frame, pairAgent, virtualPrinter } from '../support/fake-agent.ts'
import { tempDir } from '../support/hub.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'
import { waitFor } from '../support/wait.ts'
import { pairingRequest } from '../support/agent-key.ts'

let pg: TestPostgres
let url: string
let nodes: ClusterNode[] = []
const agents: FakeAgent[] = []
let services: HubServices
let projectId: string
let apiKey: string

/** A printer of each agent, named after the node it first connected to. */
const TILLS = ['till-a', 'till-b', 'till-c']

beforeAll(async () => {
  pg = await startPostgres()
  url = await pg.database('cluster')
  const sql = new SQL(url)
  await migrate(sql)
  await sql.close()
  const env = { PRINTHUB_ACK_TIMEOUT_MS: '2000', PRINTHUB_CLUSTER_LEASE_SECONDS: '2' }
  nodes = await Promise.all(
    [0, 1, 2].map(() =>
      startClusterNode(resolveConfig({ host: '127.0.0.1', port: '0', data: tempDir() }, env), url, {
        events: () => {},
        log: () => {},
      }),
    ),
  )
  services = new HubServices(undefined, { units: nodes[0]!.store })
  const project = await services.projects.create(THE_MACHINE, 'Brasserie du Port')
  if (project.kind !== 'created') throw new Error(project.kind)
  projectId = project.project.id
  const key = await services.keys.create(THE_MACHINE, projectId, { scopes: [...API_KEY_SCOPES], name: 'pos' })
  if (key.kind !== 'created') throw new Error(key.kind)
  apiKey = key.secret
  for (const [i, node] of nodes.entries()) {
    const code = await services.agents.createPairingCode(THE_MACHINE, { ttlMs: 300_000 })
    if (code.kind !== 'created') throw new Error(code.kind)
    // Paired through any node: the pairing code is the database's.
    const credentials: AgentCredentials = await pairAgent(nodes[(i + 1) % 3]!.url, code.code)
    agents.push(await FakeAgent.online(node.url, credentials, [virtualPrinter('till')]))
    const assigned = await waitFor(async () => {
      const outcome = await services.printers.assign(THE_MACHINE, {
        projectId,
        agentId: credentials.agentId,
        agentPrinterId: 'till',
        id: TILLS[i]!,
      })
      return outcome.kind === 'not_reported' ? undefined : outcome
    }, 5_000)
    expect(assigned.kind).toBe('added')
  }
}, 60_000)

afterAll(async () => {
  for (const agent of agents) await agent.close()
  await Promise.all(nodes.map((node) => node.stop()))
  await pg?.stop()
})

const post = (node: ClusterNode, body: Record<string, unknown>) =>
  fetch(`${node.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

const job = (printerId: string, idempotencyKey: string) => ({
  printerId,
  idempotencyKey,
  document: {
    width: 80,
    sections: [{ type: 'text', value: `Table 4 · ${idempotencyKey} · crème brûlée` }, { type: 'cut' }],
  },
})

const stateOn = async (node: ClusterNode, jobId: string): Promise<string> => {
  const response = await fetch(`${node.url}/v1/projects/${projectId}/jobs/${jobId}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  })
  return ((await response.json()) as { job: { state: string } }).job.state
}

/** The agent prints what it is sent: received, then submitted (a stock agent: submitted is printed). */
const printNext = async (agent: FakeAgent): Promise<Frame> => {
  const frame = await agent.next('server.print_job', { timeoutMs: 5_000 })
  agent.jobReceived(frame)
  agent.jobSubmitted(frame)
  return frame
}

describe('a cluster of three nodes on one PostgreSQL', () => {
  test('a job posted to any node is sent once, by the node holding its agent; every node says it printed', async () => {
    for (const [i, agent] of agents.entries()) {
      for (const [j, node] of nodes.entries()) {
        const response = await post(node, job(TILLS[i]!, `order-${i}-${j}`))
        expect(response.status).toBe(202)
        const posted = ((await response.json()) as { job: { id: string } }).job
        const frame = await printNext(agent)
        expect(frame.payload.jobId).toBe(`${posted.id}.a1`)
        for (const other of nodes)
          expect(await waitFor(async () => (await stateOn(other, posted.id)) === 'COMPLETED' || undefined, 5_000)).toBe(
            true,
          )
      }
    }
    // Each agent was sent its own printer's three jobs, each once.
    for (const agent of agents) expect(agent.all('server.print_job')).toHaveLength(3)
  }, 60_000)

  test('thirty posts of one idempotency key over the three nodes make one job, printed once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, n) => post(nodes[n % 3]!, job(TILLS[0]!, 'order-once'))),
    )
    const statuses = answers.map((answer) => answer.status).sort()
    expect(statuses.filter((status) => status === 202)).toHaveLength(1)
    expect(statuses.filter((status) => status === 200)).toHaveLength(29)
    const ids = new Set(
      await Promise.all(answers.map(async (a) => ((await a.json()) as { job: { id: string } }).job.id)),
    )
    expect(ids.size).toBe(1)
    await printNext(agents[0]!)
    expect(
      agents[0]!.all('server.print_job').filter((frame) => frame.payload.jobId.startsWith([...ids][0]!)),
    ).toHaveLength(1)
  }, 30_000)

  test('a stream on one node tells of a job accepted on another', async () => {
    const stream = await fetch(`${nodes[0]!.url}/v1/projects/${projectId}/events`, {
      headers: { authorization: `Bearer ${apiKey}` },
    })
    expect(stream.status).toBe(200)
    const reader = stream.body!.getReader()
    const response = await post(nodes[2]!, job(TILLS[1]!, 'order-streamed'))
    const posted = ((await response.json()) as { job: { id: string } }).job
    let text = ''
    const decoder = new TextDecoder()
    await waitFor(async () => {
      const { value } = await reader.read()
      text += decoder.decode(value)
      return text.includes(`"id":"${posted.id}"`) && text.includes('event: job.created')
    }, 5_000)
    await reader.cancel()
    await printNext(agents[1]!)
  }, 30_000)

  test("every node lists the agents' printers: ready while their agent is on some node, else offline", async () => {
    const states = async (node: ClusterNode) => {
      const response = await fetch(`${node.url}/v1/projects/${projectId}/printers`, {
        headers: { authorization: `Bearer ${apiKey}` },
      })
      const { printers } = (await response.json()) as { printers: { name: string; state: string }[] }
      return Object.fromEntries(printers.map((printer) => [printer.name, printer.state]))
    }
    // Connected: ready, or busy with a job the tests before left with its agent.
    for (const node of nodes)
      for (const till of ['till-a', 'till-b']) expect(['ready', 'busy']).toContain((await states(node))[till] ?? '')
    // An agent gone from its node: offline on every node, once its lease is given up.
    await agents[0]!.close()
    for (const node of nodes)
      expect(await waitFor(async () => ((await states(node))['till-a'] === 'offline' ? true : undefined), 5_000)).toBe(
        true,
      )
    agents[0] = await FakeAgent.online(nodes[1]!.url, agents[0]!.credentials, [virtualPrinter('till')])
    for (const node of nodes)
      expect(await waitFor(async () => ((await states(node))['till-a'] === 'ready' ? true : undefined), 5_000)).toBe(
        true,
      )
  }, 30_000)

  test('an agent that moves to another node takes its lane with it: its next job is sent there, once', async () => {
    const moving = agents[2]!
    await moving.close()
    const again = await FakeAgent.online(nodes[0]!.url, moving.credentials, [virtualPrinter('till')])
    agents[2] = again
    const response = await post(nodes[1]!, job(TILLS[2]!, 'order-after-move'))
    const posted = ((await response.json()) as { job: { id: string } }).job
    const frame = await printNext(again)
    expect(frame.payload.jobId).toBe(`${posted.id}.a1`)
    expect(await waitFor(async () => (await stateOn(nodes[2]!, posted.id)) === 'COMPLETED' || undefined, 5_000)).toBe(
      true,
    )
    expect(moving.all('server.print_job').filter((f) => f.payload.jobId.startsWith(posted.id))).toHaveLength(0)
  }, 30_000)

  test("a webhook's deliveries, from events written on every node, are sent once each, in order", async () => {
    const received: { id: string; type: string }[] = []
    const receiver = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        received.push({
          id: request.headers.get('webhook-id')!,
          type: ((await request.json()) as { type: string }).type,
        })
        return new Response(null, { status: 204 })
      },
    })
    try {
      const url = `http://127.0.0.1:${receiver.port}/printhub`
      await services.webhooks.create(THE_MACHINE, projectId, { url, events: ['job.created'], description: 'POS' })
      const posted: string[] = []
      for (let n = 0; n < 12; n++) {
        const response = await post(nodes[n % 3]!, job(TILLS[n % 3]!, `order-hooked-${n}`))
        posted.push(((await response.json()) as { job: { id: string } }).job.id)
      }
      await waitFor(() => received.length >= 12 || undefined, 10_000)
      for (const [i, agent] of agents.entries()) for (let n = i; n < 12; n += 3) await printNext(agent)
      // Every node sends, none twice: twelve creations, their event IDs growing.
      expect(received).toHaveLength(12)
      expect(new Set(received.map((r) => r.id)).size).toBe(12)
      const ids = received.map((r) => Number(r.id.slice('evt_'.length)))
      expect(ids).toEqual([...ids].sort((a, b) => a - b))
    } finally {
      receiver.stop(true)
    }
  }, 30_000)

  // Last: it leaves this address locked out of pairing.
  test('a code tried again and again is stopped across nodes: the cluster counts its failures', async () => {
    const pair = async (node: ClusterNode, code: string) => {
      const response = await fetch(`${node.url}/printservice/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(await pairingRequest(code)),
      })
      return ((await response.json()) as { error?: { code: string } }).error?.code
    }
    // Five failures of one code, spread over the three nodes: the sixth, on any node, is refused before it is tried.
    for (let n = 0; n < 5; n++) expect(await pair(nodes[n % 3]!, 'ZZZZ-ZZZZ')).toBe('pairing_code_invalid')
    for (const node of nodes) expect(await pair(node, 'zzzz-zzzz')).toBe('pairing_rate_limited')
    // What was tried is kept only as a hash.
    const sql = new SQL(url)
    const rows = await sql<{ key_hash: string }[]>`SELECT key_hash FROM failure_counts`
    await sql.close()
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.key_hash))).toBe(true)
  }, 30_000)

  test('an agent revoked through one node is ended on the node that holds it, within a sweep', async () => {
    const agent = agents[2]!
    const revoked = await services.agents.revoke(THE_MACHINE, agent.credentials.agentId)
    expect(revoked.kind).toBe('revoked')
    const frame = await agent.next('server.disconnect', { timeoutMs: 5_000 })
    expect(frame.payload).toMatchObject({ code: 'credential_revoked', reconnect: false })
  }, 30_000)
})
