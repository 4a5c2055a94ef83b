// Moving a hub into a cluster: `printhub export --to URL` copies a real hub's data directory (jobs printed on its demo
// printer, their timelines and events, its key) into a real PostgreSQL; a node serving that database then answers
// the same key with the same jobs, timelines and events, and takes new jobs after them (printed by the node, on the
// hub's own printer). Refused: a database that holds a hub already, a data directory a hub is serving. And back:
// `printhub export --from URL` copies the cluster's data into a new data directory, and a hub started on it answers
// the same; refused while a node serves from the database, and into a directory that holds a hub.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { resolveConfig } from '../../src/hub/config.ts'
import { type ClusterNode, startClusterNode } from '../../src/hub/start-node.ts'
import { startHub } from '../../src/hub/start.ts'
import { migrate } from '../../src/pgstore/migrate.ts'
import type { Job } from '../../src/protocol/job.ts'
import { cli, cliJson } from '../support/cli.ts'
import { startTestHub, submitJob, tempDir, type TestHub } from '../support/hub.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'
import { waitFor } from '../support/wait.ts'

let pg: TestPostgres
let url: string
let hub: TestHub
let hubStopped = false
const jobs: Job[] = []
/** What a node of the cluster answered, before its data went back into a data directory. */
let onTheCluster: { list: unknown; detail: unknown } | undefined

