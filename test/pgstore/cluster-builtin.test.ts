// The built-in agent's printers on a cluster: three nodes on one real PostgreSQL (each a real HTTP server with its
// gateway and its own agent), network printers emulated on real TCP sockets. Each printer is driven by one node at a
// time, under its lease, the printers spread over the nodes; a job posted to any node prints once, on its printer;
// every node lists the printers with the state the node driving each learned from it, and every node's stream tells
// of a change once; a node that stops hands its printers to the others, which print what it had not, once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { resolveConfig } from '../../src/hub/config.ts'
import { type ClusterNode, startClusterNode } from '../../src/hub/start-node.ts'
import { migrate } from '../../src/pgstore/migrate.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { API_KEY_SCOPES } from '../../src/protocol/api-key.ts'
import type { Job } from '../../src/protocol/job.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { tempDir } from '../support/hub.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'
import { waitFor } from '../support/wait.ts'
import { expectPrintedOnce } from '../support/printed-once.ts'

const PRINTERS = ['kitchen', 'bar', 'terrace'] as const
type Name = (typeof PRINTERS)[number]

let pg: TestPostgres
let url: string
let sql: SQL
let nodes: ClusterNode[] = []
const emulators = {} as Record<Name, PrinterEmulator>
const records = {} as Record<Name, string>
let projectId: string
let apiKey: string
let posted = 0

beforeAll(async () => {
  pg = await startPostgres()
  url = await pg.database('builtin')
  sql = new SQL(url)
  await migrate(sql)
  const env = { PRINTHUB_ACK_TIMEOUT_MS: '2000', PRINTHUB_CLUSTER_LEASE_SECONDS: '2', PRINTHUB_STATUS_POLL_MS: '500' }
  nodes = await Promise.all(
    [0, 1, 2].map(() =>
      startClusterNode(resolveConfig({ host: '127.0.0.1', port: '0', data: tempDir() }, env), url, {
        events: () => {},
        log: () => {},
      }),
    ),
  )
  const services = new HubServices(undefined, { units: nodes[0]!.store })
  const project = await services.projects.create(THE_MACHINE, 'Café de la Gare')
  if (project.kind !== 'created') throw new Error(project.kind)
  projectId = project.project.id
  const key = await services.keys.create(THE_MACHINE, projectId, { scopes: [...API_KEY_SCOPES], name: 'pos' })
  if (key.kind !== 'created') throw new Error(key.kind)
  apiKey = key.secret
  for (const name of PRINTERS) {
    emulators[name] = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('epson-tm-t20iii')!,
      width: 80,
    })
    // Added once, for the whole cluster: the built-in agent is the cluster's.
    const added = await services.printers.add(
      THE_MACHINE,
      projectId,
      { id: name, connection: `tcp://127.0.0.1:${emulators[name].port}`, profile: 'epson-tm-t20iii' },
      confinementOf(tempDir(), []),
    )
    if (added.kind !== 'added') throw new Error(added.kind)
    records[name] = added.printer.id
  }
}, 60_000)

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()))
  for (const emulator of Object.values(emulators)) emulator.stop()
  await sql?.close()
  await pg?.stop()
})

/** Which node holds each printer's lease now (live, by the database's clock). */
async function holders(): Promise<Record<Name, string | undefined>> {
  const rows = await sql<{ resource: string; node_id: string }[]>`SELECT resource, node_id FROM leases
    WHERE resource LIKE 'printer:%' AND expires_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`
  const held = new Map(rows.map((row) => [row.resource, row.node_id]))
  return Object.fromEntries(PRINTERS.map((name) => [name, held.get(`printer:${records[name]}`)])) as Record<
    Name,
    string | undefined
  >
}

