// Moving a hub into a cluster: `printhub export --to URL` copies a real hub's data directory (jobs printed on its demo
// printer, their timelines and events, its key) into a real PostgreSQL; a node serving that database then answers
// the same key with the same jobs, timelines and events, and takes new jobs after them. Refused: a database that
// holds a hub already, one of another schema, a data directory a hub is serving.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { rmSync } from 'node:fs'
import { resolveConfig } from '../../src/hub/config.ts'
import { startClusterNode } from '../../src/hub/start-node.ts'
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
    } finally {
      await node.stop()
    }
    // Again, into a database that holds a hub now: refused, naming why.
    const twice = await cli(['export', '--to', url, '--data', hub.dataDir])
    expect(twice.code).not.toBe(0)
    expect(twice.stderr).toContain('holds a hub')
  }, 60_000)
})
