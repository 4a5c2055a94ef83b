// The steps of `printhub upgrade` with stand-ins for what only a real machine has: the service
// manager records what it is asked and says which executable "runs"; /health answers as the
// scenario says. The executables are small real programs (shell scripts) that answer
// `version --json` and, like printhub, `backup` and `restore` (a tar of the data directory); the
// files, the rename over the installed executable and the data directory are real.
import { afterEach, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  architectureProblem,
  ExecutableError,
  executableVersion,
  replaceExecutable,
} from '../../src/install/executable.ts'
import { BINARY_PATH, serviceSettingsOf, systemdUnit, UNIT_PATH, withRuntimeOptions } from '../../src/install/files.ts'
import { KEPT_PRE_UPGRADE_BACKUPS } from '../../src/install/safekeeping.ts'
import type { HealthAnswer, ServiceManager } from '../../src/install/system.ts'
import { upgrade, UpgradeError, type UpgradeOptions } from '../../src/install/upgrade.ts'
import { SERVICE_JIT_ENVIRONMENT } from '../../src/platform/jit.ts'
import { initialize } from '../../src/services/init.ts'
import { Store } from '../../src/store/store.ts'
import { waitFor } from '../support/wait.ts'
import { cli } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'

const DATA = '/var/lib/printhub'
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/**
 * A stand-in printhub: answers version --json (with the runtime options its service starts with:
 * this printhub's unless given; none, as builds before them said, with `null`), lists its
 * commands, backs up and restores with tar.
 */
function fakePrinthub(
  path: string,
  version: string,
  {
    backup = true,
    brokenVersion = false,
    failingBackup = false,
    runtimeOptions = SERVICE_JIT_ENVIRONMENT as unknown,
  }: { backup?: boolean; brokenVersion?: boolean; failingBackup?: boolean; runtimeOptions?: unknown } = {},
): string {
  const answer = JSON.stringify({
    version,
    commit: `c${version}`,
    schema: Number(version.split('.')[1]),
    ...(runtimeOptions === null ? {} : { runtimeOptions }),
  })
  const versionAnswer = brokenVersion ? 'echo "not json"' : `printf '%s\\n' '${answer}'`
  const backupHelp = backup ? 'echo "  backup   write a backup"; echo "  restore   put a backup back"' : 'true'
  const backupFailure = failingBackup ? 'echo "printhub backup: No space left on device" >&2; exit 1' : ''
  writeFileSync(
    path,
    `#!/bin/sh
case "$1" in
  version) ${versionAnswer} ;;
  --help) echo "Commands:"; echo "  serve   run the hub"; ${backupHelp} ;;
  backup) ${backupFailure}
    tar -C "$3" -cf "$5" . && echo "backed up by ${version}" >> "$3/../log" ;;
  restore) [ "$5" = "--force" ] || exit 2; mv "$4" "$4.replaced-x" && mkdir "$4" &&
    tar -C "$4" -xf "$2" && echo "restored by ${version}" >> "$4/../log" ;;
  *) exit 2 ;;
esac
`,
  )
  chmodSync(path, 0o755)
  return path
}

interface Machine {
  root: string
  data: string
  installed: string
  serverId: string
  actions: string[]
  /** What `systemctl daemon-reload` says: undefined when it works. */
  reloadProblem: string | undefined
  /** What /health answers, given which executable the service started last. */
  answers: (running: string | undefined) => HealthAnswer | undefined
  options: (newExecutable: string, overrides?: Partial<UpgradeOptions>) => UpgradeOptions
  lines: string[]
}

