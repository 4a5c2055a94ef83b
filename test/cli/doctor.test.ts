// `printhub doctor` on real data directories, real SQLite files and real sockets; only the facts
// of the machine (architecture, page size, groups) are given, since this machine has just one set.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TCPSocketListener } from 'bun'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { diagnose, type DoctorOptions, type Finding, type MachineFacts } from '../../src/doctor/checks.ts'
import { initialize } from '../../src/services/init.ts'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { Store } from '../../src/store/store.ts'
import { cli } from '../support/cli.ts'
import { startTestHub } from '../support/hub.ts'
import { freePort } from '../support/ports.ts'

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
  for (const [remoteId, connection] of Object.entries(connections)) store.printers.add({ projectId: init.projectId, remoteId, name: null, connection, profile: 'generic-80mm', width: 80, agentId })
  store.close()
  return dir
}

const options = (overrides: Partial<DoctorOptions> = {}): DoctorOptions => ({ dataDir, host: '127.0.0.1', port: freePort(), now: Date.now(), machine: PI, ...overrides })
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
    expect(finding(await diagnose(options({ machine: { ...PI, arch: 'arm' } })), 'platform')).toMatchObject({ verdict: 'fail' })
  })

  test('an unset clock, and a clock that went back behind the newest job', async () => {
    expect(finding(await diagnose(options({ now: Date.UTC(1970, 0, 1, 0, 5) })), 'clock')).toMatchObject({ verdict: 'fail' })
    const dir = await hubData()
    const store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 100 })
    const project = store.projects.list()[0]!
    await store.jobs.submit({ projectId: project.id, printerId: 'demo', idempotencyKey: 'k', document: { width: 80, sections: [{ type: 'cut' }] }, metadata: null, expiresInMs: 60_000, maxAttempts: 1 })
    store.close()
    const behind = (await diagnose(options({ dataDir: dir, now: Date.now() - 3_600_000 }))).filter((f) => f.check === 'clock')
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

  test('the port: free, held by a running hub, or taken by another program', async () => {
    const hub = await startTestHub()
    try {
      const ours = finding(await diagnose(options({ port: hub.hub.port })), 'port')!
      expect(ours).toMatchObject({ verdict: 'ok', detail: `printhub is running on 127.0.0.1:${hub.hub.port}` })
    } finally {
      await hub.stop()
    }
    const other = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    try {
      const taken = finding(await diagnose(options({ port: other.port })), 'port')!
      expect(taken.verdict).toBe('fail')
      expect(taken.detail).toContain('used by another program')
    } finally {
      other.stop(true)
    }
  })

  test('a user without the dialout and lp groups is told how to fix it', async () => {
    const access = finding(await diagnose(options({ machine: { ...PI, groups: ['printhub'], usblpLoaded: false } })), 'serial and USB')!
    expect(access.verdict).toBe('warn')
    expect(access.detail).toContain('usermod -aG dialout,lp')
    expect(finding(await diagnose(options({ machine: { ...PI, groups: undefined } })), 'serial and USB')).toMatchObject({ verdict: 'ok' })
  })

  test('printers that do not answer or are not there', async () => {
    const dir = await hubData({ gone: `tcp://127.0.0.1:${freePort()}`, unplugged: 'serial:///dev/ttyUSB9?baud=19200' })
    const findings = await diagnose(options({ dataDir: dir }))
    expect(finding(findings, 'printer gone')).toMatchObject({ verdict: 'fail' })
    expect(finding(findings, 'printer gone')!.detail).toContain('does not answer')
    expect(finding(findings, 'printer unplugged')).toMatchObject({ verdict: 'fail', detail: '/dev/ttyUSB9 does not exist: is the printer plugged in and on?' })
  })

  test('the command: plain words, exit 0 only when all is well, --json for scripts', async () => {
    const healthy = await cli(['doctor', '--data', dataDir, '--host', '127.0.0.1', '--port', String(freePort())])
    expect(healthy.code).toBe(0)
    expect(healthy.stdout).toContain('All is well.')
    const broken = await cli(['doctor', '--data', join(tmpdir(), 'printhub-doctor-nowhere'), '--host', '127.0.0.1', '--port', String(freePort()), '--json'])
    expect(broken.code).toBe(1)
    const report = JSON.parse(broken.stdout)
    expect(report.healthy).toBe(false)
    expect(report.findings.find((f: Finding) => f.check === 'data directory').verdict).toBe('fail')
  })
})
