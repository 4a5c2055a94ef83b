// `printhub doctor` on real data directories, real SQLite files and real sockets; only the facts
// of the machine (architecture, page size, groups) are given, since this machine has just one set.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TCPSocketListener } from 'bun'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { diagnose, type DoctorOptions, type Finding, type MachineFacts } from '../../src/doctor/checks.ts'
import { initialize } from '../../src/services/init.ts'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { Store } from '../../src/store/store.ts'
import { cli } from '../support/cli.ts'
import { startTestHub } from '../support/hub.ts'
import { freePort } from '../support/ports.ts'
import { spawnServe } from '../support/serve.ts'

const PI: MachineFacts = { arch: 'arm64', pageSize: 4096, groups: ['printhub', 'dialout', 'lp'], usblpLoaded: true }

let dataDir: string
let listener: TCPSocketListener
const dirs: string[] = []

/** A fresh initialised data directory, with a printer of the built-in agent on each connection. */
async function hubData(connections: Record<string, string> = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'printhub-doctor-'))
  dirs.push(dir)
  const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 100 })
  const init = await initialize(store, dir)
  if (!init.created) throw new Error('not a first start')
  const agentId = store.agents.builtin()!.id
  for (const [remoteId, connection] of Object.entries(connections))
    store.printers.add({
      projectId: init.projectId,
      remoteId,
      name: null,
      connection,
      profile: 'generic-80mm',
      width: 80,
      agentId,
    })
  store.close()
  return dir
}

const options = (overrides: Partial<DoctorOptions> = {}): DoctorOptions => ({
  dataDir,
  host: '127.0.0.1',
  port: freePort(),
  now: Date.now(),
  machine: PI,
  minFreeMb: 1,
  ...overrides,
})
const finding = (findings: Finding[], check: string) => findings.find((f) => f.check === check)