async function machine(
  oldVersion = '0.4.0',
  oldOptions: { backup?: boolean; failingBackup?: boolean } = {},
): Promise<Machine> {
  const root = tempDir()
  dirs.push(root)
  const data = join(root, DATA)
  const store = Store.open({ dataDir: data, create: true, maxOpenJobsPerProject: 100 })
  const { serverId } = await initialize(store, data)
  store.close()
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true })
  const installed = fakePrinthub(join(root, BINARY_PATH), oldVersion, oldOptions)
  mkdirSync(join(root, 'etc/systemd/system'), { recursive: true })
  writeFileSync(join(root, UNIT_PATH), systemdUnit({ binary: BINARY_PATH, dataDir: DATA, host: '0.0.0.0', port: 8080 }))
  const lines: string[] = []
  let running: string | undefined = oldVersion
  const m: Machine = {
    root,
    data,
    installed,
    serverId,
    actions: [],
    reloadProblem: undefined,
    lines,
    answers: (version) => (version ? { status: 200, serverId } : undefined),
    options: (newExecutable, overrides = {}) => {
      const service: ServiceManager = {
        run(action) {
          m.actions.push(action)
          if (action === 'reset-failed') return undefined
          running =
            action === 'stop'
              ? undefined
              : JSON.parse(Bun.spawnSync([installed, 'version', '--json']).stdout.toString()).version
          return undefined
        },
        reload() {
          m.actions.push('daemon-reload')
          return m.reloadProblem
        },
        journal: () => [`printhub ${running ?? 'stopped'}: the last line`],
      }
      return {
        root,
        newExecutable,
        timeoutMs: 300,
        out: (line) => lines.push(line),
        service,
        health: () => ({ probe: async () => m.answers(running) }),
        chown: () => undefined,
        ...overrides,
      }
    },
  }
  return m
}

/** A directory's entries; SQLite's -wal and -shm files come and go with readers (the upgrade reads the server ID). */
const listing = (dir: string) =>
  readdirSync(dir)
    .filter((name) => !/-(wal|shm)$/.test(name))
    .sort()

