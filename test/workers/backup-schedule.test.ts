// The running hub's daily backups, with a moved clock: the first soon after start, the next once
// the newest is a day old, the newest N of its own kept, any other file left alone, a failure
// logged and tried again later while the hub goes on. Each backup is a real `printhub backup`
// process writing a real archive.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { backupFileName } from '../../src/services/backup.ts'
import { cli, ROOT } from '../support/cli.ts'
import { startTestHub, tempDir, type TestHub } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

const DAY = 86_400_000
/** Longer than any test: only the first look runs by itself; the tests ask for the others. */
const LATER = 3_600_000

let dir: string
beforeAll(() => {
  dir = tempDir()
})

describe('daily backups into backup-dir', () => {
  let hub: TestHub
  let backups: string
  let offset = 0
  const lines: string[] = []
  const ours = () =>
    (existsSync(backups) ? readdirSync(backups) : [])
      .filter(
        (name) =>
          /^printhub-backup-.*\.phbackup$/.test(name) && !name.includes('-other-') && !name.includes('-byhand-'),
      )
      .sort()
  const strangers: Record<string, number> = {}

  beforeAll(async () => {
    backups = join(dir, 'backups')
    hub = await startTestHub({
      env: { PRINTHUB_BACKUP_DIR: backups, PRINTHUB_BACKUP_KEEP: '3' },
      now: () => Date.now() + offset,
      events: (line) => lines.push(line),
      backups: { times: { firstCheckMs: 20, checkMs: LATER, retryMs: LATER } },
    })
  })
  afterAll(() => hub.stop())

  test('the first backup is written soon after start, into a directory it creates, mode 0600', async () => {
    const first = await waitFor(() => ours()[0], 20_000)
    expect(first).toMatch(/^printhub-backup-printhub-\d{8}-\d{4}\.phbackup$/)
    expect(first.slice(0, -'-HHMM.phbackup'.length)).toBe(
      backupFileName('printhub', Date.now()).slice(0, -'-HHMM.phbackup'.length),
    )
    expect(statSync(backups).mode & 0o777).toBe(0o700)
    expect(statSync(join(backups, first)).mode & 0o777).toBe(0o600)
    await waitFor(
      () =>
        lines.find(
          (line) =>
            line.includes(` info  backup file=${join(backups, first)} `) &&
            line.includes(` wrote ${join(backups, first)} (`),
        ),
      5_000,
    )
  })

  test('another look within the day writes nothing', async () => {
    const result = await hub.hub.backups.check()
    expect(result.wrote).toBeUndefined()
    expect(ours().length).toBe(1)
  })

  test('a day later, one more; the newest backup-keep of its own are kept, files not its own left alone', async () => {
    // Files that are not the hub's: a note, a file named like a backup that is not one, a backup
    // made by hand (not scheduled), and a scheduled backup of another hub, all older than any.
    writeFileSync(join(backups, 'notes.txt'), 'keep me')
    writeFileSync(join(backups, 'printhub-backup-other-20200101-0000.phbackup'), 'not an archive')
    expect(
      (
        await cli([
          'backup',
          '--data',
          hub.dataDir,
          '--out',
          join(backups, 'printhub-backup-byhand-20200101-0000.phbackup'),
        ])
      ).code,
    ).toBe(0)
    const otherHub = join(dir, 'other-hub')
    expect((await cli(['init', '--data', otherHub])).code).toBe(0)
    expect(
      (
        await cli([
          'backup',
          '--scheduled',
          '--data',
          otherHub,
          '--out',
          join(backups, 'printhub-backup-other-20200102-0000.phbackup'),
        ])
      ).code,
    ).toBe(0)
    for (const name of readdirSync(backups)) strangers[name] = statSync(join(backups, name)).mtimeMs
    delete strangers[ours()[0]!]

    const written: string[] = [ours()[0]!]
    for (let day = 1; day <= 4; day++) {
      offset += DAY
      const result = await hub.hub.backups.check()
      expect(result.failed).toBeUndefined()
      written.push(result.wrote!.slice(backups.length + 1))
    }
    // Five written, the newest three kept: the two oldest pruned, each said in the log.
    expect(ours()).toEqual(written.slice(2).sort())
    for (const old of written.slice(0, 2))
      expect(
        lines.filter((line) =>
          line.endsWith(
            ` info  backup file=${join(backups, old)} keep=3 removed ` +
              `${join(backups, old)}, older than the newest 3 backups kept`,
          ),
        ),
      ).toHaveLength(1)
    for (const [name, mtime] of Object.entries(strangers)) expect(statSync(join(backups, name)).mtimeMs).toBe(mtime)
  }, 60_000)

  test('every kept backup restores', async () => {
    const newest = ours().at(-1)!
    const target = join(dir, 'restored')
    const result = await cli(['restore', join(backups, newest), '--data', target, '--json'])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).serverId).toBe(hub.hub.serverId)
  })
})

