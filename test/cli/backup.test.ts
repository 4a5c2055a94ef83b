// `printhub backup` and `printhub restore` with real processes and files: a backup of a hub while
// jobs are being submitted and printed, restored into a new directory where a new hub starts with
// every job, key, agent and printer; kill -9 of a backup half way; every refusal of restore.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { HUB_SCHEMA } from '../../src/store/database.ts'
import { cli, cliJson, PRINTHUB, ROOT } from '../support/cli.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

let dir: string
const running: ServeProcess[] = []

async function serve(dataDir: string): Promise<ServeProcess> {
  const started = await spawnServe(dataDir, { json: true })
  running.push(started)
  return started
}

/** Every file under `path`, with its content's length and mode: what "untouched" is compared by. */
function snapshotOf(path: string): Record<string, string> {
  const found: Record<string, string> = {}
  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name)
    if (entry.isFile())
      found[full.slice(path.length)] = `${statSync(full).mode.toString(8)} ${Bun.hash(readFileSync(full))}`
  }
  return found
}

function ids(dataDir: string, table: string): string[] {
  const db = new Database(join(dataDir, 'printhub.db'), { readonly: true })
  try {
    return db
      .query<{ id: string }, []>(`SELECT id FROM ${table} ORDER BY id`)
      .all()
      .map((row) => row.id)
  } finally {
    db.close()
  }
}

beforeAll(() => {
  dir = tempDir()
})
afterAll(async () => {
  await Promise.all(running.map((hub) => hub.stop()))
})

describe('a backup of a running hub, restored', () => {
  let source: string
  let archive: string
  let apiKey: string
  let projectId: string
  let before: string[]
  let after: string[]
  let summary: Record<string, any>
  let tillKey: string

  beforeAll(async () => {
    source = join(dir, 'running')
    const hub = await serve(source)
    apiKey = hub.listening!.firstStart.apiKey
    projectId = hub.listening!.firstStart.projectId
    // A printer and an API key of the technician's, beside what the first start made.
    await cliJson([
      'printers',
      'add',
      '--project',
      projectId,
      '--id',
      'bar',
      '--connection',
      'virtual',
      '--data',
      source,
    ])
    const extraKey = (await cliJson([
      'keys',
      'create',
      '--project',
      projectId,
      '--name',
      'till',
      '--data',
      source,
    ])) as { apiKey: string }
    tillKey = extraKey.apiKey
    // Jobs keep coming (and printing on the demo printer) until the backup is done.
    const answered: string[] = []
    let backupStarted = false
    let stop = false
    before = []
    const post = async (printerId: string) => {
      const response = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(jobBody({ printerId })),
      })
      expect(response.status).toBe(202)
      const { id } = ((await response.json()) as { job: { id: string } }).job
      expect(id).toStartWith('job_')
      answered.push(id)
      if (!backupStarted) before.push(id)
    }
    // Two at a time, paced under the key's rate limit (1,200 jobs a minute) for as long as the backup takes.
    const submitting = (async () => {
      for (let n = 0; !stop; n++) {
        await Promise.all([post('demo'), post(n % 2 ? 'demo' : 'bar')])
        await Bun.sleep(100)
      }
    })()
    await waitFor(() => answered.length >= 40, 20_000)
    archive = join(dir, 'running.phbackup')
    backupStarted = true
    const result = await cli(['backup', '--data', source, '--out', archive, '--json'])
    const afterBackup = answered.length
    // Some taken after the backup too (not in it).
    await waitFor(() => answered.length > afterBackup, 10_000)
    stop = true
    await submitting
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    summary = JSON.parse(result.stdout)
    after = answered.slice(afterBackup)
    expect(after.length).toBeGreaterThan(0)
  }, 60_000)

  test('the archive is one file of mode 0600, its summary says what it holds', () => {
    expect(statSync(archive).mode & 0o777).toBe(0o600)
    expect(summary.file).toBe(archive)
    expect(summary.members.map((m: { name: string }) => m.name)).toEqual(['printhub.db', 'agent/agent.key'])
    expect(summary.counts.jobs).toBeGreaterThanOrEqual(before.length)
    expect(summary.counts.printers).toBe(2)
    expect(summary.counts.apiKeys).toBe(2)
    expect(summary.serverId).toStartWith('srv_')
    // Nothing else was left beside it (the work folder is gone).
    expect(readdirSync(dir).filter((name) => name.startsWith('.'))).toEqual([])
  })

  test('restored into a new directory, a hub starts there with every job, key, ' +
    'agent and printer the backup held', async () => {
    const restored = join(dir, 'restored')
    const result = await cliJson(['restore', archive, '--data', restored])
    expect(result.replacedDir).toBeNull()
    expect(result.serverId).toBe(summary.serverId)
    const jobs = new Set(ids(restored, 'jobs'))
    for (const id of before) expect(jobs.has(id)).toBe(true)
    expect(jobs.size).toBe(summary.counts.jobs)
    expect(ids(restored, 'api_keys')).toEqual(ids(source, 'api_keys'))
    expect(ids(restored, 'agents')).toEqual(ids(source, 'agents'))
    expect(ids(restored, 'printers')).toEqual(ids(source, 'printers'))
    expect(readFileSync(join(restored, 'agent', 'agent.key'))).toEqual(readFileSync(join(source, 'agent', 'agent.key')))
    expect(statSync(join(restored, 'agent', 'agent.key')).mode & 0o777).toBe(0o600)

    const hub = await serve(restored)
    expect(hub.listening!.serverId).toBe(summary.serverId)
    // Not a first start: the API key from before authenticates, and nothing new was made.
    expect(hub.listening!.firstStart).toBeNull()
    const list = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
      headers: { authorization: `Bearer ${apiKey}` },
    })
    expect(list.status).toBe(200)
    expect(
      (await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, { headers: { authorization: `Bearer ${tillKey}` } }))
        .status,
    ).toBe(200)
    expect(
      (
        await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
          headers: { authorization: 'Bearer phk_not_a_key_of_this_hub' },
        })
      ).status,
    ).toBe(401)
    expect(((await list.json()) as { jobs: unknown[] }).jobs.length).toBeGreaterThan(0)
    const posted = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(jobBody({ printerId: 'bar' })),
    })
    expect(posted.status).toBe(202)
    // The built-in agent came back with its key: the same agent, no new pairing.
    expect(ids(restored, 'agents')).toEqual(ids(source, 'agents'))
    const agents = (await cliJson(['agents', 'list', '--data', restored])) as { id: string }[]
    expect(agents.map((agent) => agent.id).sort()).toEqual(ids(source, 'agents'))
    await hub.stop()
  }, 30_000)
})