describe('printhub upgrade', () => {
  test(
    'backs up with the installed printhub, renames the new one over it, ' + 'restarts and waits for this hub',
    async () => {
      const m = await machine()
      const next = fakePrinthub(join(m.root, 'printhub-new'), '0.5.0')
      const outcome = await upgrade(m.options(next))
      expect(outcome.kind).toBe('upgraded')
      expect(m.actions).toEqual(['restart'])
      expect(readFileSync(m.installed, 'utf8')).toBe(readFileSync(next, 'utf8'))
      expect(existsSync(join(m.root, 'usr/local/bin/.printhub.old'))).toBe(false)
      expect(existsSync(join(m.root, 'usr/local/bin/.printhub.new'))).toBe(false)
      // The backup was made by the old one, into DATA-backups beside the data directory.
      const backups = join(m.root, `${DATA}-backups`)
      expect(listing(backups)).toEqual([expect.stringMatching(/^pre-upgrade-\d{8}T\d{6}Z-0\.4\.0\.phbackup$/)])
      expect(statSync(backups).mode & 0o777).toBe(0o700)
      expect(readFileSync(join(m.root, 'var/lib/log'), 'utf8')).toBe('backed up by 0.4.0\n')
      expect(m.lines[0]).toBe('Upgrading printhub 0.4.0 (c0.4.0, schema 4) -> printhub 0.5.0 (c0.5.0, schema 5)')
      expect(m.lines.filter((line) => /^\d\. /.test(line)).map((line) => line.slice(0, 2))).toEqual([
        '1.',
        '2.',
        '3.',
        '4.',
      ])
      expect(m.lines.at(-1)).toMatch(
        /^Upgraded to printhub 0\.5\.0 \(c0\.5\.0, schema 5\)\. The pre-upgrade backup stays in /,
      )
    },
  )

  test(
    'a new printhub that never answers is rolled back: old executable, data ' +
      'restored by the old printhub, started again',
    async () => {
      const m = await machine()
      const next = fakePrinthub(join(m.root, 'printhub-new'), '0.5.0')
      // The new one "migrates" the data when it starts, then never answers.
      m.answers = (version) => {
        if (version === '0.5.0') writeFileSync(join(m.data, 'migrated-by-0.5.0'), '')
        return version === '0.4.0' ? { status: 200, serverId: m.serverId } : undefined
      }
      const before = listing(m.data)
      const outcome = await upgrade(m.options(next))
      expect(outcome.kind).toBe('rolled-back')
      expect(m.actions).toEqual(['restart', 'stop', 'reset-failed', 'start'])
      expect(JSON.parse(Bun.spawnSync([m.installed, 'version', '--json']).stdout.toString()).version).toBe('0.4.0')
      expect(listing(m.data)).toEqual(before)
      // What the new one left is kept aside by restore --force.
      expect(existsSync(join(`${m.data}.replaced-x`, 'migrated-by-0.5.0'))).toBe(true)
      expect(readFileSync(join(m.root, 'var/lib/log'), 'utf8')).toBe('backed up by 0.4.0\nrestored by 0.4.0\n')
      const said = m.lines.join('\n')
      expect(said).toContain('Rolling back: the new printhub did not answer /health within 0.3 s (nothing answered).')
      expect(said).toContain('   | printhub 0.5.0: the last line')
      expect(said).toContain(`7. Restoring the pre-upgrade backup with the old printhub: ${BINARY_PATH} restore `)
      expect(m.lines.at(-1)).toMatch(
        new RegExp(
          /^Rolled back to printhub 0\.4\.0 \(c0\.4\.0, schema 4\), with the data as it was before the upgrade, /
            .source + /because the new printhub did not answer/.source,
        ),
      )
    },
  )

  describe("the unit's runtime options", () => {
    const unitOf = (m: Machine) => readFileSync(join(m.root, UNIT_PATH), 'utf8')

    test(
      "are made the new printhub's before the restart, with systemd told, and " + 'put back by the rollback',
      async () => {
        const m = await machine()
        const before = unitOf(m)
        expect(before).toContain('Environment=BUN_JSC_thresholdForFTLOptimizeAfterWarmUp=640000\nExecStart=')
        const next = fakePrinthub(join(m.root, 'printhub-new'), '0.5.0', { runtimeOptions: { BUN_JSC_useFTLJIT: '0' } })
        m.answers = (version) => (version === '0.4.0' ? { status: 200, serverId: m.serverId } : undefined)
        let during = ''
        const options = m.options(next)
        const health = options.health!
        // The unit as the new printhub's first /health is awaited.
        options.health = (host, port) => {
          const prober = health(host, port)
          return { probe: () => ((during ||= unitOf(m)), prober.probe()) }
        }
        const outcome = await upgrade(options)
        expect(during).toBe(withRuntimeOptions(before, { BUN_JSC_useFTLJIT: '0' }))
        expect(during).toContain('Environment=BUN_JSC_useFTLJIT=0\nExecStart=')
        expect(during).not.toContain('thresholdForFTL')
        expect(outcome.kind).toBe('rolled-back')
        expect(m.actions).toEqual(['daemon-reload', 'restart', 'stop', 'daemon-reload', 'reset-failed', 'start'])
        expect(unitOf(m)).toBe(before)
        const said = m.lines.join('\n')
        expect(said).toContain(
          `   ${UNIT_PATH} given the new printhub's runtime options (BUN_JSC_useFTLJIT=0): systemctl daemon-reload`,
        )
        expect(said).toContain(`   and ${UNIT_PATH} as it was: systemctl daemon-reload`)
      },
    )

    test(
      'are left out for a printhub that names none (a build from before them), ' +
        'and left alone when they are the same',
      async () => {
        const m = await machine()
        const before = unitOf(m)
        expect(
          (await upgrade(m.options(fakePrinthub(join(m.root, 'older'), '0.3.0', { runtimeOptions: null })))).kind,
        ).toBe('upgraded')
        expect(unitOf(m)).toBe(withRuntimeOptions(before, {}))
        expect(unitOf(m)).not.toContain('Environment=')
        expect(m.actions).toEqual(['daemon-reload', 'restart'])
        m.actions.length = 0
        expect(
          (await upgrade(m.options(fakePrinthub(join(m.root, 'again'), '0.5.0', { runtimeOptions: {} })))).kind,
        ).toBe('upgraded')
        expect(m.actions).toEqual(['restart'])
      },
    )

    test(
      'that could end a line of the unit, or are no runtime option, are refused ' + 'before anything changes',
      async () => {
        for (const runtimeOptions of [
          { BUN_JSC_useFTLJIT: '0\nExecStartPre=/bin/sh' },
          { PATH: '/tmp' },
          { BUN_JSC_useFTLJIT: 0 },
          ['BUN_JSC_useFTLJIT=0'],
        ]) {
          const m = await machine()
          const before = unitOf(m)
          const installed = readFileSync(m.installed, 'utf8')
          const next = fakePrinthub(join(m.root, 'odd'), '0.5.0', { runtimeOptions })
          await expect(upgrade(m.options(next))).rejects.toThrow(
            "asks for runtime options this printhub will not write into the service's unit",
          )
          await expect(executableVersion(next)).rejects.toBeInstanceOf(ExecutableError)
          expect(unitOf(m)).toBe(before)
          expect(readFileSync(m.installed, 'utf8')).toBe(installed)
          expect(m.actions).toEqual([])
        }
      },
    )

    test(
      'when systemd cannot be told, the unit and the executable stay as they ' + 'were and nothing is restarted',
      async () => {
        const m = await machine()
        const before = unitOf(m)
        const installed = readFileSync(m.installed, 'utf8')
        m.reloadProblem = '"systemctl daemon-reload" failed (exit 1): Access denied'
        const next = fakePrinthub(join(m.root, 'printhub-new'), '0.5.0', { runtimeOptions: { BUN_JSC_useFTLJIT: '0' } })
        await expect(upgrade(m.options(next))).rejects.toThrow(
          '"systemctl daemon-reload" failed (exit 1): Access denied, so the installed printhub stays (still running)',
        )
        expect(unitOf(m)).toBe(before)
        expect(readFileSync(m.installed, 'utf8')).toBe(installed)
        expect(m.actions).toEqual(['daemon-reload', 'daemon-reload'])
      },
    )
  })

  test('another server on the port is not taken for the new hub', async () => {
    const m = await machine()
    m.answers = (version) =>
      version === '0.5.0'
        ? { status: 200, serverId: 'srv_other' }
        : version
          ? { status: 200, serverId: m.serverId }
          : undefined
    const outcome = await upgrade(m.options(fakePrinthub(join(m.root, 'new'), '0.5.0')))
    expect(outcome).toMatchObject({
      kind: 'rolled-back',
      reason: expect.stringContaining(`another server answered (server ID srv_other, not ${m.serverId})`),
    })
  })

  test('when the old printhub does not come back either, it says so and where the backup is', async () => {
    const m = await machine()
    m.answers = () => undefined
    const outcome = await upgrade(m.options(fakePrinthub(join(m.root, 'new'), '0.5.0')))
    expect(outcome).toMatchObject({
      kind: 'rollback-failed',
      problem: 'the old printhub does not answer /health either (nothing answered)',
    })
    expect(m.lines.at(-1)).toContain('The rollback did not complete')
  })

  test(
    'an installed printhub without a backup command: its data directory is ' +
      'copied with the service stopped, and put back on rollback',
    async () => {
      const m = await machine('0.3.0', { backup: false })
      m.answers = (version) => (version === '0.3.0' ? { status: 200, serverId: m.serverId } : undefined)
      const before = listing(m.data)
      const outcome = await upgrade(m.options(fakePrinthub(join(m.root, 'new'), '0.5.0')))
      expect(outcome.kind).toBe('rolled-back')
      expect(m.actions).toEqual(['stop', 'start', 'stop', 'reset-failed', 'start'])
      const backups = listing(join(m.root, `${DATA}-backups`))
      expect(backups).toEqual([expect.stringMatching(/^pre-upgrade-.*-0\.3\.0\.data$/)])
      expect(listing(join(m.root, `${DATA}-backups`, backups[0]!))).toEqual(before)
      expect(listing(m.data)).toEqual(before)
      expect(m.lines.join('\n')).toContain('7. Putting the copy of the data directory back')
    },
  )

  test(`keeps the newest ${KEPT_PRE_UPGRADE_BACKUPS} pre-upgrade backups`, async () => {
    const m = await machine()
    let at = Date.parse('2026-01-01T00:00:00Z')
    for (const version of ['0.5.0', '0.6.0', '0.7.0', '0.8.0', '0.9.0']) {
      const outcome = await upgrade(
        m.options(fakePrinthub(join(m.root, `new-${version}`), version), { now: () => new Date((at += 60_000)) }),
      )
      expect(outcome.kind).toBe('upgraded')
    }
    expect(
      listing(join(m.root, `${DATA}-backups`)).map((name) => name.replace(/^pre-upgrade-\d{8}T\d{6}Z-/, '')),
    ).toEqual(['0.6.0.phbackup', '0.7.0.phbackup', '0.8.0.phbackup'])
  })

  test('refuses, changing nothing: not installed, not a printhub, the same executable, a failed backup', async () => {
    const m = await machine()
    const original = readFileSync(m.installed, 'utf8')
    const notPrinthub = fakePrinthub(join(m.root, 'other'), '1.0.0', { brokenVersion: true })
    await expect(upgrade(m.options(notPrinthub))).rejects.toThrow(
      `${notPrinthub} is not a printhub executable: "version --json" printed "not json\\n"`,
    )
    await expect(upgrade(m.options('/bin/false'))).rejects.toThrow(ExecutableError)
    expect(await upgrade(m.options(m.installed))).toEqual({ kind: 'unchanged' })
    rmSync(m.data, { recursive: true })
    mkdirSync(m.data)
    await expect(upgrade(m.options(fakePrinthub(join(m.root, 'new'), '0.5.0')))).rejects.toThrow(
      `there is no hub data in ${DATA}`,
    )
    const empty = tempDir()
    dirs.push(empty)
    await expect(upgrade({ ...m.options(join(m.root, 'new')), root: empty })).rejects.toThrow(UpgradeError)
    expect(readFileSync(m.installed, 'utf8')).toBe(original)
    expect(m.actions).toEqual([])
  })

  test('a backup that fails stops the upgrade before the executable is touched', async () => {
    const m = await machine('0.4.0', { failingBackup: true })
    const original = readFileSync(m.installed, 'utf8')
    await expect(upgrade(m.options(fakePrinthub(join(m.root, 'new'), '0.5.0')))).rejects.toThrow(
      new RegExp(
        /^the backup failed, so nothing was changed: ".*\/usr\/local\/bin\/printhub backup /.source +
          /--data .*\/var\/lib\/printhub --out .*" failed \(exit 1\): printhub backup: No space left on device$/.source,
      ),
    )
    expect(readFileSync(m.installed, 'utf8')).toBe(original)
    expect(m.actions).toEqual([])
  })
})