async function post(node: ClusterNode, printerId: Name): Promise<{ job: Job; marker: string }> {
  const marker = `<ticket ${++posted}>`
  const response = await fetch(`${node.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      printerId,
      idempotencyKey: `order-${posted}`,
      document: { width: 80, sections: [{ type: 'text', value: `${marker} crème brûlée` }, { type: 'cut' }] },
    }),
  })
  expect(response.status).toBe(202)
  return { job: ((await response.json()) as { job: Job }).job, marker }
}

const printedOn = (name: Name, marker: string): number =>
  emulators[name].receipts.filter((receipt) => receipt.preview.text.join('\n').includes(marker)).length

/**
 * Every job posted printed once, on its own printer's paper and on no other's, and COMPLETED; or, when the machine
 * was so slow that a lease ran out while a ticket was being printed, FAILED as may-have-printed, on the paper at most
 * once. Never twice.
 */
async function expectEachOnce(posts: { job: Job; marker: string; printer: Name }[]): Promise<void> {
  const ids = posts.map((p) => p.job.id)
  const finished = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'])
  const rows = await waitFor(async () => {
    const now = await sql<{ id: string; state: string; last_error_code: string | null }[]>`SELECT id, state,
      last_error_code FROM jobs WHERE id IN ${sql(ids)}`
    return now.length === ids.length && now.every((row) => finished.has(row.state)) ? now : undefined
  }, 20_000)
  await waitFor(() => PRINTERS.every((name) => emulators[name].quiet) || undefined)
  const own = new Map(posts.map((p) => [p.job.id, p]))
  expectPrintedOnce(
    rows.map((row) => ({ id: row.id, state: row.state as Job['state'], lastErrorCode: row.last_error_code })),
    (id) => printedOn(own.get(id)!.printer, own.get(id)!.marker),
  )
  for (const { marker, printer } of posts)
    for (const name of PRINTERS.filter((other) => other !== printer))
      expect({ marker, name, count: printedOn(name, marker) }).toEqual({ marker, name, count: 0 })
}

describe("the built-in agent's printers on a cluster", () => {
  test('each printer is driven by one node; a job posted to any node prints once, on its printer', async () => {
    const held = await waitFor(async () => {
      const now = await holders()
      return PRINTERS.every((name) => now[name] !== undefined) ? now : undefined
    }, 10_000)
    const nodeIds = nodes.map((node) => node.nodeId)
    for (const name of PRINTERS) expect(nodeIds).toContain(held[name]!)
    // Spread: three printers over three nodes, one each.
    expect(new Set(Object.values(held)).size).toBe(3)
    const posts = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const printer = PRINTERS[i % 3]!
        return { ...(await post(nodes[(i + 1) % 3]!, printer)), printer }
      }),
    )
    await expectEachOnce(posts)
  }, 30_000)

  test('every node lists the printers with the state the node driving each learned from it', async () => {
    const listed = async (node: ClusterNode) => {
      const response = await fetch(`${node.url}/v1/projects/${projectId}/printers`, {
        headers: { authorization: `Bearer ${apiKey}` },
      })
      const { printers } = (await response.json()) as { printers: { name: string; state: string }[] }
      return Object.fromEntries(printers.map((printer) => [printer.name, printer.state]))
    }
    // Every node answers the same: what the node driving the printer recorded.
    const everywhere = async (name: Name, state: string) => {
      for (const node of nodes) expect((await listed(node))[name]).toBe(state)
    }
    await waitFor(async () => {
      const now = await listed(nodes[2]!)
      return PRINTERS.every((name) => now[name] === 'ready') || undefined
    }, 10_000)
    for (const name of PRINTERS) await everywhere(name, 'ready')
    // A stream on every node tells of the change, written once by the node that drives the printer.
    const streams = await Promise.all(
      nodes.map((node) =>
        fetch(`${node.url}/v1/projects/${projectId}/events`, { headers: { authorization: `Bearer ${apiKey}` } }),
      ),
    )
    emulators.bar.set({ paper: 'out' })
    try {
      await waitFor(async () => ((await listed(nodes[0]!)).bar === 'paper_out' ? true : undefined), 10_000)
      await everywhere('bar', 'paper_out')
      for (const stream of streams) {
        const reader = stream.body!.getReader()
        const decoder = new TextDecoder()
        let text = ''
        await waitFor(async () => {
          text += decoder.decode((await reader.read()).value)
          return /event: printer\.state_changed\n[^\n]*"state":"paper_out"/.test(text) || undefined
        }, 10_000)
        await reader.cancel()
        expect(text.match(/"state":"paper_out","previousState":"ready"/g)).toHaveLength(1)
      }
    } finally {
      emulators.bar.set({ paper: 'ok' })
    }
    await waitFor(async () => ((await listed(nodes[1]!)).bar === 'ready' ? true : undefined), 10_000)
    await everywhere('bar', 'ready')
  }, 30_000)

  test('a node that stops hands its printers over: the others print what it had not, once', async () => {
    const before = await holders()
    const leaving = nodes.find((node) => node.nodeId === before.kitchen)!
    const staying = nodes.filter((node) => node !== leaving)
    // Posted while it still drives the kitchen's printer, and after it went.
    const first = await Promise.all(
      PRINTERS.map(async (printer) => ({ ...(await post(staying[0]!, printer)), printer })),
    )
    await leaving.stop()
    nodes = staying
    const second = await Promise.all(
      Array.from({ length: 9 }, async (_, i) => {
        const printer = PRINTERS[i % 3]!
        return { ...(await post(staying[i % 2]!, printer)), printer }
      }),
    )
    const after = await waitFor(async () => {
      const now = await holders()
      return PRINTERS.every((name) => now[name] !== undefined && now[name] !== leaving.nodeId) ? now : undefined
    }, 10_000)
    for (const name of PRINTERS) expect(staying.map((node) => node.nodeId)).toContain(after[name]!)
    await expectEachOnce([...first, ...second])
  }, 30_000)
})