const read = (base: string, path: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${hub.apiKey}` } }).then((r) => r.json())

beforeAll(async () => {
  pg = await startPostgres()
  url = await pg.database('moved')
  const sql = new SQL(url)
  await migrate(sql)
  await sql.close()
  hub = await startTestHub()
  for (let n = 0; n < 3; n++) jobs.push(await submitJob(hub, { idempotencyKey: `order-${n}` }))
  await waitFor(async () => {
    const listed = (await read(hub.url, `/v1/projects/${hub.projectId}/jobs`)) as { jobs: Job[] }
    return listed.jobs.every((job) => job.state === 'COMPLETED') || undefined
  }, 10_000)
}, 60_000)

afterAll(async () => {
  if (!hubStopped) await hub?.stop()
  rmSync(hub.dataDir, { recursive: true, force: true })
  await pg?.stop()
})

describe('printhub export --to', () => {
  test('refused while a hub serves the data directory: nothing is copied', async () => {
    const refused = await cli(['export', '--to', url, '--data', hub.dataDir])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('in use')
  })

  test('moves every row; a node on the database answers the same key with the same jobs, and takes more', async () => {
    const before = {
      list: await read(hub.url, `/v1/projects/${hub.projectId}/jobs`),
      detail: await read(hub.url, `/v1/projects/${hub.projectId}/jobs/${jobs[0]!.id}`),
    }
    await hub.hub.stop()
    hubStopped = true
    const exported = await cliJson(['export', '--to', url, '--data', hub.dataDir, '--json'])
    expect(exported.to).not.toContain(decodeURIComponent(new URL(url).password))
    expect(exported.tables).toMatchObject({ projects: 1, api_keys: 1, jobs: 3, job_documents: 3 })
    expect(exported.tables.job_events).toBeGreaterThanOrEqual(9)
    // What the hub's own agent began to print is the cluster's intent: a node never prints it again.
    const sql = new SQL(url)
    const intents = await sql<{ job_id: string; attempt: number }[]>`SELECT job_id, attempt FROM print_intents`
    await sql.close()
    expect(intents.map((row) => [row.job_id, row.attempt]).sort()).toEqual(jobs.map((job) => [job.id, 1]).sort())
    const node = await startClusterNode(resolveConfig({ host: '127.0.0.1', port: '0', data: tempDir() }, {}), url, {
      events: () => {},
      log: () => {},
    })
    try {
      expect(await read(node.url, `/v1/projects/${hub.projectId}/jobs`)).toEqual(before.list)
      expect(await read(node.url, `/v1/projects/${hub.projectId}/jobs/${jobs[0]!.id}`)).toEqual(before.detail)
      // The same key makes new jobs after the moved ones; one posted again is a duplicate.
      const again = await fetch(`${node.url}/v1/projects/${hub.projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          printerId: hub.printerId,
          idempotencyKey: 'order-0',
          document: { width: 80, sections: [{ type: 'text', value: 'x' }] },
        }),
      })
      expect(again.status).toBe(200)
      const made = await fetch(`${node.url}/v1/projects/${hub.projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          printerId: hub.printerId,
          idempotencyKey: 'order-after-move',
          document: { width: 80, sections: [{ type: 'text', value: 'Après le déménagement' }] },
        }),
      })
      expect(made.status).toBe(202)
      // Printed by the node, on the hub's own printer (the cluster's built-in agent's now).
      const moved = ((await made.json()) as { job: Job }).job
      await waitFor(async () => {
        const detail = (await read(node.url, `/v1/projects/${hub.projectId}/jobs/${moved.id}`)) as { job: Job }
        return detail.job.state === 'COMPLETED' || undefined
      }, 10_000)
    } finally {
      await node.stop()
    }
    // Again, into a database that holds a hub now: refused, naming why.
    const twice = await cli(['export', '--to', url, '--data', hub.dataDir])
    expect(twice.code).not.toBe(0)
    expect(twice.stderr).toContain('holds a hub')
  }, 60_000)
})

describe('printhub export --from', () => {
  const back = join(tempDir(), 'hub-again')
  const startNode = () =>
    startClusterNode(resolveConfig({ host: '127.0.0.1', port: '0', data: tempDir() }, {}), url, {
      events: () => {},
      log: () => {},
    })

  test('refused while a node serves from the database: nothing is written', async () => {
    const node: ClusterNode = await startNode()
    try {
      onTheCluster = {
        list: await read(node.url, `/v1/projects/${hub.projectId}/jobs`),
        detail: await read(node.url, `/v1/projects/${hub.projectId}/jobs/${jobs[1]!.id}`),
      }
      const refused = await cli(['export', '--from', url, '--data', back])
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain('nodes are serving')
      expect(existsSync(join(back, 'printhub.db'))).toBe(false)
    } finally {
      await node.stop()
    }
  }, 30_000)

  test('refused while a job a node was printing when it stopped is unsettled (it may have printed)', async () => {
    const sql = new SQL(url)
    try {
      // As a node leaves it when it dies mid-print: held, its intent recorded, its end never told.
      await sql`UPDATE jobs SET state = 'DELIVERED' WHERE id = ${jobs[2]!.id}`
      await sql`INSERT INTO print_intents (job_id, attempt, recorded_at)
        SELECT id, attempt_count, 0 FROM jobs WHERE id = ${jobs[2]!.id} ON CONFLICT (job_id) DO NOTHING`
      const refused = await cli(['export', '--from', url, '--data', back])
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain('start a node once')
      expect(existsSync(join(back, 'printhub.db'))).toBe(false)
    } finally {
      await sql`UPDATE jobs SET state = 'COMPLETED' WHERE id = ${jobs[2]!.id}`
      await sql.close()
    }
  })

  test('copies every row into a new data directory; a hub on it answers the same key with the same jobs', async () => {
    const exported = await cliJson(['export', '--from', url, '--data', back, '--json'])
    expect(exported.from).not.toContain(decodeURIComponent(new URL(url).password))
    expect(exported.tables).toMatchObject({ projects: 1, api_keys: 1, jobs: 4, job_documents: 4 })
    const again = await startHub(resolveConfig({ host: '127.0.0.1', port: '0', data: back }, {}), {
      events: () => {},
      log: () => {},
    })
    try {
      expect(await read(again.url, `/v1/projects/${hub.projectId}/jobs`)).toEqual(onTheCluster!.list)
      expect(await read(again.url, `/v1/projects/${hub.projectId}/jobs/${jobs[1]!.id}`)).toEqual(onTheCluster!.detail)
      const post = (idempotencyKey: string) =>
        fetch(`${again.url}/v1/projects/${hub.projectId}/jobs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${hub.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            printerId: hub.printerId,
            idempotencyKey,
            document: { width: 80, sections: [{ type: 'text', value: 'Zurück im Café' }] },
          }),
        })
      expect((await post('order-0')).status).toBe(200)
      const made = await post('order-back-home')
      expect(made.status).toBe(202)
      const job = ((await made.json()) as { job: Job }).job
      // Printed by the hub's own agent, paired again at its start (the cluster's had no key to bring).
      await waitFor(async () => {
        const detail = (await read(again.url, `/v1/projects/${hub.projectId}/jobs/${job.id}`)) as { job: Job }
        return detail.job.state === 'COMPLETED' || undefined
      }, 10_000)
    } finally {
      await again.stop()
    }
    // Again, into the directory that holds a hub now: refused, naming why.
    const twice = await cli(['export', '--from', url, '--data', back])
    expect(twice.code).not.toBe(0)
    expect(twice.stderr).toContain('holds a hub')
  }, 60_000)
})
