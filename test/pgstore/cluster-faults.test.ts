// A cluster's faults, with real processes: three `printhub serve --store` nodes on one real PostgreSQL behind a TCP
// load balancer, and a real `printhub agent` printing to a file, reaching the cluster through the balancer. Under
// load: the node holding the agent killed with -9 and restarted; the node holding it paused with SIGSTOP past its
// lease (the balancer gives up on it) and resumed; PostgreSQL itself killed and started again. Every time: no job
// accepted is lost, none printed twice, every one finished; a post during the database's outage is a 503, never 202.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { migrate } from '../../src/pgstore/migrate.ts'
import type { Job } from '../../src/protocol/job.ts'
import { type AgentProcess, startAgentProcess } from '../support/agent-process.ts'
import { type Balancer, startBalancer } from '../support/balancer.ts'
import { cliJson } from '../support/cli.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { freePort } from '../support/ports.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'
import { type JobEnd, expectPrintedOnce } from '../support/printed-once.ts'

const NODE_ENV = {
  PRINTHUB_CLUSTER_LEASE_SECONDS: '2',
  PRINTHUB_ACK_TIMEOUT_MS: '3000',
  PRINTHUB_RETRY_INITIAL_MS: '100',
  PRINTHUB_RETRY_MAX_MS: '500',
}
const FINISHED = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'])

let pg: TestPostgres
let url: string
let dir: string
let paper: string
let balancer: Balancer
const nodes: { dir: string; port: number; serve: ServeProcess }[] = []
let agent: AgentProcess
let agentId: string
let projectId: string
let apiKey: string
let posted = 0

const startNode = (i: number) =>
  spawnServe(nodes[i]!.dir, { port: nodes[i]!.port, args: ['--store', url], env: NODE_ENV })

/** Posts a job through the balancer; its answer's status and the job when one was made. */
async function post(marker: string): Promise<{ status: number; job?: Job }> {
  const response = await fetch(`${balancer.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(
      jobBody({
        printerId: 'kitchen',
        idempotencyKey: marker,
        document: { width: 80, sections: [{ type: 'text', value: `<${marker}>` }, { type: 'cut' }] },
      }),
    ),
  }).catch(() => undefined)
  if (!response) return { status: 0 }
  const body = (await response.json()) as { job?: Job }
  return { status: response.status, job: response.status < 300 ? body.job : undefined }
}

/** Posts `count` jobs at once, each retried (same idempotency key) until a node answers it; the jobs made. */
async function load(name: string, count: number): Promise<Map<string, string>> {
  const made = new Map<string, string>()
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const marker = `${name}-${++posted}-${i}`
      for (;;) {
        const answer = await post(marker)
        if (answer.job) return void made.set(answer.job.id, marker)
        await Bun.sleep(100)
      }
    }),
  )
  return made
}

/** The jobs' states, read from the database (every node's). */
async function states(ids: string[]): Promise<JobEnd[]> {
  const sql = new SQL(url)
  try {
    const rows = await sql<{ id: string; state: Job['state']; last_error_code: string | null }[]>`SELECT id, state,
      last_error_code FROM jobs WHERE id IN ${sql(ids)}`
    const found = new Map(
      rows.map((row) => [row.id, { id: row.id, state: row.state, lastErrorCode: row.last_error_code }]),
    )
    return ids.map((id) => found.get(id) ?? { id, state: 'PENDING', lastErrorCode: 'missing' })
  } finally {
    await sql.close()
  }
}

async function untilFinished(ids: string[], timeoutMs = 45_000): Promise<JobEnd[]> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const jobs = await states(ids)
    if (jobs.every((job) => FINISHED.has(job.state))) return jobs
    if (performance.now() > deadline)
      throw new Error(`not finished: ${jobs.filter((j) => !FINISHED.has(j.state)).map((j) => `${j.id} ${j.state}`)}`)
    await Bun.sleep(200)
  }
}

const printedCount = (marker: string): number =>
  (existsSync(paper) ? readFileSync(paper, 'latin1') : '').split(`<${marker}>`).length - 1

/** Each job finished and on the paper once, or, caught between its write and its record, failed saying so. */
const expectOnceEach = (jobs: JobEnd[], markers: Map<string, string>): void =>
  expectPrintedOnce(jobs, (id) => printedCount(markers.get(id)!))

/** Which node holds the agent now (its lease in the database), by its index. */
async function holder(): Promise<number> {
  const sql = new SQL(url)
  try {
    const [row] = await sql<{ node_id: string }[]>`SELECT node_id FROM leases WHERE resource = ${`agent:${agentId}`}
      AND expires_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`
    const index = nodes.findIndex((node) => readFileSync(join(node.dir, 'node-id'), 'utf8').trim() === row?.node_id)
    if (index < 0) throw new Error('no node holds the agent')
    return index
  } finally {
    await sql.close()
  }
}

beforeAll(async () => {
  pg = await startPostgres()
  url = await pg.database('faults')
  const sql = new SQL(url)
  await migrate(sql)
  await sql.close()
  dir = tempDir()
  for (let i = 0; i < 3; i++) nodes.push({ dir: join(dir, `node-${i}`), port: freePort(), serve: undefined! })
  for (let i = 0; i < 3; i++) nodes[i]!.serve = await startNode(i)
  balancer = startBalancer(nodes.map((node) => node.port))
  const project = await cliJson(['projects', 'create', 'Trattoria', '--store', url])
  projectId = project.id
  apiKey = (await cliJson(['keys', 'create', '--project', projectId, '--store', url])).apiKey
  const agentDir = join(dir, 'agent')
  paper = join(agentDir, 'output', 'kitchen.bin')
  await cliJson([
    'printers',
    'add',
    '--local',
    '--id',
    'kitchen',
    '--connection',
    `file://${paper}`,
    '--data',
    agentDir,
  ])
  const { code } = await cliJson(['pairing-codes', 'create', '--store', url])
  agent = await startAgentProcess(agentDir, ['--server', balancer.url, '--code', code, '--name', 'kitchen-pi'])
  const agents = await cliJson(['agents', 'list', '--store', url])
  agentId = agents.find((a: { builtin: boolean }) => !a.builtin).id
  await cliJson([
    'printers',
    'assign',
    '--project',
    projectId,
    '--agent',
    agentId,
    '--printer',
    'kitchen',
    '--store',
    url,
  ])
}, 90_000)

