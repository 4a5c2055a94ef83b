// install, upgrade and uninstall against a real systemd: a Debian 12 machine (scripts/systemd-rootfs.ts)
// booted with systemd-nspawn, the compiled executables bound into it read-only. The hub is
// installed as a service, killed with kill -9 (Restart= brings it back), upgraded to a build made
// here from a copy of the sources with one more migration, then "upgraded" to a build with two
// more that migrates the database and stops before it answers (rolled back: the old executable
// and the pre-upgrade data come back, and the hub with its jobs answers again), installed over
// by yet another build while it runs, and removed with uninstall. Needs root, debootstrap and
// systemd-container (npm test installs the two packages when missing).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { binaryPath, build } from '../../scripts/build.ts'
import { ensureRootfs } from '../../scripts/systemd-rootfs.ts'
import { SERVICE_JIT_ENVIRONMENT } from '../../src/platform/jit.ts'
import { MIGRATIONS } from '../../src/store/migrations.ts'
import { bootContainer, type Container } from '../support/container.ts'

const ROOT = join(import.meta.dir, '..', '..')
const INSIDE = '/opt/printhub-test'
const SCHEMA = MIGRATIONS.at(-1)!.version
const SOURCES = ['src', 'scripts', 'printers', 'package.json', 'tsconfig.json', 'bunfig.toml']

let work: string
let container: Container
let port: number

