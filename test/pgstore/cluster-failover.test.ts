// A failover destination on a cluster of two nodes on one real PostgreSQL, its printers on agents held by different
// nodes: a job posted to any node goes to the first printer that can print; when the first printer's agent leaves,
// what waits at it moves to the next printer (watched by the node doing the cluster's maintenance), its ticket and
// timeline saying so, and is printed there once. A node that dies records nothing: the node doing the maintenance
// records its printers offline once their leases ran out a lease length ago, with their event, counted from then.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import type { ClusterNode } from '../../src/hub/start-node.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import type { Db } from '../../src/storage/repositories.ts'
import { agentWithPrinter, migratedDatabase, projectWithKey, startNode } from '../support/cluster.ts'
import type { FakeAgent, Frame } from '../support/fake-agent.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'
import { waitFor } from '../support/wait.ts'

let pg: TestPostgres
let url: string
let nodes: ClusterNode[] = []
const agents: Record<'bar' | 'kitchen', FakeAgent> = {} as never
let services: HubServices
let projectId: string
let apiKey: string
const records: Record<string, string> = {}

beforeAll(async () => {
  pg = await startPostgres()
  url = await migratedDatabase(pg, 'cluster_failover')
  // The first job held at the bar's agent unanswered, the second waits behind it.
  const env = {
    PRINTHUB_FAILOVER_AFTER_MS: '500',
    PRINTHUB_ACK_TIMEOUT_MS: '60000',
    PRINTHUB_CLUSTER_LEASE_SECONDS: '2',
  }
  nodes = await Promise.all([0, 1].map(() => startNode(url, env)))
  services = new HubServices(undefined, { units: nodes[0]!.store })
  ;({ projectId, apiKey } = await projectWithKey(services, 'Le Comptoir'))
  for (const [i, name] of (['bar', 'kitchen'] as const).entries()) {
    const made = await agentWithPrinter(services, nodes[i]!.url, { projectId, printer: name })
    agents[name] = made.agent
    records[name] = made.recordId
  }
  await services.destinations.create(THE_MACHINE, projectId, 'front', {
    mode: 'failover',
    printers: ['bar', 'kitchen'],
  })
}, 60_000)

afterAll(async () => {
  for (const agent of Object.values(agents)) await agent.close()
  await Promise.all(nodes.map((node) => node.stop()))
  await pg?.stop()
})