beforeAll(async () => {
  // Something that answers like a network printer's port 9100.
  listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  dataDir = await hubData({ bar: `tcp://127.0.0.1:${listener.port}` })
})
afterAll(() => {
  listener.stop(true)
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('printhub doctor', () => {
  test('a healthy Raspberry Pi hub: every check ok', async () => {
    const findings = await diagnose(options())
    expect(findings.map((f) => [f.check, f.verdict])).toEqual([
      ['platform', 'ok'],
      ['clock', 'ok'],
      ['data directory', 'ok'],
      ['data disk', 'ok'],
      ['database', 'ok'],
      ['port', 'ok'],
      ['serial and USB', 'ok'],
      ['printer demo', 'ok'],
      ['printer bar', 'ok'],
    ])
    expect(finding(findings, 'printer bar')!.detail).toBe(`127.0.0.1:${listener.port} accepts connections`)
  })

  test('a Pi 5 kernel with 16 KB pages, and a 32-bit system, are explained', async () => {
    const pi5 = finding(await diagnose(options({ machine: { ...PI, pageSize: 16_384 } })), 'platform')!
    expect(pi5).toMatchObject({ verdict: 'fail' })
    expect(pi5.detail).toContain('kernel=kernel8.img')
    expect(finding(await diagnose(options({ machine: { ...PI, arch: 'arm' } })), 'platform')).toMatchObject({
      verdict: 'fail',
    })
  })

  test('an unset clock, and a clock that went back behind the newest job', async () => {
    expect(finding(await diagnose(options({ now: Date.UTC(1970, 0, 1, 0, 5) })), 'clock')).toMatchObject({
      verdict: 'fail',
    })
    const dir = await hubData()
    const store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 100 })
    const project = store.projects.list()[0]!
    await store.jobs.submit({
      projectId: project.id,
      printerId: 'demo',
      idempotencyKey: 'k',
      document: { width: 80, sections: [{ type: 'cut' }] },
      metadata: null,
      expiresInMs: 60_000,
      maxAttempts: 1,
    })
    store.close()
    const behind = (await diagnose(options({ dataDir: dir, now: Date.now() - 3_600_000 }))).filter(
      (f) => f.check === 'clock',
    )
    expect(behind.map((f) => f.verdict)).toEqual(['ok', 'fail'])
    expect(behind[1]!.detail).toContain('the clock went back')
  })

  test('a missing data directory, and a damaged database', async () => {
    const missing = await diagnose(options({ dataDir: join(tmpdir(), 'printhub-doctor-nowhere') }))
    expect(finding(missing, 'data directory')).toMatchObject({ verdict: 'fail' })
    expect(finding(missing, 'data directory')!.detail).toContain('printhub init')
    expect(finding(missing, 'database')).toMatchObject({ verdict: 'fail' })

    const dir = await hubData()
    writeFileSync(join(dir, DATABASE_FILE), Buffer.alloc(64 * 1024, 0x5a))
    rmSync(join(dir, `${DATABASE_FILE}-wal`), { force: true })
    const damaged = finding(await diagnose(options({ dataDir: dir })), 'database')!
    expect(damaged.verdict).toBe('fail')
    expect(damaged.detail).toContain('restore a backup')
  })

  test('the port: free, held by this hub (its /health names its server ID; the body is unchanged)', async () => {
    expect(finding(await diagnose(options()), 'port')).toMatchObject({
      verdict: 'ok',
      detail: expect.stringContaining('is free for the hub'),
    })
    const dir = await hubData()
    const hub = await startTestHub({ dataDir: dir })
    try {
      const health = await fetch(`${hub.url}/health`)
      expect(health.headers.get('x-printhub-server-id')).toBe(hub.hub.serverId)
      expect(await health.text()).toBe('{"ok":true,"service":"printhub"}')
      const ours = finding(await diagnose(options({ dataDir: dir, port: hub.hub.port })), 'port')!
      expect(ours).toMatchObject({ verdict: 'ok', detail: `printhub is running on 127.0.0.1:${hub.hub.port}` })
      // Given its server ID (PRINTHUB_SERVER_ID), the hub is known by that one.
      expect(
        finding(await diagnose(options({ dataDir: dir, port: hub.hub.port, serverId: 'srv_given' })), 'port'),
      ).toMatchObject({ verdict: 'fail' })
    } finally {
      await hub.stop()
    }
  })

  test('the port held by another hub (another data directory), or by a printhub that does not say which', async () => {
    const other = await startTestHub()
    try {
      const taken = finding(await diagnose(options({ port: other.hub.port })), 'port')!
      const own = Store.open({ dataDir, create: false, maxOpenJobsPerProject: 100 })
      const ownId = own.settings.get('server_id')
      own.close()
      expect(taken.verdict).toBe('fail')
      expect(taken.detail).toBe(
        `127.0.0.1:${other.hub.port} is held by another printhub (server ID ` +
          `${other.hub.serverId}, PID ${process.pid}), not by the hub of ${dataDir} ` +
          `(server ID ${ownId}); which data directory that one uses is unknown. ` +
          `Stop it, or give this hub another port (--port).`,
      )
      // A data directory with no database: not its hub either.
      const empty = mkdtempSync(join(tmpdir(), 'printhub-doctor-'))
      dirs.push(empty)
      expect(finding(await diagnose(options({ dataDir: empty, port: other.hub.port })), 'port')!.detail).toContain(
        `not by the hub of ${empty} (which has no server ID yet)`,
      )
    } finally {
      await other.stop()
    }
    // Answers like printhub, but without the header (an older one).
    const older = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => Response.json({ ok: true, service: 'printhub' }),
    })
    try {
      const taken = finding(await diagnose(options({ port: older.port })), 'port')!
      expect(taken.verdict).toBe('fail')
      expect(taken.detail).toContain(
        `is held by another printhub that does not say its server ID (an older version, PID ${process.pid})`,
      )
    } finally {
      await older.stop(true)
    }
  })

  test('the port taken by another program: named with its PID when it can be found', async () => {
    // A plain HTTP server in its own process, which is not printhub.
    const script =
      "const s = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('hello') }); console.log(s.port)"
    const program = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'ignore' })
    try {
      const reader = program.stdout.getReader()
      const { value } = await reader.read()
      const portNumber = Number(new TextDecoder().decode(value).trim())
      const name = readFileSync(`/proc/${program.pid}/comm`, 'utf8').trim()
      const taken = finding(await diagnose(options({ port: portNumber })), 'port')!
      expect(taken).toEqual({
        check: 'port',
        verdict: 'fail',
        detail:
          `127.0.0.1:${portNumber} is used by another program (${name}, PID ` +
          `${program.pid}): the hub cannot start there. Stop that program or choose ` +
          `another port (--port).`,
      })
    } finally {
      program.kill('SIGKILL')
      await program.exited
    }
    // A bare TCP listener of this process.
    const other = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    try {
      const taken = finding(await diagnose(options({ port: other.port })), 'port')!
      expect(taken.verdict).toBe('fail')
      expect(taken.detail).toContain(`used by another program (`)
      expect(taken.detail).toContain(`PID ${process.pid}): the hub cannot start there`)
    } finally {
      other.stop(true)
    }
  })

  test("an address that is not this machine's is said so, not taken for a busy port", async () => {
    const elsewhere = finding(await diagnose(options({ host: '192.0.2.1' })), 'port')!
    expect(elsewhere.verdict).toBe('fail')
    expect(elsewhere.detail).toContain('the hub cannot listen on 192.0.2.1:')
    expect(elsewhere.detail).toContain('EADDRNOTAVAIL')
  })

  test(
    'the command against a serve process: its own data directory, another ' +
      'one, and a server ID given in the environment',
    async () => {
      const dir = await hubData()
      const hub = await spawnServe(dir, { env: { PRINTHUB_SERVER_ID: 'venue-hub-1' } })
      try {
        const port = new URL(hub.url).port
        const portOf = async (data: string, env: Record<string, string> = {}) =>
          (
            JSON.parse(
              (await cli(['doctor', '--data', data, '--host', '127.0.0.1', '--port', port, '--json'], env)).stdout,
            ).findings as Finding[]
          ).find((f) => f.check === 'port')!
        expect(await portOf(dir, { PRINTHUB_SERVER_ID: 'venue-hub-1' })).toMatchObject({
          verdict: 'ok',
          detail: `printhub is running on 127.0.0.1:${port}`,
        })
        const other = await portOf(dataDir, { PRINTHUB_SERVER_ID: 'another-hub' })
        expect(other.verdict).toBe('fail')
        expect(other.detail).toContain(
          `is held by another printhub (server ID venue-hub-1, PID ` +
            `${hub.process.pid}), not by the hub of ${dataDir} (server ID ` +
            `another-hub)`,
        )
      } finally {
        await hub.stop()
      }
    },
  )

  test('a user without the dialout and lp groups is told how to fix it', async () => {
    const access = finding(
      await diagnose(options({ machine: { ...PI, groups: ['printhub'], usblpLoaded: false } })),
      'serial and USB',
    )!
    expect(access.verdict).toBe('warn')
    expect(access.detail).toContain('usermod -aG dialout,lp')
    expect(finding(await diagnose(options({ machine: { ...PI, groups: undefined } })), 'serial and USB')).toMatchObject(
      { verdict: 'ok' },
    )
  })

  test('printers that do not answer or are not there', async () => {
    const dir = await hubData({ gone: `tcp://127.0.0.1:${freePort()}`, unplugged: 'serial:///dev/ttyUSB9?baud=19200' })
    const findings = await diagnose(options({ dataDir: dir }))
    expect(finding(findings, 'printer gone')).toMatchObject({ verdict: 'fail' })
    expect(finding(findings, 'printer gone')!.detail).toContain('does not answer')
    expect(finding(findings, 'printer unplugged')).toMatchObject({
      verdict: 'fail',
      detail: '/dev/ttyUSB9 does not exist: is the printer plugged in and on?',
    })
  })

  test('printers that poll the hub: one never heard from, one whose polls stopped, and one that polls', async () => {
    const dir = await hubData({
      silent: 'cloudprnt://00:11:62:00:00:01',
      stopped: 'cloudprnt://00:11:62:00:00:02',
      polling: 'cloudprnt://00:11:62:00:00:03',
      counter: 'epson-sdp://X6WY351989',
    })
    // The hub recorded what each printer's polls said, as it does while it runs.
    const store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 100 })
    const agentId = store.agents.builtin()!.id
    const idOf = (remoteId: string) =>
      store.printers.ofAgent(agentId).find((p) => p.remoteId === remoteId)!.agentPrinterId
    store.printerStates.record(agentId, idOf('stopped'), 'online')
    store.printerStates.record(agentId, idOf('stopped'), 'offline')
    store.printerStates.record(agentId, idOf('polling'), 'paper_low')
    store.close()
    const findings = await diagnose(options({ dataDir: dir }))
    expect(finding(findings, 'printer silent')).toMatchObject({
      verdict: 'warn',
      detail: expect.stringMatching(/^CloudPRNT printer 00:11:62:00:00:01 has not polled the hub recently: /),
    })
    expect(finding(findings, 'printer stopped')).toMatchObject({
      verdict: 'warn',
      detail: expect.stringMatching(
        /^CloudPRNT printer 00:11:62:00:00:02 has not polled the hub recently \(offline since 20\d\d-/,
      ),
    })
    expect(finding(findings, 'printer counter')).toMatchObject({
      verdict: 'warn',
      detail: expect.stringMatching(
        /^Epson Server Direct Print printer X6WY351989 has not polled the hub recently: .*this hub's \/epson-sdp/,
      ),
    })
    expect(finding(findings, 'printer polling')).toMatchObject({
      verdict: 'ok',
      detail: expect.stringMatching(/^CloudPRNT printer 00:11:62:00:00:03 polls the hub \(paper_low since 20\d\d-/),
    })
  })

  test('the command: plain words, exit 0 only when all is well, --json for scripts', async () => {
    const healthy = await cli(['doctor', '--data', dataDir, '--host', '127.0.0.1', '--port', String(freePort())])
    expect(healthy.code).toBe(0)
    expect(healthy.stdout).toContain('All is well.')
    const broken = await cli([
      'doctor',
      '--data',
      join(tmpdir(), 'printhub-doctor-nowhere'),
      '--host',
      '127.0.0.1',
      '--port',
      String(freePort()),
      '--json',
    ])
    expect(broken.code).toBe(1)
    const report = JSON.parse(broken.stdout)
    expect(report.healthy).toBe(false)
    expect(report.findings.find((f: Finding) => f.check === 'data directory').verdict).toBe('fail')
  })
})