describe('printhub upgrade, when the executable cannot be replaced', () => {
  test('says so after the backup, and the installed printhub stays as it was', async () => {
    const m = await machine()
    const original = readFileSync(m.installed, 'utf8')
    // Something in the way of the new executable's copy beside the installed one.
    mkdirSync(join(m.root, 'usr/local/bin/.printhub.new/in-the-way'), { recursive: true })
    await expect(upgrade(m.options(fakePrinthub(join(m.root, 'new'), '0.5.0')))).rejects.toThrow(
      `replacing ${BINARY_PATH} failed, so the installed printhub stays (still running): `,
    )
    expect(readFileSync(m.installed, 'utf8')).toBe(original)
    expect(m.actions).toEqual([])
  })
})

describe('the executable', () => {
  test('is replaced by rename while it runs (no ETXTBSY), the old one kept beside it', async () => {
    const dir = tempDir()
    dirs.push(dir)
    const installed = join(dir, 'printhub')
    const started = join(dir, 'started')
    writeFileSync(installed, `#!/bin/sh\necho > ${started}\nsleep 30\n`)
    chmodSync(installed, 0o755)
    const running = Bun.spawn([installed])
    try {
      // The shell opens the script by its name: only once it runs is it the old file that runs.
      await waitFor(() => existsSync(started))
      const next = fakePrinthub(join(dir, 'next'), '0.5.0')
      expect(replaceExecutable(next, installed)).toEqual({ keptOld: true })
      expect((await executableVersion(installed)).version).toBe('0.5.0')
      expect(readFileSync(join(dir, '.printhub.old'), 'utf8')).toContain('sleep 30')
      expect(statSync(installed).mode & 0o777).toBe(0o755)
      expect(running.exitCode).toBeNull()
    } finally {
      running.kill('SIGKILL')
    }
  })

  test('of another architecture, or not an executable at all, is named as such', () => {
    expect(architectureProblem(process.execPath)).toBeUndefined()
    expect(architectureProblem(process.execPath, process.arch === 'x64' ? 'arm64' : 'x64')).toBe(
      `${process.execPath} is built for ${process.arch}, and this machine is ` +
        `${process.arch === 'x64' ? 'arm64' : 'x64'}`,
    )
    const dir = tempDir()
    dirs.push(dir)
    writeFileSync(join(dir, 'text'), 'hello, this is no program')
    expect(architectureProblem(join(dir, 'text'))).toBe(`${join(dir, 'text')} is not a Linux executable`)
    expect(architectureProblem(join(dir, 'missing'))).toBe(`${join(dir, 'missing')} cannot be read (ENOENT)`)
  })

  test('the unit file says where the hub runs', () => {
    expect(
      serviceSettingsOf(systemdUnit({ binary: BINARY_PATH, dataDir: '/srv/hub data', host: '10.0.0.2', port: 9000 })),
    ).toEqual({ binary: BINARY_PATH, dataDir: '/srv/hub data', host: '10.0.0.2', port: 9000 })
    expect(serviceSettingsOf('[Service]\nExecStart=/bin/true\n')).toBeUndefined()
  })
})

