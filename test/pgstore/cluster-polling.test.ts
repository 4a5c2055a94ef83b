// A Star CloudPRNT printer on a cluster of nodes on one real PostgreSQL (the emulated printer written from Star's
// guide, polling over real HTTP): adopted once, it is driven by the node it polls, whichever node a job is posted to;
// when it polls another node instead (its node stopped, or the proxy sent it on), that node takes it over and prints
// what follows. An Epson Server Direct Print printer the same. Every ticket once.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import type { ClusterNode } from '../../src/hub/start-node.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { CloudPrntPrinter } from '../support/cloudprnt-printer.ts'
import { EpsonSdpPrinter } from '../support/epson-sdp-printer.ts'
import { migratedDatabase, projectWithKey, startNode } from '../support/cluster.ts'
import { tempDir } from '../support/hub.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'
import { waitFor } from '../support/wait.ts'

const MAC = '00:11:62:aa:10:01'
let pg: TestPostgres
let url: string
let nodes: ClusterNode[] = []
let services: HubServices
let projectId: string
let apiKey: string
let recordId: string
const printers: CloudPrntPrinter[] = []

beforeAll(async () => {
  pg = await startPostgres()
  url = await migratedDatabase(pg, 'cluster_polling')
  const env = { PRINTHUB_CLUSTER_LEASE_SECONDS: '2', PRINTHUB_CLOUDPRNT_CONFIRM_MS: '3000' }
  nodes = await Promise.all([0, 1].map(() => startNode(url, env)))
  services = new HubServices(undefined, { units: nodes[0]!.store })
  ;({ projectId, apiKey } = await projectWithKey(services, 'Café des Arts'))
  const adopted = await services.printers.adopt(
    THE_MACHINE,
    projectId,
    { printer: MAC, id: 'counter', kind: 'cloudprnt' },
    confinementOf(tempDir()),
  )
  if (adopted.kind !== 'added') throw new Error(adopted.kind)
  recordId = adopted.printer.id
}, 60_000)

afterAll(async () => {
  for (const printer of printers) printer.stop()
  await Promise.all(nodes.map((node) => node.stop()))
  await pg?.stop()
})

/** The printer, polling the node `node` (as the proxy in front routes its requests). */
function pollingNode(node: ClusterNode): CloudPrntPrinter {
  const printer = new CloudPrntPrinter({ url: `${node.url}/cloudprnt`, mac: MAC })
  printers.push(printer)
  printer.start(100)
  return printer
}

async function post(node: ClusterNode, idempotencyKey: string): Promise<string> {
  const response = await fetch(`${node.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      printerId: 'counter',
      idempotencyKey,
      document: { width: 80, sections: [{ type: 'text', value: `<${idempotencyKey}> café` }, { type: 'cut' }] },
    }),
  })
  expect(response.status).toBe(202)
  return ((await response.json()) as { job: { id: string } }).job.id
}

const completed = (id: string) =>
  waitFor(async () => ((await services.jobQueries.get(id))?.state === 'COMPLETED' ? true : undefined), 20_000)

/** Which node holds the printer's lease now (live, by the database's clock). */
async function driver(): Promise<string | undefined> {
  const { live } = await nodes[0]!.store.leaseStates()
  if (!live.has(`printer:${recordId}`)) return undefined
  const sql = new SQL(url)
  try {
    const [row] = await sql<{ node_id: string }[]>`SELECT node_id FROM leases WHERE resource = ${`printer:${recordId}`}`
    return row?.node_id
  } finally {
    await sql.close()
  }
}

/** How many times the printer printed the ticket `key`, over every printer object that stood for it. */
const printedTimes = (key: string) =>
  printers.flatMap((printer) => printer.fetched).filter((f) => f.text.some((line) => line.includes(`<${key}>`))).length

test('driven by the node it polls, whichever node the job is posted to: printed once, confirmed', async () => {
  const first = pollingNode(nodes[1]!)
  expect(await waitFor(async () => ((await driver()) === nodes[1]!.nodeId ? true : undefined), 10_000)).toBe(true)
  const id = await post(nodes[0]!, 'order-1')
  await completed(id)
  expect(printedTimes('order-1')).toBe(1)
  // Its confirmation answered (the job completes as the hub reads it, before the printer has the answer).
  expect(await waitFor(() => first.confirmations.at(-1))).toEqual({ code: '200 OK', status: 200 })
}, 30_000)

test('its node stopped, it polls the other: that node takes it over and prints what follows, once', async () => {
  printers[0]!.stop()
  await nodes[1]!.stop()
  pollingNode(nodes[0]!)
  expect(await waitFor(async () => ((await driver()) === nodes[0]!.nodeId ? true : undefined), 15_000)).toBe(true)
  const id = await post(nodes[0]!, 'order-2')
  await completed(id)
  expect(printedTimes('order-2')).toBe(1)
  expect(printedTimes('order-1')).toBe(1)
  nodes = [nodes[0]!]
}, 40_000)

test('sent on to another node while its node lives: its node, hearing it no more, gives it up', async () => {
  printers.at(-1)!.stop()
  const joined = await startNode(url, { PRINTHUB_CLUSTER_LEASE_SECONDS: '2' })
  nodes.push(joined)
  pollingNode(joined)
  expect(await waitFor(async () => ((await driver()) === joined.nodeId ? true : undefined), 20_000)).toBe(true)
  const id = await post(nodes[0]!, 'order-3')
  await completed(id)
  expect(printedTimes('order-3')).toBe(1)
}, 40_000)

test('an Epson Server Direct Print printer too: adopted once, driven by the node it polls, printed once', async () => {
  const adopted = await services.printers.adopt(
    THE_MACHINE,
    projectId,
    { printer: 'X6WY000010', id: 'bar', kind: 'epson-sdp' },
    confinementOf(tempDir()),
  )
  if (adopted.kind !== 'added') throw new Error(adopted.kind)
  const polled = nodes.at(-1)!
  const epson = new EpsonSdpPrinter({ url: `${polled.url}/epson-sdp`, id: 'X6WY000010', name: 'bar' })
  epson.start(100)
  try {
    const response = await fetch(`${nodes[0]!.url}/v1/projects/${projectId}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        printerId: 'bar',
        idempotencyKey: 'order-4',
        document: { width: 80, sections: [{ type: 'text', value: '<order-4> Größe' }, { type: 'cut' }] },
      }),
    })
    expect(response.status).toBe(202)
    await completed(((await response.json()) as { job: { id: string } }).job.id)
    expect(epson.jobs.filter((job) => job.text.some((line) => line.includes('<order-4>')))).toHaveLength(1)
  } finally {
    epson.stop()
  }
}, 30_000)