const post = async (node: ClusterNode, idempotencyKey: string): Promise<string> => {
  const response = await fetch(`${node.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      printerId: 'front',
      idempotencyKey,
      document: {
        width: 80,
        sections: [{ type: 'text', value: `${idempotencyKey} · crêpe flambée` }, { type: 'cut' }],
      },
    }),
  })
  expect(response.status).toBe(202)
  return ((await response.json()) as { job: { id: string } }).job.id
}

/** A print job frame is of the job's attempt: `JOB.aN`. */
const isOf = (jobId: string) => (frame: Frame) => String(frame.payload.jobId).startsWith(`${jobId}.`)

const jobFrame = (agent: FakeAgent, jobId: string): Promise<Frame> =>
  agent.next('server.print_job', { timeoutMs: 10_000, where: isOf(jobId) })

test("to the bar while it can print; once its agent left, what waits there moves to the kitchen's", async () => {
  const first = await post(nodes[1]!, 'order-1')
  // Sent to the bar's agent (held by the other node), and left unanswered: the bar is busy with it.
  await jobFrame(agents.bar, first)
  const second = await post(nodes[1]!, 'order-2')
  const waiting = await services.jobQueries.get(second)
  expect(waiting).toMatchObject({ printerId: records.bar!, state: 'PENDING' })
  await agents.bar.close()
  // The kitchen prints what it is sent (the first job too: never received by the bar's agent, it is sent again).
  for (;;) {
    const frame = await agents.kitchen.next('server.print_job', { timeoutMs: 10_000 })
    expect(frame.payload.printerId).toBe('kitchen')
    agents.kitchen.jobReceived(frame)
    agents.kitchen.jobSubmitted(frame)
    if (isOf(second)(frame)) break
  }
  const detail = await waitFor(async () => {
    const found = await services.jobQueries.detail(second)
    return found && 'timeline' in found && found.job.state === 'COMPLETED' ? found : undefined
  }, 10_000)
  expect(detail.job.printerId).toBe(records.kitchen!)
  const moved = detail.timeline.filter((entry) => entry.errorCode === 'job.moved')
  expect(moved.map((entry) => entry.errorMessage)).toEqual(['Printed at kitchen: bar is offline'])
  // Sent once: the kitchen's agent got it once, the bar's never.
  expect(agents.kitchen.all('server.print_job').filter(isOf(second))).toHaveLength(1)
  expect(agents.bar.all('server.print_job').filter(isOf(second))).toHaveLength(0)
}, 30_000)

test('with the bar away, a job posted to the destination is sent to the kitchen', async () => {
  const id = await post(nodes[0]!, 'order-3')
  const job = await waitFor(async () => {
    const found = await services.jobQueries.get(id)
    return found?.printerId === records.kitchen ? found : undefined
  }, 5_000)
  expect(job.printerId).toBe(records.kitchen!)
  await jobFrame(agents.kitchen, id)
  // Every job sent to the kitchen's agent once.
  const sent = agents.kitchen.all('server.print_job').map((frame) => String(frame.payload.jobId).split('.')[0])
  expect(new Set(sent).size).toBe(sent.length)
})

test('a node that died left its agent\'s printer "online": the maintenance records it offline, once', async () => {
  const sql = new SQL(url)
  try {
    // The bar's agent as a node that then died left it: held under a lease that runs out in a second, its printer
    // recorded online.
    const agentId = agents.bar.agentId
    await sql`INSERT INTO nodes (id, name, address, version, started_at, seen_at)
      VALUES ('node_00000000000dead0', 'gone', NULL, 'test', 0, 0)`
    const nowMs = sql.unsafe('(extract(epoch from clock_timestamp()) * 1000)::bigint')
    await sql`INSERT INTO printer_states (agent_id, printer_id, at, state)
      VALUES (${agentId}, 'bar', ${nowMs}, 'online')`
    await sql`INSERT INTO leases (resource, node_id, expires_at) VALUES (${`agent:${agentId}`},
      'node_00000000000dead0', ${nowMs} + 1000) ON CONFLICT (resource) DO UPDATE SET node_id = excluded.node_id,
      fence = nextval('lease_fences'), expires_at = excluded.expires_at`
    const [{ until }] = await sql`SELECT expires_at AS until FROM leases WHERE resource = ${`agent:${agentId}`}`
    const printer = async () =>
      (
        (await (
          await fetch(`${nodes[0]!.url}/v1/projects/${projectId}/printers/bar`, {
            headers: { authorization: `Bearer ${apiKey}` },
          })
        ).json()) as { printer: { state: string; stateSince: string } }
      ).printer
    expect((await printer()).state).toBe('ready')
    const [{ last }] = await sql`SELECT coalesce(max(id), 0) AS last FROM events`
    const told = await waitFor(async () => {
      const rows = await sql<{ data: string }[]>`SELECT data FROM events WHERE id > ${last}
        AND project_id = ${projectId} AND type = 'printer.state_changed' ORDER BY id`
      const offline = rows.map((row) => JSON.parse(row.data)).filter((e) => e.printer.id === records.bar)
      return offline.at(-1)?.state === 'offline' ? offline : undefined
    }, 15_000)
    expect(told.at(-1)).toMatchObject({ state: 'offline', previousState: 'ready' })
    // Offline since the lease ran out, not since the pass noticed.
    const now = await printer()
    expect(now.state).toBe('offline')
    expect(Date.parse(now.stateSince)).toBe(Number(until))
    // Told once: later passes find nothing new.
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM printer_states WHERE agent_id = ${agentId}
      AND printer_id = 'bar' AND state = 'offline' AND at > ${Number(until)}`
    expect(n).toBe(1)
  } finally {
    await sql.close()
  }
}, 30_000)

test('a change made while a lease has run out: made while no node took it, refused once one did', async () => {
  const [first, second] = nodes as [ClusterNode, ClusterNode]
  const resource = 'printer:prn_ran_out'
  const taken = await first.store.takeLease(resource, first.nodeId, 1)
  const ranOut = await waitFor(async () => (await first.store.leaseStates()).ranOut.get(resource), 5_000)
  expect(ranOut.fence).toBe(taken!.fence)
  const lease = { resource, fence: ranOut.fence }
  const note = (value: string) => (db: Db) => db.settings.set('test_ran_out', value)
  expect(await first.store.whileRanOut(lease, note('first'))).toBeUndefined()
  expect(await first.store.read((db) => db.settings.get('test_ran_out'))).toBe('first')
  expect(await second.store.takeLease(resource, second.nodeId, 10_000)).toBeDefined()
  let ran = false
  const refused = await first.store.whileRanOut(lease, function* (db) {
    ran = true
    return yield* note('second')(db)
  })
  expect([refused, ran]).toEqual([undefined, false])
  expect(await first.store.read((db) => db.settings.get('test_ran_out'))).toBe('first')
})