describe('the command line', () => {
  test(
    'usage mistakes exit 2; a file that is no executable of this machine, or ' +
      'no installation, exit 1 with nothing changed',
    async () => {
      expect(await cli(['upgrade'])).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('expected one NEW_EXECUTABLE'),
      })
      expect(await cli(['upgrade', process.execPath, '--timeout', '0'])).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--timeout must be a whole number of seconds from 1 to 3600'),
      })
      const dir = tempDir()
      dirs.push(dir)
      writeFileSync(join(dir, 'notes.txt'), 'not a program')
      const refused = await cli(['upgrade', join(dir, 'notes.txt'), '--root', dir])
      if (process.getuid?.() !== 0) {
        expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('this needs root: run it with sudo') })
        return
      }
      expect(refused).toMatchObject({
        code: 1,
        stderr: `printhub upgrade: ${join(dir, 'notes.txt')} is not a Linux executable; nothing was changed\n`,
      })
      // A real executable of this machine (Bun itself), but nothing installed under the root.
      expect(await cli(['upgrade', process.execPath, '--root', dir])).toMatchObject({
        code: 1,
        stderr:
          `printhub upgrade: printhub is not installed here (${BINARY_PATH} is ` +
          `missing): install it with "sudo printhub install".\n`,
      })
      expect(listing(dir)).toEqual(['notes.txt'])
    },
  )
})