describe('printhub settings set backup-dir and backup-keep', () => {
  test('bounds are checked, a relative directory is kept absolute, and a running hub takes them', async () => {
    const lines: string[] = []
    const hub = await startTestHub({
      events: (line) => lines.push(line),
      backups: { times: { firstCheckMs: LATER, checkMs: LATER, retryMs: LATER } },
    })
    try {
      const data = ['--data', hub.dataDir]
      // None by default: a look writes nothing.
      expect((await hub.hub.backups.check()).wrote).toBeUndefined()
      const shown = await cli(['settings', 'show', ...data])
      expect(shown.stdout).toMatch(/^backup-dir +\(none: no scheduled backups\)/m)
      expect(shown.stdout).toMatch(/backup-keep +7 /)
      for (const bad of ['0', '366', 'many']) {
        const refused = await cli(['settings', 'set', 'backup-keep', bad, ...data])
        expect(refused.code).toBe(2)
        expect(refused.stderr).toContain('backup-keep must be')
      }
      expect((await cli(['settings', 'set', 'backup-keep', '2', ...data])).code).toBe(0)
      // Relative to where the command runs (the checkout, for the tests' CLI): kept absolute.
      const set = await cli(['settings', 'set', 'backup-dir', relative(ROOT, join(dir, 'via-cli')), ...data, '--json'])
      expect(set.code).toBe(0)
      expect(JSON.parse(set.stdout)).toMatchObject({ backupDir: join(dir, 'via-cli'), backupKeep: 2 })
      // The running hub takes them within seconds: its next look writes there.
      const wrote = await waitFor(async () => (await hub.hub.backups.check()).wrote, 10_000)
      expect(wrote.startsWith(join(dir, 'via-cli', 'printhub-backup-printhub-'))).toBe(true)
      expect((await cli(['settings', 'set', 'backup-dir', '', ...data])).stdout).toContain(
        'backup-dir is now (none: no scheduled backups)',
      )
    } finally {
      await hub.stop()
    }
  }, 30_000)
})

describe('a hub whose environment sets PRINTHUB_SERVER_ID', () => {
  test('knows its backups all the same: one a day, not one at every look', async () => {
    const backups = join(dir, 'pinned-id')
    const hub = await startTestHub({
      env: { PRINTHUB_BACKUP_DIR: `${backups}/`, PRINTHUB_SERVER_ID: 'srv_from_the_environment' },
      backups: { times: { firstCheckMs: LATER, checkMs: LATER, retryMs: LATER } },
    })
    try {
      expect(hub.hub.serverId).toBe('srv_from_the_environment')
      expect((await hub.hub.backups.check()).wrote).toBeString()
      expect((await hub.hub.backups.check()).wrote).toBeUndefined()
      expect(readdirSync(backups)).toHaveLength(1)
    } finally {
      await hub.stop()
    }
  })
})

describe('a failed scheduled backup', () => {
  test('is logged and tried again later; the hub goes on', async () => {
    // A directory that cannot be made: its parent is a file.
    const blocker = join(dir, 'blocker')
    writeFileSync(blocker, 'a file, not a directory')
    const backups = join(blocker, 'backups')
    let offset = 0
    const lines: string[] = []
    const hub = await startTestHub({
      env: { PRINTHUB_BACKUP_DIR: backups },
      now: () => Date.now() + offset,
      events: (line) => lines.push(line),
      backups: { times: { firstCheckMs: LATER, checkMs: LATER, retryMs: 600_000 } },
    })
    try {
      const failed = await hub.hub.backups.check()
      expect(failed.failed).toContain(`cannot write in ${backups}`)
      expect(
        lines.filter(
          (line) =>
            line.includes(` error backup dir=${backups} error=`) &&
            line.endsWith('the scheduled backup failed; trying again in 10 minutes'),
        ),
      ).toHaveLength(1)
      // The hub takes jobs meanwhile.
      const response = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, {
        body: {
          printerId: 'demo',
          idempotencyKey: 'after-failure',
          document: { width: 80, sections: [{ type: 'text', value: 'x' }] },
        },
      })
      expect(response.status).toBe(202)
      // Not again before the retry's time.
      expect((await hub.hub.backups.check()).failed).toBeUndefined()
      expect(lines.filter((line) => line.includes('failed'))).toHaveLength(1)
      // Once there is room for it and the time has come, it is written.
      rmSync(blocker)
      mkdirSync(blocker)
      offset += 600_000
      const retried = await hub.hub.backups.check()
      expect(retried.failed).toBeUndefined()
      expect(existsSync(retried.wrote!)).toBe(true)
    } finally {
      await hub.stop()
    }
  }, 30_000)
})
