// `printhub install` and `uninstall` of the compiled executable into a throwaway root. This machine
// runs no systemd and its users must not change, so the system commands (getent, useradd,
// usermod, userdel, chown, udevadm, systemctl) are small scripts first on PATH that record their
// arguments and keep the service user's existence in a file. Files, the executable and the data
// directory are real.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { binaryPath, build } from '../../scripts/build.ts'
import { BINARY_PATH, systemdUnit, UDEV_RULE_PATH, udevRule, UNIT_PATH } from '../../src/install/files.ts'
import { cli } from '../support/cli.ts'

let sandbox: string
let root: string
let stubs: string
let log: string
let userFile: string
const DATA = '/var/lib/printhub'

const STUBS: Record<string, string> = {
  getent: '[ "$1 $2" = "passwd printhub" ] && [ -e "$STUB_USER" ] && exit 0; exit 2',
  useradd: 'touch "$STUB_USER"',
  usermod: 'true',
  userdel: 'rm -f "$STUB_USER"',
  chown: 'true',
  udevadm: 'true',
  systemctl: 'true',
}

beforeAll(async () => {
  await build(['x64'])
  sandbox = mkdtempSync(join(tmpdir(), 'printhub-install-'))
  root = join(sandbox, 'root')
  stubs = join(sandbox, 'bin')
  log = join(sandbox, 'commands.log')
  userFile = join(sandbox, 'user-exists')
  mkdirSync(stubs)
  for (const [name, body] of Object.entries(STUBS)) {
    writeFileSync(join(stubs, name), `#!/bin/sh\necho "${name} $*" >> "$STUB_LOG"\n${body}\n`)
    chmodSync(join(stubs, name), 0o755)
  }
})
afterAll(() => rmSync(sandbox, { recursive: true, force: true }))

/** Runs the compiled executable with the stubs first on PATH; returns its output and the commands it ran. */
function printhub(args: string[]): { code: number; stdout: string; stderr: string; commands: string[] } {
  writeFileSync(log, '')
  const result = Bun.spawnSync([binaryPath('x64'), ...args], {
    cwd: sandbox,
    env: { PATH: `${stubs}:/usr/bin:/bin`, STUB_LOG: log, STUB_USER: userFile },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const commands = readFileSync(log, 'utf8').split('\n').filter(Boolean)
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString(), commands }
}

const inRoot = (path: string) => join(root, path)

describe('printhub install and uninstall', () => {
  test(
    'install: the user, the executable, the data with a first key, the unit, ' + 'the udev rule, the service started',
    () => {
      const result = printhub(['install', '--root', root, '--port', '18081'])
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(/printhub is installed and running: http:\/\/[0-9.]+:18081/)
      expect(result.stdout).toMatch(/Project: prj_[0-9a-f]+/)
      expect(result.stdout).toMatch(/API key \(shown only now; keep it secret\): phk_/)
      expect(result.commands).toEqual([
        'getent passwd printhub',
        `useradd --system --user-group --groups dialout,lp --home-dir ${DATA} ` +
          `--no-create-home --shell /usr/sbin/nologin printhub`,
        `chown -R printhub:printhub ${inRoot(DATA)}`,
        'udevadm control --reload-rules',
        'udevadm trigger --action=add --subsystem-match=usbmisc --subsystem-match=usb',
        'systemctl daemon-reload',
        'systemctl enable printhub.service',
        'systemctl restart printhub.service',
      ])
      expect(readFileSync(inRoot(BINARY_PATH)).equals(readFileSync(binaryPath('x64')))).toBe(true)
      expect(statSync(inRoot(BINARY_PATH)).mode & 0o777).toBe(0o755)
      expect(readFileSync(inRoot(UNIT_PATH), 'utf8')).toBe(
        systemdUnit({ binary: BINARY_PATH, dataDir: DATA, host: '0.0.0.0', port: 18081 }),
      )
      expect(readFileSync(inRoot(UNIT_PATH), 'utf8')).toContain(
        'ExecStart=/usr/local/bin/printhub serve --host 0.0.0.0 --port 18081 --data /var/lib/printhub',
      )
      expect(readFileSync(inRoot(UDEV_RULE_PATH), 'utf8')).toBe(udevRule())
      expect(existsSync(join(inRoot(DATA), 'printhub.db'))).toBe(true)
    },
  )

  test('install again: the same user and data (no second key), the new port, the service restarted', async () => {
    const result = printhub(['install', '--root', root, '--port', '18082'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('The data directory was set up before')
    expect(result.stdout).not.toContain('shown only now')
    expect(result.commands.slice(0, 2)).toEqual([
      'getent passwd printhub',
      'usermod --append --groups dialout,lp printhub',
    ])
    expect(result.commands.at(-1)).toBe('systemctl restart printhub.service')
    expect(readFileSync(inRoot(UNIT_PATH), 'utf8')).toContain('--port 18082')
    const projects = await cli(['projects', 'list', '--data', inRoot(DATA), '--json'])
    expect(JSON.parse(projects.stdout)).toHaveLength(1)
  })

  test('uninstall keeps the data; again, it has nothing left to do; --purge removes the data too', () => {
    const first = printhub(['uninstall', '--root', root])
    expect(first.code).toBe(0)
    expect(first.stdout).toContain(`Its data stays in ${DATA}`)
    expect(first.commands).toEqual([
      'systemctl disable --now printhub.service',
      'systemctl daemon-reload',
      'udevadm control --reload-rules',
      'getent passwd printhub',
      'userdel printhub',
    ])
    for (const path of [UNIT_PATH, UDEV_RULE_PATH, BINARY_PATH]) expect(existsSync(inRoot(path))).toBe(false)
    expect(existsSync(join(inRoot(DATA), 'printhub.db'))).toBe(true)

    const again = printhub(['uninstall', '--root', root])
    expect(again.code).toBe(0)
    expect(again.commands).toEqual(['getent passwd printhub'])

    expect(printhub(['install', '--root', root]).code).toBe(0)
    const purge = printhub(['uninstall', '--root', root, '--purge'])
    expect(purge.code).toBe(0)
    expect(purge.stdout).toContain(`with its data in ${DATA}`)
    expect(existsSync(inRoot(DATA))).toBe(false)
  })

  test('a failing system command stops the install and says which', () => {
    writeFileSync(
      join(stubs, 'systemctl'),
      '#!/bin/sh\necho "systemctl $*" >> "$STUB_LOG"\necho "Failed to connect to bus" >&2\nexit 1\n',
    )
    try {
      const result = printhub(['install', '--root', root])
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('"systemctl daemon-reload" failed (exit 1): Failed to connect to bus')
    } finally {
      writeFileSync(join(stubs, 'systemctl'), `#!/bin/sh\necho "systemctl $*" >> "$STUB_LOG"\ntrue\n`)
    }
  })

  test('from the sources it refuses before touching anything: only the compiled executable is installed', async () => {
    // The stubs are first on PATH here too: had it gone on, the log would show it.
    writeFileSync(log, '')
    for (const command of ['install', 'uninstall']) {
      const result = await cli([command, '--root', join(sandbox, 'elsewhere')], {
        PATH: `${stubs}:${process.env.PATH}`,
        STUB_LOG: log,
        STUB_USER: userFile,
      })
      expect(result.code).toBe(1)
      expect(result.stderr).toContain('work on the compiled executable, not the sources')
    }
    expect(readFileSync(log, 'utf8')).toBe('')
    expect(existsSync(join(sandbox, 'elsewhere'))).toBe(false)
  })
})