/** A build from a copy of the sources: another version, `migrations` more, and a serve that may break. */
function variant(name: string, version: string, migrations: number, broken = false): void {
  const copy = join(work, `${name}-src`)
  mkdirSync(copy)
  for (const entry of SOURCES) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'))
  const pkg = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'))
  writeFileSync(join(copy, 'package.json'), JSON.stringify({ ...pkg, version }))
  const added = Array.from({ length: migrations }, (_, i) => SCHEMA + i + 1)
    .map(
      (v) =>
        `;(MIGRATIONS as Migration[]).push({ version: ${v}, description: 'test ${v}',
          sql: 'CREATE TABLE test_${name}_${v} (id INTEGER PRIMARY KEY) STRICT' })`,
    )
    .join('\n')
  writeFileSync(
    join(copy, 'src/store/migrations.ts'),
    `${readFileSync(join(copy, 'src/store/migrations.ts'), 'utf8')}\n${added}\n`,
  )
  if (broken) {
    const main = readFileSync(join(copy, 'src/main.ts'), 'utf8')
    writeFileSync(
      join(copy, 'src/main.ts'),
      main.replace(
        "import { main } from './cli/main.ts'\n",
        `import { main } from './cli/main.ts'
import { Store } from './store/store.ts'
const given = process.argv.slice(2)
if (given[0] === 'serve') {
  Store.open({ dataDir: given[given.indexOf('--data') + 1]!, create: false, maxOpenJobsPerProject: 100 }).close()
  console.error('broken on purpose: this build migrated the database and stops before it answers')
  process.exit(1)
}
`,
      ),
    )
  }
  const made = Bun.spawnSync([process.execPath, 'scripts/build.ts', 'x64'], {
    cwd: copy,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (made.exitCode !== 0) throw new Error(`building ${name}: ${made.stderr.toString()}`)
  mkdirSync(join(work, 'bin', name), { recursive: true })
  cpSync(join(copy, 'dist/printhub-linux-x64'), join(work, 'bin', name, 'printhub'))
}

function freePort(): number {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = server
  server.stop(true)
  return port
}

async function health(): Promise<{ status: number; serverId: string | null } | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) })
    await response.arrayBuffer()
    return { status: response.status, serverId: response.headers.get('x-printhub-server-id') }
  } catch {
    return undefined
  }
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}\n${(await container.sh('journalctl -u printhub --no-pager -n 30')).stdout}`,
      )
    await Bun.sleep(200)
  }
}

async function sh(command: string, timeoutMs = 120_000) {
  const result = await container.sh(command, timeoutMs)
  return { ...result, output: `${result.stdout}${result.stderr}` }
}

const property = async (name: string) =>
  (await sh(`systemctl show --property ${name} --value printhub.service`)).stdout.trim()
const installedVersion = async () =>
  JSON.parse((await sh('/usr/local/bin/printhub version --json')).stdout) as { version: string; schema: number }

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('the systemd tests boot a container: they need root')
  const rootfs = ensureRootfs()
  work = mkdtempSync(join(tmpdir(), 'printhub-systemd-'))
  await build(['x64'])
  mkdirSync(join(work, 'bin', 'old'), { recursive: true })
  cpSync(binaryPath('x64'), join(work, 'bin', 'old', 'printhub'))
  variant('new', '0.90.0', 1)
  variant('broken', '0.91.0', 2, true)
  variant('newer', '0.92.0', 1)
  port = freePort()
  container = await bootContainer(rootfs, [{ host: join(work, 'bin'), inside: INSIDE }], `printhub-test-${process.pid}`)
}, 600_000)

afterAll(async () => {
  await container?.stop()
  if (work) rmSync(work, { recursive: true, force: true })
}, 60_000)

describe('printhub under a real systemd', () => {
  let serverId: string
  let apiKey: string
  let projectId: string
  const jobs = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/v1/projects/${projectId}/jobs`, {
      headers: { authorization: `Bearer ${apiKey}` },
    })
    return response.status === 200
      ? ((await response.json()) as { jobs: { idempotencyKey: string; state: string }[] }).jobs
      : response.status
  }

  test('install: the service runs as its user, answers on the port, and the unit ' +
    'passes systemd-analyze verify', async () => {
    const installed = await sh(`${INSIDE}/old/printhub install --port ${port}`)
    expect(installed.output).toContain(`printhub is installed and running: http://`)
    expect(installed.code).toBe(0)
    apiKey = /API key \(shown only now; keep it secret\): (\S+)/.exec(installed.output)![1]!
    projectId = /Project: (\S+)/.exec(installed.output)![1]!
    expect(await property('ActiveState')).toBe('active')
    expect(await property('User')).toBe('printhub')
    // Bounded to fit a 512 MB board (src/install/files.ts).
    expect(await property('MemoryHigh')).toBe(String(192 * 1024 * 1024))
    expect(await property('MemoryMax')).toBe(String(256 * 1024 * 1024))
    // Started with the runtime's JIT options (src/platform/jit.ts), and the runtime took them (it
    // refuses to start on an option it does not know).
    expect(await property('Environment')).toBe(
      Object.entries(SERVICE_JIT_ENVIRONMENT)
        .map(([name, value]) => `${name}=${value}`)
        .join(' '),
    )
    const answer = await until(async () => (await health())?.serverId ?? undefined, 'the installed hub to answer')
    serverId = answer
    expect(serverId).toMatch(/^srv_/)
    const verified = await sh('systemd-analyze verify /etc/systemd/system/printhub.service')
    expect(verified.output.trim()).toBe('')
    expect(verified.code).toBe(0)
    const submitted = await fetch(`http://127.0.0.1:${port}/v1/projects/${projectId}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        printerId: 'demo',
        idempotencyKey: 'before-upgrades',
        document: { width: 80, sections: [{ type: 'text', value: 'hello' }, { type: 'cut' }] },
      }),
    })
    expect(submitted.status).toBe(202)
    await until(
      async () => ((await jobs()) as { state: string }[]).find((job) => job.state === 'COMPLETED'),
      'the job to print',
    )
  }, 120_000)

  test('the journal: each line with its priority (journalctl -p warning shows ' +
    "the printer's fault, not the jobs), no time of its own", async () => {
    // A printer nothing answers for: the built-in agent finds it offline, a warning.
    const added = await sh(
      `runuser -u printhub -- /usr/local/bin/printhub printers add --project ` +
        `${projectId} --id door --connection tcp://127.0.0.1:9 --data ` +
        `/var/lib/printhub --json`,
    )
    expect(added.code).toBe(0)
    const door = (JSON.parse(added.stdout) as { id: string }).id
    const warnings = await until(async () => {
      const out = (await sh('journalctl -u printhub -p warning -o cat --no-pager')).stdout
      return out.includes(`printer=${door}`) ? out : undefined
    }, 'the printer fault in journalctl -p warning')
    expect(warnings).toMatch(
      new RegExp(`^warn  printer printer=${door} name=door agent=agt_\\w+ \\w+ -> offline$`, 'm'),
    )
    expect(warnings).not.toContain('info  ')
    // Everything, with journald's own priority field: jobs are info (6), the fault a warning (4).
    const entries = (await sh('journalctl -u printhub -o json --no-pager')).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { MESSAGE: string; PRIORITY: string })
    const job = entries.filter((entry) => / job job=job_\w+ .* -> COMPLETED$/.test(entry.MESSAGE))
    expect(job).toHaveLength(1)
    expect(job[0]!.MESSAGE).toMatch(
      /^info  job job=job_\w+ project=prj_\w+ printer=prn_\w+ name=[\w-]+ attempt=1 DELIVERED -> COMPLETED$/,
    )
    expect(job[0]!.PRIORITY).toBe('6')
    expect(
      entries.find((entry) => entry.MESSAGE.includes(`printer=${door}`) && entry.MESSAGE.endsWith('-> offline'))!
        .PRIORITY,
    ).toBe('4')
    // journald stamps the lines: no time of their own, no priority prefix left in them.
    expect(entries.filter((entry) => /^(<\d>|\d{4}-\d\d-\d\dT)/.test(entry.MESSAGE))).toEqual([])
    expect(entries.filter((entry) => /^(debug|info |warn |error) [a-z]+ /.test(entry.MESSAGE)).length).toBeGreaterThan(
      5,
    )
    // grep job=: one job's life.
    const life = (
      await sh(`journalctl -u printhub -o cat --no-pager | grep 'job=${job[0]!.MESSAGE.split(' ')[3]!.slice(4)}'`)
    ).stdout
      .trim()
      .split('\n')
    // (The demo printer prints as it takes the bytes: no PRINTING on the way.)
    expect(life.map((line) => line.split(' ').at(-1))).toEqual(['PENDING', 'DISPATCHING', 'DELIVERED', 'COMPLETED'])
  }, 60_000)

  test('kill -9: systemd starts it again (Restart=on-failure), the same hub', async () => {
    const before = await property('MainPID')
    expect((await sh(`kill -9 ${before}`)).code).toBe(0)
    const after = await until(async () => {
      const pid = await property('MainPID')
      return pid !== '0' && pid !== before && (await health())?.serverId === serverId ? pid : undefined
    }, 'systemd to restart the hub')
    expect(after).not.toBe(before)
    expect(Number(await property('NRestarts'))).toBeGreaterThanOrEqual(1)
  }, 60_000)

  test(`upgrade to a build of schema ${SCHEMA + 1}: backed up, replaced, ` +
    `restarted, answering with its jobs`, async () => {
    const upgraded = await sh(`printhub upgrade ${INSIDE}/new/printhub --timeout 60`)
    expect(upgraded.output).toContain(`Upgrading printhub 0.1.0 (`)
    expect(upgraded.output).toContain(`schema ${SCHEMA}) -> printhub 0.90.0 (unknown, schema ${SCHEMA + 1})`)
    // Restarted when the installed printhub could back up while running; else started after the copy.
    expect(upgraded.output).toMatch(
      /3\. (Restarting the service: systemctl restart|Starting the service: systemctl start) printhub\.service/,
    )
    expect(upgraded.output).toMatch(
      new RegExp(
        /Upgraded to printhub 0\.90\.0 .* /.source +
          /The pre-upgrade backup stays in \/var\/lib\/printhub-backups\/pre-upgrade-\S+-0\.1\.0\./.source,
      ),
    )
    expect(upgraded.code).toBe(0)
    expect(await installedVersion()).toMatchObject({ version: '0.90.0', schema: SCHEMA + 1 })
    expect((await health())?.serverId).toBe(serverId)
    expect(await jobs()).toEqual([expect.objectContaining({ idempotencyKey: 'before-upgrades', state: 'COMPLETED' })])
    expect((await sh('ls -A /usr/local/bin')).stdout.trim()).toBe('printhub')
    // The upgrade in the hub's log: one line, from which schema to which.
    const said = (await sh("journalctl -u printhub -o cat --no-pager | grep 'upgraded the database'")).stdout
      .trim()
      .split('\n')
    expect(said).toEqual([
      `info  hub from=${SCHEMA} to=${SCHEMA + 1} version=0.90.0 upgraded the ` +
        `database from schema ${SCHEMA} to ${SCHEMA + 1} (printhub 0.90.0)`,
    ])
  }, 180_000)

  test(`upgrade to a build that migrates to schema ${SCHEMA + 2} and never ` +
    `answers: rolled back, old executable and data`, async () => {
    const failed = await sh(`printhub upgrade ${INSIDE}/broken/printhub --timeout 15`)
    expect(failed.output).toContain('Rolling back: the new printhub did not answer /health within 15 s')
    expect(failed.output).toContain('broken on purpose: this build migrated the database and stops before it answers')
    expect(failed.output).toMatch(
      /Rolled back to printhub 0\.90\.0 \(unknown, schema \d+\), with the data as it was before the upgrade/,
    )
    expect(failed.code).toBe(3)
    expect(await installedVersion()).toMatchObject({ version: '0.90.0', schema: SCHEMA + 1 })
    expect(await property('ActiveState')).toBe('active')
    expect((await health())?.serverId).toBe(serverId)
    expect(await jobs()).toEqual([expect.objectContaining({ idempotencyKey: 'before-upgrades', state: 'COMPLETED' })])
    // What the broken build left (its schema) is kept aside, not in the hub's data.
    expect((await sh('ls -d /var/lib/printhub.replaced-*')).code).toBe(0)
  }, 180_000)

  test('install run again with another build over the running hub: replaced by ' +
    'rename, backed up, no ETXTBSY', async () => {
    const again = await sh(`${INSIDE}/newer/printhub install --port ${port}`)
    expect(again.output).toContain(
      'printhub is installed already: backing its data up before the executable is replaced',
    )
    expect(again.code).toBe(0)
    expect(await installedVersion()).toMatchObject({ version: '0.92.0' })
    await until(
      async () => ((await health())?.serverId === serverId ? true : undefined),
      'the reinstalled hub to answer',
    )
    expect(await jobs()).toEqual([expect.objectContaining({ idempotencyKey: 'before-upgrades' })])
  }, 120_000)

  test('uninstall: the service stopped and gone, the data kept', async () => {
    const removed = await sh('printhub uninstall')
    expect(removed.output).toContain('printhub is removed. Its data stays in /var/lib/printhub')
    expect(removed.code).toBe(0)
    expect(await property('LoadState')).toBe('not-found')
    expect(await health()).toBeUndefined()
    expect((await sh('test -e /usr/local/bin/printhub || test -e /etc/systemd/system/printhub.service')).code).toBe(1)
    expect((await sh('test -s /var/lib/printhub/printhub.db')).code).toBe(0)
  }, 60_000)
})
