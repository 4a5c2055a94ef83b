// `printhub install` and `printhub uninstall`: the hub as a systemd service on a Raspberry Pi.
// Both are idempotent: each step looks at what is there first. `root` stages every file under
// another directory (a throwaway root for tests and image builders); the system commands
// (useradd, systemctl, udevadm, ...) are run as they are found on PATH.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { networkInterfaces } from 'node:os'
import { dirname, join } from 'node:path'
import { type InitResult, initialize } from '../services/init.ts'
import { Store } from '../store/store.ts'
import { BINARY_PATH, SERVICE_USER, systemdUnit, UDEV_RULE_PATH, udevRule, UNIT_PATH } from './files.ts'
import { dropOld, executableVersion, replaceExecutable, sameContent } from './executable.ts'
import { systemd } from './system.ts'
import { installation, preUpgradeBackup } from './upgrade.ts'

/** The installed hub when there is one with data; undefined for a first install. */
function installedHub(root: string): ReturnType<typeof installation> | undefined {
  try {
    return installation(root)
  } catch {
    return undefined
  }
}

export interface InstallOptions {
  dataDir: string
  host: string
  port: number
  /** Where the files go: `/` on a real machine. */
  root: string
  /** The compiled executable to install (this one). */
  executable: string
  maxOpenJobsPerProject: number
  out: (line: string) => void
}

export class InstallError extends Error {}

/** True inside a compiled executable, whose own files live in Bun's embedded file system. */
export const isCompiled = (): boolean => Bun.main.startsWith('/$bunfs/')

function command(argv: string[]): { code: number; output: string } {
  const result = Bun.spawnSync(argv, { stdout: 'pipe', stderr: 'pipe' })
  return { code: result.exitCode, output: `${result.stdout.toString()}${result.stderr.toString()}`.trim() }
}

/** Runs a command that must succeed. */
function must(argv: string[]): void {
  const { code, output } = command(argv)
  if (code !== 0) throw new InstallError(`"${argv.join(' ')}" failed (exit ${code})${output ? `: ${output}` : ''}`)
}

/** Where a running udev daemon listens; absent where none runs (a container). */
const UDEV_CONTROL = '/run/udev/control'

/**
 * Has udev read the rules again; false, said, where no udev daemon runs (a container, where
 * devices come from the host): the rule is in place for when one does.
 */
function reloadUdevRules(out: (line: string) => void): boolean {
  const { code, output } = command(['udevadm', 'control', '--reload-rules'])
  if (code === 0) return true
  if (existsSync(UDEV_CONTROL))
    throw new InstallError(`"udevadm control --reload-rules" failed (exit ${code})${output ? `: ${output}` : ''}`)
  out(`udev is not running here (no ${UDEV_CONTROL}; a container?): the USB printer rule takes effect where it runs`)
  return false
}

const userExists = () => command(['getent', 'passwd', SERVICE_USER]).code === 0
const staged = (root: string, path: string) => join(root, path)

/** The address people on the LAN reach the hub at. */
function lanAddress(host: string): string {
  if (host !== '0.0.0.0' && host !== '::') return host
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address
  }
  return '127.0.0.1'
}

export async function install(options: InstallOptions): Promise<void> {
  const { root, dataDir, out } = options
  // The service user, in the groups that open serial (dialout) and USB (lp) printers.
  if (userExists()) must(['usermod', '--append', '--groups', 'dialout,lp', SERVICE_USER])
  else
    must([
      'useradd',
      '--system',
      '--user-group',
      '--groups',
      'dialout,lp',
      '--home-dir',
      dataDir,
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      SERVICE_USER,
    ])

  // Installed before: the data backed up by the installed printhub first, then the executable
  // replaced by rename (never written into: it may be running).
  const binary = staged(root, BINARY_PATH)
  mkdirSync(dirname(binary), { recursive: true })
  if (!sameContent(binary, options.executable)) {
    const hub = existsSync(binary) && existsSync(staged(root, UNIT_PATH)) ? installedHub(root) : undefined
    if (hub) {
      out(`printhub is installed already: backing its data up before the executable is replaced`)
      await preUpgradeBackup({
        root,
        hub,
        previous: await executableVersion(binary).catch(() => undefined),
        service: systemd,
        out,
        now: () => new Date(),
      })
    }
    replaceExecutable(options.executable, binary)
    dropOld(binary)
  }

  // The data directory, initialised now so the first API key can be shown here, then the user's.
  const data = staged(root, dataDir)
  const store = Store.open({ dataDir: data, create: true, maxOpenJobsPerProject: options.maxOpenJobsPerProject })
  let init: InitResult
  try {
    init = await initialize(store, data)
  } finally {
    store.close()
  }
  must(['chown', '-R', `${SERVICE_USER}:${SERVICE_USER}`, data])

  for (const [path, content] of [
    [UNIT_PATH, systemdUnit({ binary: BINARY_PATH, dataDir, host: options.host, port: options.port })],
    [UDEV_RULE_PATH, udevRule()],
  ] as const) {
    mkdirSync(dirname(staged(root, path)), { recursive: true })
    writeFileSync(staged(root, path), content, { mode: 0o644 })
  }
  if (reloadUdevRules(out))
    must(['udevadm', 'trigger', '--action=add', '--subsystem-match=usbmisc', '--subsystem-match=usb'])
  must(['systemctl', 'daemon-reload'])
  must(['systemctl', 'enable', 'printhub.service'])
  // Restarted, not only started: a second install with another port must take effect.
  must(['systemctl', 'restart', 'printhub.service'])

  out(`printhub is installed and running: http://${lanAddress(options.host)}:${options.port}`)
  out(
    `Data in ${dataDir}; the service runs as the user ${SERVICE_USER} (groups ` +
      `dialout, lp). Logs: journalctl -u printhub`,
  )
  if (init.created) {
    out(`Project: ${init.projectId}`)
    out(`API key (shown only now; keep it secret): ${init.apiKey}`)
  } else {
    out(
      `The data directory was set up before (project ${init.projectId}); make a ` +
        `new API key with: printhub keys create --project ${init.projectId} ` +
        `--data ${dataDir}`,
    )
  }
}

export interface UninstallOptions {
  dataDir: string
  root: string
  /** Removes the data directory too: every job, key and printer. */
  purge: boolean
  out: (line: string) => void
}

export function uninstall({ dataDir, root, purge, out }: UninstallOptions): void {
  // Absent already is fine: uninstall twice does the same as once.
  if (existsSync(staged(root, UNIT_PATH))) {
    must(['systemctl', 'disable', '--now', 'printhub.service'])
    rmSync(staged(root, UNIT_PATH))
    must(['systemctl', 'daemon-reload'])
  }
  if (existsSync(staged(root, UDEV_RULE_PATH))) {
    rmSync(staged(root, UDEV_RULE_PATH))
    reloadUdevRules(out)
  }
  rmSync(staged(root, BINARY_PATH), { force: true })
  if (userExists()) must(['userdel', SERVICE_USER])
  if (purge) {
    rmSync(staged(root, dataDir), { recursive: true, force: true })
    out(`printhub is removed, with its data in ${dataDir}.`)
  } else {
    out(`printhub is removed. Its data stays in ${dataDir} (remove it too with --purge).`)
  }
}