describe('a data directory of an earlier layout', () => {
  test(
    "the built-in agent's ledger in its own file (agent/agent.db) is backed " + 'up and restored with the rest',
    async () => {
      const source = join(dir, 'ledger-apart')
      cpSync(join(ROOT, 'test/fixtures/schemas/store-v2-ledger-apart/data'), source, { recursive: true })
      const out = join(dir, 'ledger-apart.phbackup')
      const made = await cliJson(['backup', '--data', source, '--out', out])
      expect(made.members.map((m: { name: string }) => m.name)).toEqual([
        'printhub.db',
        'agent/agent.key',
        'agent/agent.db',
      ])
      const restored = join(dir, 'ledger-apart-restored')
      await cliJson(['restore', out, '--data', restored])
      const rows = (path: string) => {
        const db = new Database(path, { readonly: true })
        try {
          return db.query('SELECT * FROM jobs ORDER BY job_id').all()
        } finally {
          db.close()
        }
      }
      expect(rows(join(restored, 'agent', 'agent.db'))).toEqual(rows(join(source, 'agent', 'agent.db')))
      expect(rows(join(restored, 'agent', 'agent.db')).length).toBeGreaterThan(0)
    },
  )
})

describe('a backup killed half way', () => {
  test('leaves no file under its name and the hub unaffected; the next backup completes and restores', async () => {
    const source = join(dir, 'big')
    // A database big enough that its backup takes a while: a first start, then 96 MB more.
    expect((await cli(['init', '--data', source])).code).toBe(0)
    const db = new Database(join(source, 'printhub.db'))
    db.run('CREATE TABLE ballast (data BLOB NOT NULL)')
    const insert = db.query('INSERT INTO ballast (data) VALUES (?)')
    for (let i = 0; i < 96; i++) insert.run(crypto.getRandomValues(new Uint8Array(1 << 20)))
    db.close()
    const hub = await serve(source)
    const projectId =
      hub.listening!.firstStart?.projectId ?? (await cliJson(['projects', 'list', '--data', source]))[0].id

    const out = join(dir, 'big.phbackup')
    const work = `.big.phbackup.backup-partial-`
    const backup = Bun.spawn([...PRINTHUB, 'backup', '--data', source, '--out', out], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    // Half way: its archive is being written in the work folder beside the target.
    const partial = await waitFor(() => {
      const folder = readdirSync(dir).find((name) => name.startsWith(work))
      const file = folder && join(dir, folder, 'archive')
      return file && existsSync(file) && statSync(file).size > 0 ? join(dir, folder) : undefined
    }, 30_000)
    backup.kill('SIGKILL')
    expect(await backup.exited).not.toBe(0)
    expect(backup.signalCode).toBe('SIGKILL')
    expect(existsSync(out)).toBe(false)
    expect(existsSync(partial)).toBe(true)

    // The hub goes on taking jobs.
    const jobs: string[] = []
    expect((await fetch(`${hub.url}/health`)).status).toBe(200)
    const secret = ((await cliJson(['keys', 'create', '--project', projectId, '--data', source])) as { apiKey: string })
      .apiKey
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(jobBody()),
      })
      expect(response.status).toBe(202)
      jobs.push(((await response.json()) as { job: { id: string } }).job.id)
    }

    // A complete backup now: the abandoned work folder is cleared, the archive restores.
    const done = await cliJson(['backup', '--data', source, '--out', out])
    expect(done.file).toBe(out)
    expect(existsSync(partial)).toBe(false)
    const restored = join(dir, 'big-restored')
    const result = await cliJson(['restore', out, '--data', restored])
    expect(result.counts.jobs).toBe(done.counts.jobs)
    const restoredJobs = ids(restored, 'jobs')
    for (const id of jobs) expect(restoredJobs).toContain(id)
    await hub.stop()
  }, 120_000)
})