afterAll(async () => {
  for (const child of [agent?.process, ...nodes.map((node) => node.serve?.process)]) {
    child?.kill('SIGKILL')
    await child?.exited
  }
  balancer?.stop()
  await pg?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('a cluster under faults', () => {
  test('the node holding the agent killed with -9 under load and restarted: each job once', async () => {
    const first = await load('kill', 30)
    const dead = await holder()
    nodes[dead]!.serve.process.kill('SIGKILL')
    await nodes[dead]!.serve.process.exited
    const second = await load('after-kill', 20)
    nodes[dead]!.serve = await startNode(dead)
    const markers = new Map([...first, ...second])
    expectOnceEach(await untilFinished([...markers.keys()]), markers)
  }, 90_000)

  test('the node holding the agent paused past its lease, then resumed: it prints and writes nothing', async () => {
    const first = await load('pause', 30)
    const paused = await holder()
    const node = nodes[paused]!
    node.serve.process.kill('SIGSTOP')
    // The balancer gives up on the node that stopped answering; the agent comes back through it to another.
    balancer.takeOut(node.port)
    const second = await load('while-paused', 20)
    const markers = new Map([...first, ...second])
    const during = await untilFinished([...markers.keys()])
    expect(await holder()).not.toBe(paused)
    const before = readFileSync(paper, 'latin1')
    const said = node.serve.output().length
    node.serve.process.kill('SIGCONT')
    balancer.putBack(node.port)
    // Resumed, it finds its agent's connection gone (or its lease taken) and stops driving it; its stale work (a
    // receipt it waited for, a lane it was looking at) changes nothing.
    const stopped = /agent disconnected|another node took this agent's lease/
    const deadline = performance.now() + 10_000
    while (!stopped.test(node.serve.output().slice(said)) && performance.now() < deadline) await Bun.sleep(50)
    expect(node.serve.output().slice(said)).toMatch(stopped)
    const after = await untilFinished([...markers.keys()])
    expect(after).toEqual(during)
    expect(readFileSync(paper, 'latin1')).toBe(before)
    expectOnceEach(after, markers)
  }, 90_000)

  test('PostgreSQL killed and started again under load: 503 while it is away, never 202; each job once', async () => {
    const first = await load('db', 30)
    await pg.kill()
    const during = await post('during-outage')
    expect(during.status).toBe(503)
    await pg.start()
    const second = await load('after-db', 20)
    const markers = new Map([...first, ...second])
    expectOnceEach(await untilFinished([...markers.keys()]), markers)
  }, 90_000)
})
