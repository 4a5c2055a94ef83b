// Makes the data directories of test/fixtures/schemas/: a hub (and a remote agent, once agents
// existed) as a released printhub left them, made by the code of that commit itself. The commit's
// sources are unpacked from git into a temporary directory and run there with this checkout's
// node_modules and Bun (the dependencies then were a subset of today's, at the same versions):
// `serve` starts on an empty data directory, then its CLI and its API add projects, keys,
// printers, jobs in several states, an agent, an admin password and token, settings, whatever that
// version has; the hub is stopped with SIGTERM, and what the database then holds is written to
// manifest.json, which test/store/schema-fixtures.test.ts checks today's code against.
//
//   bun scripts/schema-fixtures.ts NAME COMMIT
//
// writes test/fixtures/schemas/NAME/{data,agent-data,manifest.json}. The secrets in the manifest
// are those of this throwaway hub, kept so the test can show they still authenticate.
import { Database } from 'bun:sqlite'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const FIXTURES = join(ROOT, 'test/fixtures/schemas')
const DEADLINE_MS = 60_000

type Json = Record<string, any>

interface Tree {
  dir: string
  commands: string
  run(args: string[], stdin?: string): Promise<Json>
}

function unpack(commit: string, dir: string): Tree {
  const archive = Bun.spawnSync(['git', 'archive', '--format=tar', commit], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (archive.exitCode !== 0) throw new Error(`git archive ${commit}: ${archive.stderr.toString()}`)
  mkdirSync(dir, { recursive: true })
  const untar = Bun.spawnSync(['tar', '-x', '-C', dir], { stdin: archive.stdout, stderr: 'pipe' })
  if (untar.exitCode !== 0) throw new Error(`tar: ${untar.stderr.toString()}`)
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const help = Bun.spawnSync([process.execPath, 'src/main.ts', '--help'], {
    cwd: dir,
    stdout: 'pipe',
  }).stdout.toString()
  return {
    dir,
    commands: help,
    async run(args, stdin) {
      const child = Bun.spawn([process.execPath, 'src/main.ts', ...args], {
        cwd: dir,
        stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
        stdout: 'pipe',
        stderr: 'pipe',
        env: { PATH: process.env.PATH ?? '' },
      })
      const [out, err, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ])
      if (code !== 0) throw new Error(`printhub ${args.join(' ')} exited ${code}: ${err}${out}`)
      try {
        return JSON.parse(out) as Json
      } catch {
        return { text: out }
      }
    },
  }
}

const has = (tree: Tree, command: string) => new RegExp(`^  ${command} `, 'm').test(tree.commands)

interface Process {
  child: ReturnType<typeof Bun.spawn>
  output: () => string
}

/** Starts a long-running printhub command and waits until its output matches `ready`. */
async function start(tree: Tree, args: string[], ready: RegExp): Promise<Process & { match: RegExpExecArray }> {
  const child = Bun.spawn([process.execPath, 'src/main.ts', ...args], {
    cwd: tree.dir,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '' },
  })
  let output = ''
  const decoder = new TextDecoder()
  const read = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true })
  }
  void read(child.stdout as ReadableStream<Uint8Array>)
  void read(child.stderr as ReadableStream<Uint8Array>)
  const match = await until(
    () => ready.exec(output) ?? undefined,
    `printhub ${args[0]} to start`,
    () => output,
  )
  return { child, output: () => output, match }
}

