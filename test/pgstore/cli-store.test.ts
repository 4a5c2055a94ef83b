// The CLI on the cluster's database: `--store URL` (or PRINTHUB_DATABASE_URL) on the commands that work on the hub's
// data, through the same operations as on a data directory (`init` makes a cluster's first data once); what is not
// offered on PostgreSQL yet is said so in words, and nothing else happens; a database not migrated is refused naming
// both schemas; the password is never shown.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { PG_SCHEMA_VERSION } from '../../src/pgstore/schema.ts'
import { readFileSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { cli, cliJson } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'
import { spawnServe } from '../support/serve.ts'
import { startPostgres, type TestPostgres } from '../support/postgres.ts'

let pg: TestPostgres
let url: string

beforeAll(async () => {
  pg = await startPostgres()
  url = await pg.database('cli_store')
  await cliJson(['migrate', '--store', url])
}, 60_000)

afterAll(async () => {
  await pg?.stop()
})

const password = () => decodeURIComponent(new URL(pg.url).password)

describe('printhub … --store URL', () => {
  test('projects, keys, accounts and settings are kept in the database, by --store or the environment', async () => {
    const project = await cliJson(['projects', 'create', 'Bar Luna', '--store', url])
    expect(project).toMatchObject({ name: 'Bar Luna', openJobs: 0 })
    const env = { PRINTHUB_DATABASE_URL: url }
    expect(await cliJson(['projects', 'list'], env)).toEqual([project])
    const key = await cliJson(['keys', 'create', '--project', project.id, '--name', 'POS'], env)
    expect(key.apiKey.startsWith(key.keyPrefix)).toBe(true)
    expect((await cliJson(['keys', 'list', '--project', project.id], env)).map((k: { id: string }) => k.id)).toEqual([
      key.id,
    ])
    const owner = await cliJson(['users', 'add', 'Kim', '--role', 'owner'], env, 'a long password\n')
    expect(owner).toMatchObject({ name: 'Kim', role: 'owner', disabled: false })
    expect(await cliJson(['settings', 'set', 'retention-days', '12'], env)).toMatchObject({ retentionDays: 12 })
    expect(await cliJson(['settings', 'show', '--store', url])).toMatchObject({ retentionDays: 12 })
    // Nothing of it went to a data directory: a fresh one knows none of it.
    const local = await cli(['projects', 'list', '--data', `/tmp/printhub-no-such-dir-${Date.now()}`])
    expect(local.code).not.toBe(0)
  }, 60_000)

  test('jobs are listed from the database; what is not there yet is said in words, changing nothing', async () => {
    const [project] = await cliJson(['projects', 'list', '--store', url])
    expect(await cliJson(['jobs', 'list', '--store', url, '--project', project.id])).toEqual([])
    const cancel = await cli(['jobs', 'cancel', 'job_none', '--store', url])
    expect(cancel.code).not.toBe(0)
    expect(cancel.stderr).toContain('there is no job job_none')
    // A database with a project already: init makes nothing.
    const init = await cliJson(['init', '--store', url, '--json'])
    expect(init).toMatchObject({ created: false, projectId: project.id })
    expect(await cliJson(['projects', 'list', '--store', url])).toEqual([project])
  }, 30_000)

  test("init --store: a cluster's first data, once; a node prints on its demo printer with its key", async () => {
    const fresh = await pg.database('cli_init')
    await cliJson(['migrate', '--store', fresh])
    const [first, second] = await Promise.all([
      cliJson(['init', '--store', fresh, '--json']),
      cliJson(['init', '--store', fresh, '--json']),
    ])
    // Two at once make one project: the second finds the first's.
    const made = [first, second].find((result) => result.created)
    expect([first.created, second.created].sort()).toEqual([false, true])
    expect(second.projectId).toBe(first.projectId)
    const said = await cli(['init', '--store', fresh])
    expect(said.stdout).toContain('already initialised')
    expect(said.stdout).not.toContain(password())
    const builtins = (await cliJson(['agents', 'list', '--store', fresh])).filter(
      (a: { builtin: boolean }) => a.builtin,
    )
    expect(builtins).toHaveLength(1)
    const data = tempDir()
    const node = await spawnServe(data, { args: ['--store', fresh] })
    try {
      const posted = await fetch(`${node.url}/v1/projects/${made.projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${made.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          printerId: made.printerId,
          idempotencyKey: 'first-ticket',
          document: { width: 80, sections: [{ type: 'text', value: 'Première commande' }] },
        }),
      })
      expect(posted.status).toBe(202)
      const { job } = await posted.json()
      const read = async () =>
        (
          await (
            await fetch(`${node.url}/v1/projects/${made.projectId}/jobs/${job.id}`, {
              headers: { authorization: `Bearer ${made.apiKey}` },
            })
          ).json()
        ).job.state
      expect(await waitFor(async () => ((await read()) === 'COMPLETED' ? true : undefined), 10_000)).toBe(true)
    } finally {
      await node.stop()
      rmSync(data, { recursive: true, force: true })
    }
  }, 60_000)

  test("printers test --store: a test page printed from this machine on a printer of the cluster's", async () => {
    const [project] = await cliJson(['projects', 'list', '--store', url])
    const dir = tempDir()
    const paper = join(dir, 'output', 'bar.bin')
    const added = [
      '--project',
      project.id,
      '--id',
      'bar',
      '--connection',
      `file://${paper}`,
      '--store',
      url,
      '--data',
      dir,
    ]
    await cliJson(['printers', 'add', ...added])
    const printed = await cliJson(['printers', 'test', 'bar', '--project', project.id, '--store', url, '--data', dir])
    expect(printed).toMatchObject({ printer: 'bar', printed: true })
    expect(readFileSync(paper, 'latin1')).toContain('bar')
    rmSync(dir, { recursive: true, force: true })
  }, 30_000)

  test('serve with the database is a node of the cluster: only its own files in its data directory', async () => {
    for (const [args, env] of [
      [['--store', url], {}],
      [[], { PRINTHUB_DATABASE_URL: url }],
    ] as const) {
      const data = tempDir()
      const node = await spawnServe(data, { args: [...args], env })
      expect(node.output()).toMatch(/node node_[0-9a-f]{16} listening on http:\/\/127\.0\.0\.1:\d+, data in postgres:/)
      expect(node.output()).not.toContain(password())
      expect((await fetch(`${node.url}/health`)).status).toBe(200)
      expect(readdirSync(data).sort()).toEqual(['node-id', 'printhub.lock'])
      expect(await node.stop()).toBe(0)
      rmSync(data, { recursive: true, force: true })
    }
    const empty = await pg.database('serve_unmigrated')
    const unmigrated = await cli(['serve', '--data', tempDir(), '--port', '0', '--store', empty])
    expect(unmigrated.code).not.toBe(0)
    expect(unmigrated.stderr).toContain(`${PG_SCHEMA_VERSION}`)
    expect(unmigrated.stderr).toContain('printhub migrate')
    expect(unmigrated.stdout + unmigrated.stderr).not.toContain(password())
  }, 30_000)

  test("backup and restore of a cluster's data say to use PostgreSQL's own tools, and write nothing", async () => {
    const dir = tempDir()
    for (const args of [
      ['backup', '--out', `${dir}/b.tar`, '--store', url],
      ['restore', `${dir}/b.tar`, '--data', `${dir}/data`, '--store', url],
    ]) {
      const refused = await cli(args)
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain('pg_dump')
      expect(refused.stderr).not.toContain(password())
    }
    const env = await cli(['backup', '--out', `${dir}/b.tar`], { PRINTHUB_DATABASE_URL: url })
    expect(env.code).not.toBe(0)
    expect(readdirSync(dir)).toEqual([])
    rmSync(dir, { recursive: true, force: true })
  }, 30_000)

  test('bad input: another kind of URL, a database not migrated, a wrong password; none shows it', async () => {
    const mysql = await cli(['projects', 'list', '--store', 'mysql://root:secret@127.0.0.1/x'])
    expect(mysql.code).toBe(2)
    expect(mysql.stderr).toContain('--store is a mysql URL: give a postgres:// one')
    expect(mysql.stderr).not.toContain('secret')
    const empty = await pg.database('cli_unmigrated')
    const unmigrated = await cli(['projects', 'list', '--store', empty])
    expect(unmigrated.code).not.toBe(0)
    expect(unmigrated.stderr).toContain(`${PG_SCHEMA_VERSION}`)
    expect(unmigrated.stderr).toContain('printhub migrate')
    const wrong = await cli(['projects', 'list', '--store', url.replace(/:[^:@/]+@/, ':not-the-password@')])
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toContain('postgres://printhub:***@')
    for (const run of [mysql, unmigrated, wrong]) expect(run.stdout + run.stderr).not.toContain(password())
  }, 30_000)
})