describe('a full disk', () => {
  /**
   * Runs `script` (sh) on a tmpfs of `mb` MB mounted at `mountPoint` for it alone (a mount namespace of its own: no
   * root needed).
   */
  function onTmpfs(mountPoint: string, mb: number, script: string): { code: number; stdout: string; stderr: string } {
    mkdirSync(mountPoint, { recursive: true })
    const mount = `mount -t tmpfs -o size=${mb}m tmpfs "${mountPoint}" && cd "${mountPoint}" && ${script}`
    const result = Bun.spawnSync(['unshare', '--mount', '--map-root-user', 'sh', '-c', mount, 'sh', ...PRINTHUB], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
  }

  test('a backup that finds no room says so and leaves nothing; a restore that ' +
    'finds none leaves the target as it was', async () => {
    const source = join(dir, 'roomy')
    expect((await cli(['init', '--data', source])).code).toBe(0)
    const db = new Database(join(source, 'printhub.db'))
    db.run('CREATE TABLE ballast (data BLOB NOT NULL)')
    for (let i = 0; i < 4; i++)
      db.query('INSERT INTO ballast (data) VALUES (?)').run(crypto.getRandomValues(new Uint8Array(1 << 20)))
    db.close()
    // "$@" is the printhub command line.
    const backup = onTmpfs(
      join(dir, 'small-disk'),
      2,
      `"$@" backup --data "${source}" --out big.phbackup; code=$?; ls -A; exit $code`,
    )
    expect(backup.code).toBe(1)
    expect(backup.stderr).toEndWith(`(the disk of ${join(dir, 'small-disk')} is full)\n`)
    expect(backup.stderr).toStartWith('printhub backup: the backup could not be written: ')
    expect(backup.stdout).toBe('')

    const archive = join(dir, 'roomy.phbackup')
    expect((await cli(['backup', '--data', source, '--out', archive])).code).toBe(0)
    const restore = onTmpfs(
      join(dir, 'small-disk-2'),
      3,
      `mkdir data && echo "the venue's data" > data/notes.txt && "$@" restore ` +
        `"${archive}" --data data --force; code=$?; ls -A . data; cat ` +
        `data/notes.txt; exit $code`,
    )
    expect(restore.code).toBe(1)
    expect(restore.stderr).toContain(`(the disk of ${join(dir, 'small-disk-2')} is full)`)
    expect(restore.stderr).toContain('data is as it was')
    expect(restore.stdout).toBe(".:\ndata\n\ndata:\nnotes.txt\nthe venue's data\n")
  }, 60_000)
})

describe('restore refuses, and leaves the target as it was', () => {
  let archive: string
  let source: string

  beforeAll(async () => {
    source = join(dir, 'small')
    expect((await cli(['init', '--data', source])).code).toBe(0)
    archive = join(dir, 'small.phbackup')
    expect((await cli(['backup', '--data', source, '--out', archive])).code).toBe(0)
  })

  test('a directory that is not empty, without --force', async () => {
    const target = join(dir, 'occupied')
    mkdirSync(target)
    writeFileSync(join(target, 'notes.txt'), 'the venue’s own file')
    const result = await cli(['restore', archive, '--data', target])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${target} is not empty (it holds notes.txt)`)
    expect(result.stderr).toContain('--force')
    expect(readdirSync(target)).toEqual(['notes.txt'])
  })

  test('the directory of a running hub, even with --force', async () => {
    const target = join(dir, 'live')
    const hub = await serve(target)
    const before = snapshotOf(target)
    const result = await cli(['restore', archive, '--data', target, '--force'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`is in use by printhub serve (PID ${hub.process.pid})`)
    expect(readdirSync(dir).filter((name) => name.startsWith('live.replaced'))).toEqual([])
    expect((await fetch(`${hub.url}/health`)).status).toBe(200)
    await hub.stop()
    // The files as they were (the database closed by the hub's stop, so compared after).
    expect(Object.keys(snapshotOf(target))).toEqual(
      expect.arrayContaining(Object.keys(before).filter((name) => !name.endsWith('-wal') && !name.endsWith('-shm'))),
    )
  })

  test('a corrupted archive: a clear error, the target untouched', async () => {
    const damaged = join(dir, 'damaged.phbackup')
    const bytes = readFileSync(archive)
    // Bytes flipped inside the database's stored data (found where its first part is in the file).
    const reader = new Database(archive, { readonly: true })
    const stored = reader
      .query<{ data: Uint8Array }, []>("SELECT data FROM chunks WHERE member = 'printhub.db' AND seq = 0")
      .get()!.data
    reader.close()
    const at = bytes.indexOf(Buffer.from(stored.subarray(0, 64)))
    expect(at).toBeGreaterThan(0)
    for (let i = at + 100; i < at + 164; i++) bytes[i] = bytes[i]! ^ 0xff
    writeFileSync(damaged, bytes)
    const target = join(dir, 'kept')
    cpSync(source, target, { recursive: true })
    const before = snapshotOf(target)
    const result = await cli(['restore', damaged, '--data', target, '--force'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(
      new RegExp(
        /^printhub restore: .*damaged\.phbackup is damaged: /.source +
          /printhub\.db (is damaged|does not match its SHA-256 checksum)/.source,
      ),
    )
    expect(snapshotOf(target)).toEqual(before)
    expect(readdirSync(dir).filter((name) => name.startsWith('kept.') || name.startsWith('.kept'))).toEqual([])
  })

  test('an archive from a newer printhub, naming both versions', async () => {
    const newer = join(dir, 'newer')
    cpSync(source, newer, { recursive: true })
    const db = new Database(join(newer, 'printhub.db'))
    db.run(`INSERT INTO ${HUB_SCHEMA.migrationsTable} (version, applied_at) VALUES (999, 0)`)
    db.close()
    const file = join(dir, 'newer.phbackup')
    expect((await cli(['backup', '--data', newer, '--out', file])).code).toBe(0)
    const known = HUB_SCHEMA.migrations.at(-1)!.version
    const result = await cli(['restore', file, '--data', join(dir, 'from-newer')])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('store schema version 999')
    expect(result.stderr).toContain(`knows store schema version ${known}`)
    expect(existsSync(join(dir, 'from-newer'))).toBe(false)
  })

  test('a file that is not an archive at all, and one that is not there', async () => {
    const text = join(dir, 'notes.phbackup')
    writeFileSync(text, 'not a backup\n'.repeat(100))
    const notSqlite = await cli(['restore', text, '--data', join(dir, 'nothing')])
    expect(notSqlite.code).toBe(1)
    expect(notSqlite.stderr).toContain(`${text} is not a printhub backup`)
    const database = await cli(['restore', join(source, 'printhub.db'), '--data', join(dir, 'nothing')])
    expect(database.code).toBe(1)
    expect(database.stderr).toContain('is not a printhub backup')
    const missing = await cli(['restore', join(dir, 'absent.phbackup'), '--data', join(dir, 'nothing')])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('does not exist')
    expect(existsSync(join(dir, 'nothing'))).toBe(false)
    const usage = await cli(['restore', archive])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('--data is required')
  })

  test('--force puts the backup in place and keeps the replaced directory aside', async () => {
    const target = join(dir, 'replaced')
    mkdirSync(target)
    writeFileSync(join(target, 'notes.txt'), 'the venue’s own file')
    const result = await cli(['restore', archive, '--data', target, '--force'])
    expect(result.code).toBe(0)
    const kept = /kept as (\S+);/.exec(result.stdout)?.[1]
    expect(kept).toStartWith(`${target}.replaced-`)
    expect(readFileSync(join(kept!, 'notes.txt'), 'utf8')).toBe('the venue’s own file')
    expect(readdirSync(target).sort()).toEqual(['agent', 'printhub.db'])
    expect(ids(target, 'agents')).toEqual(ids(source, 'agents'))
  })

  test('through a symbolic link, the data goes where the link points, and the link stays', async () => {
    const real = join(dir, 'real-data')
    mkdirSync(real)
    writeFileSync(join(real, 'notes.txt'), 'old')
    const link = join(dir, 'linked-data')
    symlinkSync(real, link)
    const result = await cliJson(['restore', archive, '--data', link, '--force'])
    expect(result.dataDir).toBe(real)
    expect(result.replacedDir).toStartWith(`${real}.replaced-`)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readdirSync(link).sort()).toEqual(['agent', 'printhub.db'])
  })
})