async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  detail: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${detail()}`)
    await Bun.sleep(50)
  }
}

async function stop(process: Process): Promise<void> {
  process.child.kill('SIGTERM')
  const code = await process.child.exited
  if (code !== 0) throw new Error(`printhub exited ${code} on SIGTERM:\n${process.output()}`)
}

interface Hub {
  url: string
  projectId: string
  apiKey: string
}

async function submit(hub: Hub, projectId: string, key: string, body: Json): Promise<string> {
  const response = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      document: { width: 80, sections: [{ type: 'text', value: `Fixture ${body.idempotencyKey}` }, { type: 'cut' }] },
      ...body,
    }),
  })
  const answer = (await response.json()) as Json
  if (response.status !== 202)
    throw new Error(`job ${body.idempotencyKey}: ${response.status} ${JSON.stringify(answer)}`)
  return answer.job.id as string
}

async function jobState(hub: Hub, projectId: string, key: string, jobId: string): Promise<string> {
  const response = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
    headers: { authorization: `Bearer ${key}` },
  })
  const { jobs } = (await response.json()) as { jobs: Json[] }
  return jobs.find((job) => job.id === jobId)!.state as string
}

/** Waits until the job `jobId` of the project is in one of `states`, asked with the API key `key`. */
async function reach(
  hub: Hub,
  { projectId, key, jobId, states }: { projectId: string; key: string; jobId: string; states: string[] },
): Promise<void> {
  let last = ''
  await until(
    async () => ((last = await jobState(hub, projectId, key, jobId)), states.includes(last) ? true : undefined),
    `job ${jobId} to reach ${states.join(' or ')}`,
    () => `it is ${last}`,
  )
}

/** What a database holds, read directly: the manifest the test checks against. */
function read<T>(
  dataDir: string,
  file: string,
  work: (all: (sql: string) => Json[], tables: string[], versions: (table: string) => number[]) => T,
): T {
  const db = new Database(join(dataDir, file), { readonly: true })
  try {
    const tables = db
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((row) => row.name)
    const all = (sql: string) => db.query(sql).all() as Json[]
    const versions = (table: string) =>
      tables.includes(table)
        ? all(`SELECT version FROM ${table} ORDER BY version`).map((row) => row.version as number)
        : []
    return work(all, tables.sort(), versions)
  } finally {
    db.close()
  }
}

const hubSnapshot = (dataDir: string): Json =>
  read(dataDir, 'printhub.db', (all, tables, versions) => ({
    tables,
    schemaVersions: { store: versions('schema_migrations'), ledger: versions('ledger_schema_migrations') },
    settings: all('SELECT key, value FROM settings ORDER BY key'),
    projects: all('SELECT id, name, open_jobs AS openJobs FROM projects ORDER BY id'),
    printers: all(
      `SELECT id, project_id AS projectId, remote_id AS remoteId, connection,
        removed_at IS NOT NULL AS removed FROM printers ORDER BY id`,
    ),
    jobs: all(
      `SELECT id, project_id AS projectId, printer_id AS printerId,
        idempotency_key AS idempotencyKey, state, attempt_count AS attemptCount,
        last_error_code AS lastErrorCode FROM jobs ORDER BY seq`,
    ),
    agents: all('SELECT id, name, revoked_at IS NOT NULL AS revoked FROM agents ORDER BY id'),
    ledgerJobs: tables.includes('ledger_jobs')
      ? all('SELECT job_id AS jobId, state FROM ledger_jobs ORDER BY seq')
      : [],
  }))

/** An agent's own ledger file: its tables were unprefixed before the built-in agent's moved into the hub's database. */
const ledgerSnapshot = (dataDir: string): Json =>
  read(dataDir, 'agent.db', (all, tables, versions) => {
    const prefix = tables.includes('ledger_jobs') ? 'ledger_' : ''
    return {
      tables,
      schemaVersions: { ledger: versions(prefix ? 'ledger_schema_migrations' : 'schema_migrations') },
      settings: all(`SELECT key, value FROM ${prefix}settings ORDER BY key`),
      printers: all(`SELECT id, connection FROM ${prefix}printers ORDER BY id`),
      jobs: all(`SELECT job_id AS jobId, state FROM ${prefix}jobs ORDER BY seq`),
      outbox: all(`SELECT count(*) AS n FROM ${prefix}outbox`)[0]!.n,
    }
  })

/** The files of a data directory worth keeping: no lock file, no WAL left (a clean stop checkpoints it). */
function keep(from: string, to: string): void {
  for (const name of readdirSync(from, { recursive: true }) as string[]) {
    if (/-(wal|shm)$/.test(name)) throw new Error(`${name} is left in ${from}: the hub did not stop cleanly`)
  }
  cpSync(from, to, { recursive: true, filter: (path) => !path.endsWith('.lock') })
}

async function make(name: string, commit: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'printhub-fixture-'))
  try {
    const tree = unpack(commit, join(work, 'src'))
    const data = join(work, 'data')
    const agentData = join(work, 'agent-data')
    const delivery = has(tree, 'jobs cancel')
    const secrets: Json = {}
    const serve = await start(
      tree,
      ['serve', '--host', '127.0.0.1', '--port', '0', '--data', data, '--json'],
      /^(\{"event":"listening".*)$/m,
    )
    const listening = JSON.parse(serve.match[1]!) as Json
    const hub: Hub = {
      url: listening.url,
      projectId: listening.firstStart.projectId,
      apiKey: listening.firstStart.apiKey,
    }
    secrets.defaultKey = hub.apiKey
    const cli = (args: string[], stdin?: string) => tree.run([...args, '--data', data, '--json'], stdin)

    // A second project with a read-only key, and a key of the first that is revoked.
    const bar = await cli(['projects', 'create', 'bar'])
    const readOnly = await cli(['keys', 'create', '--project', bar.id, '--scope', 'jobs:read', '--name', 'till'])
    secrets.readOnlyKey = readOnly.apiKey
    const revoked = await cli(['keys', 'create', '--project', hub.projectId, '--name', 'old'])
    await cli(['keys', 'revoke', revoked.id])
    secrets.revokedKey = revoked.apiKey
    const writer = await cli(['keys', 'create', '--project', bar.id, '--name', 'kiosk'])
    secrets.barKey = writer.apiKey

    // Printers: the demo, one that fails, one offline, one that takes a minute, a removed one.
    const printer = (project: string, id: string, connection: string) =>
      cli(['printers', 'add', '--project', project, '--id', id, '--connection', connection])
    await printer(bar.id, 'bar', 'virtual')
    const removed = await printer(hub.projectId, 'gone', 'tcp://127.0.0.1:9')
    const jobs: Record<string, string> = {}
    jobs.demo1 = await submit(hub, hub.projectId, hub.apiKey, {
      printerId: 'demo',
      idempotencyKey: 'demo-1',
      metadata: { order: '1' },
    })
    jobs.demo2 = await submit(hub, hub.projectId, hub.apiKey, { printerId: 'demo', idempotencyKey: 'demo-2' })
    jobs.bar = await submit(hub, bar.id, writer.apiKey, { printerId: 'bar', idempotencyKey: 'bar-1' })
    jobs.gone = await submit(hub, hub.projectId, hub.apiKey, {
      printerId: 'gone',
      idempotencyKey: 'gone-1',
      maxAttempts: 1,
    })
    if (delivery) {
      await printer(hub.projectId, 'broken', 'virtual://broken?mode=fail')
      await printer(hub.projectId, 'offline', 'virtual://offline?mode=offline')
      await printer(hub.projectId, 'slow', 'virtual://slow?delay=60000')
      jobs.broken = await submit(hub, hub.projectId, hub.apiKey, {
        printerId: 'broken',
        idempotencyKey: 'broken-1',
        maxAttempts: 1,
      })
      jobs.expiring = await submit(hub, hub.projectId, hub.apiKey, {
        printerId: 'offline',
        idempotencyKey: 'offline-expiring',
        expiresInMs: 10_000,
        maxAttempts: 10,
      })
      jobs.waiting = await submit(hub, hub.projectId, hub.apiKey, {
        printerId: 'offline',
        idempotencyKey: 'offline-waiting',
        maxAttempts: 10,
      })
      jobs.cancelled = await submit(hub, hub.projectId, hub.apiKey, {
        printerId: 'offline',
        idempotencyKey: 'offline-cancelled',
        maxAttempts: 10,
      })
      await cli(['jobs', 'cancel', jobs.cancelled])
      jobs.slow = await submit(hub, hub.projectId, hub.apiKey, { printerId: 'slow', idempotencyKey: 'slow-1' })
      const settle: [string, string, string, string[]][] = [
        [hub.projectId, hub.apiKey, jobs.demo1, ['COMPLETED']],
        [hub.projectId, hub.apiKey, jobs.demo2, ['COMPLETED']],
        [bar.id, writer.apiKey, jobs.bar, ['COMPLETED']],
        [hub.projectId, hub.apiKey, jobs.gone, ['FAILED']],
        [hub.projectId, hub.apiKey, jobs.broken, ['FAILED']],
        [hub.projectId, hub.apiKey, jobs.cancelled, ['CANCELLED']],
        [hub.projectId, hub.apiKey, jobs.slow, ['PRINTING', 'DELIVERED']],
        [hub.projectId, hub.apiKey, jobs.expiring, ['EXPIRED']],
      ]
      for (const [projectId, key, jobId, states] of settle) await reach(hub, { projectId, key, jobId, states })
    }
    await cli(['printers', 'remove', removed.id])

    if (has(tree, 'agent')) {
      // A remote agent, paired with a code, serving a printer of its own that the hub assigns.
      const { code } = await cli(['pairing-codes', 'create'])
      const agent = await start(
        tree,
        ['agent', '--server', hub.url, '--code', code, '--name', 'counter', '--data', agentData],
        /serving the printers/,
      )
      await tree.run([
        'printers',
        'add',
        '--local',
        '--id',
        'till',
        '--connection',
        'virtual',
        '--data',
        agentData,
        '--json',
      ])
      const reported = await until(
        async () =>
          ((await cli(['printers', 'list', '--agents'])) as unknown as Json[]).find((p) => p.printerId === 'till'),
        'the agent to report its printer',
      )
      await cli(['printers', 'assign', '--project', bar.id, '--agent', reported.agentId, '--printer', 'till'])
      jobs.remote = await submit(hub, bar.id, writer.apiKey, { printerId: 'till', idempotencyKey: 'till-1' })
      await reach(hub, { projectId: bar.id, key: writer.apiKey, jobId: jobs.remote, states: ['COMPLETED'] })
      await stop(agent)
    }
    if (has(tree, 'admin set-password')) {
      secrets.adminPassword = 'fixture password 1'
      await tree.run(['admin', 'set-password', '--data', data], `${secrets.adminPassword}\n`)
      secrets.adminToken = (await cli(['admin', 'create-token', '--name', 'scripts'])).secret
    }
    if (has(tree, 'settings set')) await cli(['settings', 'set', 'retention-days', '90'])
    await stop(serve)

    const out = join(FIXTURES, name)
    rmSync(out, { recursive: true, force: true })
    mkdirSync(out, { recursive: true })
    keep(data, join(out, 'data'))
    const manifest: Json = {
      name,
      commit,
      made: new Date().toISOString().slice(0, 10),
      jobs,
      secrets,
      hub: hubSnapshot(data),
    }
    if (existsSync(join(data, 'agent', 'agent.db'))) manifest.builtinLedger = ledgerSnapshot(join(data, 'agent'))
    if (existsSync(agentData)) {
      keep(agentData, join(out, 'agent-data'))
      manifest.agentLedger = ledgerSnapshot(agentData)
    }
    writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    console.log(
      `${name}: ${commit}, store ` +
        `${manifest.hub.schemaVersions.store.at(-1) ?? '-'}, ` +
        `${Object.keys(jobs).length} jobs, written to ${out}`,
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const [name, commit] = process.argv.slice(2)
  if (!name || !commit) throw new Error('usage: bun scripts/schema-fixtures.ts NAME COMMIT')
  await make(name, commit)
}
