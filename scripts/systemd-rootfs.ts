// The Debian 12 root file system the systemd tests boot with systemd-nspawn: built once with
// debootstrap (minbase, with systemd as init, udev and D-Bus) and cached outside the checkout, in
// /var/cache/printhub-test/ (or PRINTHUB_TEST_CACHE), so reruns take seconds. It is built into a
// temporary directory and renamed into place when complete, so an interrupted build is never
// taken for a finished one. The tests boot it read-only with a throwaway overlay
// (--volatile=overlay): a run leaves it as it was.
//
//   bun scripts/systemd-rootfs.ts        prints the root file system's path, building it if needed
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const SUITE = 'bookworm'
export const MIRROR = 'http://deb.debian.org/debian'
export const PACKAGES = ['systemd', 'systemd-sysv', 'udev', 'dbus']
/** Bumped when what goes into the root file system changes, so a stale cache is not used. */
const LAYOUT = 1
const BUILD_LIMIT_MS = 15 * 60_000

export const cacheDir = (): string => process.env.PRINTHUB_TEST_CACHE ?? '/var/cache/printhub-test'
export const rootfsPath = (): string => join(cacheDir(), `debian12-systemd-${LAYOUT}`)
const MARKER = '.printhub-rootfs'

export const debootstrapCommand = (target: string): string[] => [
  'debootstrap',
  '--variant=minbase',
  `--include=${PACKAGES.join(',')}`,
  SUITE,
  target,
  MIRROR,
]

/** The root file system, built when it is not in the cache yet. */
export function ensureRootfs(log: (line: string) => void = console.error): string {
  const dir = rootfsPath()
  const marker = join(dir, MARKER)
  if (existsSync(marker) && readFileSync(marker, 'utf8') === debootstrapCommand(dir).join(' ')) return dir
  if (process.getuid?.() !== 0)
    throw new Error(
      `building the test root file system needs root (debootstrap): run as ` +
        `root, or build it once with: sudo bun scripts/systemd-rootfs.ts`,
    )
  mkdirSync(cacheDir(), { recursive: true })
  const work = `${dir}.building-${process.pid}`
  rmSync(work, { recursive: true, force: true })
  rmSync(dir, { recursive: true, force: true })
  log(
    `building the Debian ${SUITE} root file system for the systemd tests ` +
      `(once; cached in ${dir}): ${debootstrapCommand(work).join(' ')}`,
  )
  const started = Date.now()
  const run = Bun.spawnSync(debootstrapCommand(work), {
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: BUILD_LIMIT_MS,
    env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` },
  })
  if (run.exitCode !== 0) {
    const output = `${run.stdout.toString()}${run.stderr.toString()}`.trim().split('\n').slice(-15).join('\n')
    rmSync(work, { recursive: true, force: true })
    throw new Error(
      `debootstrap failed (exit ${run.exitCode}${run.signalCode ? `, ${run.signalCode}` : ''}):\n${output}`,
    )
  }
  writeFileSync(join(work, MARKER), debootstrapCommand(dir).join(' '))
  renameSync(work, dir)
  log(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  return dir
}

if (import.meta.main) console.log(ensureRootfs())
