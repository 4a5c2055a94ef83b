// Printers attached to one machine on a cluster of two nodes on one real PostgreSQL: a serial printer (a real
// pseudo-terminal, the emulated printer behind it) is taken by a node whose machine has its device, and prints each
// ticket once; one whose device no node's machine has is taken by none, its jobs waiting rather than failing.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { type EmulatedReceipt, PrinterEmulator } from '../../src/emulator/emulator.ts'
import type { ClusterNode } from '../../src/hub/start-node.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { migratedDatabase, projectWithKey, startNode } from '../support/cluster.ts'
import { tempDir } from '../support/hub.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'
import { waitFor } from '../support/wait.ts'

const LEASE_MS = 2_000
let pg: TestPostgres
let url: string
let nodes: ClusterNode[] = []
let services: HubServices
let projectId: string
let apiKey: string
const records: Record<string, string> = {}
const printed: EmulatedReceipt[] = []
const emulator = PrinterEmulator.serial({
  profile: findProfile('epson-tm-t20iii')!,
  width: 80,
  onReceipt: (receipt) => printed.push(receipt),
})

beforeAll(async () => {
  pg = await startPostgres()
  url = await migratedDatabase(pg, 'cluster_attached')
  const env = { PRINTHUB_CLUSTER_LEASE_SECONDS: String(LEASE_MS / 1000), PRINTHUB_STATUS_POLL_MS: '500' }
  nodes = await Promise.all([0, 1].map(() => startNode(url, env)))
  services = new HubServices(undefined, { units: nodes[0]!.store })
  ;({ projectId, apiKey } = await projectWithKey(services, 'Bar du Marché'))
  for (const [id, connection] of [
    ['pass', `serial://${emulator.serialPath}`],
    ['cellar', 'serial:///dev/ttyUSB97'],
  ] as const) {
    const added = await services.printers.add(
      THE_MACHINE,
      projectId,
      { id, connection, profile: 'epson-tm-t20iii' },
      confinementOf(tempDir()),
    )
    if (added.kind !== 'added') throw new Error(`${added.kind}: ${JSON.stringify(added)}`)
    records[id] = added.printer.id
  }
}, 60_000)

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()))
  emulator.stop()
  await pg?.stop()
})

async function post(printerId: string, idempotencyKey: string): Promise<string> {
  const response = await fetch(`${nodes[1]!.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      printerId,
      idempotencyKey,
      document: { width: 80, sections: [{ type: 'text', value: `<${idempotencyKey}> Käse` }, { type: 'cut' }] },
    }),
  })
  expect(response.status).toBe(202)
  return ((await response.json()) as { job: { id: string } }).job.id
}

test('a serial printer is driven by a node with its device, once; one whose device no node has waits', async () => {
  const sql = new SQL(url)
  try {
    const waiting = await post('cellar', 'order-1')
    const id = await post('pass', 'order-2')
    await waitFor(async () => ((await services.jobQueries.get(id))?.state === 'COMPLETED' ? true : undefined), 20_000)
    expect(printed.filter((r) => r.preview.text.some((line) => line.includes('<order-2>')))).toHaveLength(1)
    // Both nodes have gone round their leases twice since: neither took the cellar's printer.
    const [{ since }] = await sql`SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS since`
    await waitFor(async () => {
      const [{ oldest }] = await sql`SELECT min(seen_at) AS oldest FROM nodes`
      return Number(oldest) > Number(since) + (2 * LEASE_MS) / 3 ? true : undefined
    }, 10_000)
    const { live } = await nodes[0]!.store.leaseStates()
    expect(live.has(`printer:${records.pass}`)).toBe(true)
    expect(live.has(`printer:${records.cellar}`)).toBe(false)
    expect((await services.jobQueries.get(waiting))?.state).toBe('PENDING')
  } finally {
    await sql.close()
  }
}, 40_000)
