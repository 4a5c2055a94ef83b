// What the test suite needs from Debian besides Node.js and npm, installed by `npm test` (its first
// step) when missing: zbar-tools (zbarimg scans the preview's QR codes and barcodes), chromium
// (the dashboard's browser tests drive it through playwright-core, which downloads no browser),
// debootstrap and systemd-container (the systemd tests boot a Debian root file system), postgresql
// (the store's tests on PostgreSQL run a server of their own: test/support/postgres.ts), fuse3,
// libfuse3-dev and a C compiler (the power-cut tests build and mount a file system: scripts/powercut.ts),
// libfaketime (the clock tests set the wall clock of the hub's process alone: test/support/faketime.ts).
// Only what is missing is installed, with apt-get, and only as root (as CI runs); otherwise it
// stops and names the command to run. `--dry-run` says what it would do and does nothing. The
// arm64 smoke test's qemu is not installed here: `npm run test:arm64` is separate (see .ci/run).
// It also fetches, once each, the Node.js binaries the suite runs (scripts/node-binary.ts): the
// oldest the client library supports, and the one its test suite runs under, whatever this
// machine's Node.js is.
import { accessSync, constants, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fetchNode, nodeBinary, nodePackageFor, OLDEST_NODE_VERSION, TEST_NODE_VERSION } from './node-binary.ts'

export interface Prerequisite {
  /** The Debian package that provides it. */
  package: string
  /** What the suite uses it for. */
  why: string
}

export const ZBAR: Prerequisite = {
  package: 'zbar-tools',
  why: "zbarimg, which scans the receipt preview's QR codes and barcodes (test/preview/zbar.test.ts)",
}
export const CHROMIUM: Prerequisite = {
  package: 'chromium',
  why: "the browser the dashboard's tests drive through playwright-core (test/dashboard/browser.test.ts)",
}
export const DEBOOTSTRAP: Prerequisite = {
  package: 'debootstrap',
  why: 'builds the Debian root file system the systemd tests boot (test/binary/systemd.test.ts)',
}
export const SYSTEMD_CONTAINER: Prerequisite = {
  package: 'systemd-container',
  why: 'systemd-nspawn, which boots that root file system with its own systemd (test/binary/systemd.test.ts)',
}

export const FUSE: Prerequisite = {
  package: 'fuse3',
  why: 'fusermount3, which mounts the file system the power-cut tests cut the power of (scripts/powercut.ts)',
}
export const FUSE_HEADERS: Prerequisite = {
  package: 'libfuse3-dev',
  why: 'the FUSE library that file system (scripts/powercut-fs.c) is built with',
}
export const C_COMPILER: Prerequisite = {
  package: 'gcc',
  why: 'cc, which builds that file system',
}

export const LIBFAKETIME: Prerequisite = {
  package: 'libfaketime',
  why: "libfaketime, with which the clock tests move the hub process's wall clock (test/support/faketime.ts)",
}

/** libfaketime's library as Debian installs it (`/usr/lib/<triplet>/faketime/libfaketime.so.1`), or null. */
export function libfaketimePath(root = '/usr/lib'): string | null {
  let folders: string[]
  try {
    folders = readdirSync(root)
  } catch {
    return null
  }
  for (const folder of folders) {
    const library = join(root, folder, 'faketime', 'libfaketime.so.1')
    if (existsSync(library)) return library
  }
  return null
}

export const POSTGRESQL: Prerequisite = {
  package: 'postgresql',
  why: 'initdb and pg_ctl, which start the PostgreSQL the store tests run on (test/support/postgres.ts)',
}

/** Where Debian keeps PostgreSQL's server programs: its newest version's bin directory with an initdb, or null. */
export function postgresBinDir(root = '/usr/lib/postgresql'): string | null {
  let versions: string[]
  try {
    versions = readdirSync(root).filter((name) => /^\d+$/.test(name))
  } catch {
    return null
  }
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) {
    const bin = join(root, version, 'bin')
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin
  }
  return null
}

/** What the decision looks at, so that it can be tested without touching the machine. */
export interface Machine {
  /** PostgreSQL's server programs' directory (postgresBinDir), or null. */
  postgresBin: string | null
  /** Whether the FUSE library's headers are installed (/usr/include/fuse3/fuse.h). */
  fuseHeaders: boolean
  /** Whether libfaketime's library is installed (libfaketimePath). */
  faketime: boolean
  /** The path of `command` on PATH, as `command -v` finds it, or null. */
  which(command: string): string | null
  isExecutable(path: string): boolean
  env: Record<string, string | undefined>
  root: boolean
}

export type Plan =
  | { kind: 'ready' }
  | { kind: 'install'; missing: Prerequisite[]; commands: string[][] }
  | { kind: 'stop'; message: string }

/** The packages to install: those whose program is missing. */
export function missingPrerequisites(machine: Machine): Prerequisite[] {
  const missing: Prerequisite[] = []
  if (!machine.which('zbarimg')) missing.push(ZBAR)
  // Another Chromium given with PRINTHUB_CHROMIUM (test/support/browser.ts) replaces Debian's.
  if (!machine.env.PRINTHUB_CHROMIUM && !machine.which('chromium')) missing.push(CHROMIUM)
  // Both live in /usr/sbin and /usr/bin, which a user's PATH may lack.
  if (!machine.which('debootstrap') && !machine.isExecutable('/usr/sbin/debootstrap')) missing.push(DEBOOTSTRAP)
  if (!machine.which('systemd-nspawn') && !machine.isExecutable('/usr/bin/systemd-nspawn'))
    missing.push(SYSTEMD_CONTAINER)
  if (!machine.postgresBin) missing.push(POSTGRESQL)
  if (!machine.which('fusermount3') && !machine.isExecutable('/usr/bin/fusermount3')) missing.push(FUSE)
  if (!machine.fuseHeaders) missing.push(FUSE_HEADERS)
  if (!machine.which('cc') && !machine.isExecutable('/usr/bin/cc')) missing.push(C_COMPILER)
  if (!machine.faketime) missing.push(LIBFAKETIME)
  return missing
}

export function installCommands(aptGet: string, missing: Prerequisite[]): string[][] {
  return [
    [aptGet, 'update', '-qq'],
    [aptGet, 'install', '-y', '-qq', '--no-install-recommends', ...missing.map((p) => p.package)],
  ]
}

/** apt-get, on PATH or where Debian keeps it. */
function aptGetOf(machine: Machine): string | null {
  if (machine.which('apt-get')) return 'apt-get'
  return machine.isExecutable('/usr/bin/apt-get') ? '/usr/bin/apt-get' : null
}

function list(missing: Prerequisite[]): string {
  return missing.map((p) => `  ${p.package}: ${p.why}`).join('\n')
}

export function plan(machine: Machine): Plan {
  const chromium = machine.env.PRINTHUB_CHROMIUM
  if (chromium && !machine.isExecutable(chromium)) {
    return {
      kind: 'stop',
      message:
        `npm test: PRINTHUB_CHROMIUM=${chromium} is not an executable file. Point ` +
        `it at a Chromium, or unset it to use Debian's chromium (installed ` +
        `when missing).`,
    }
  }
  const missing = missingPrerequisites(machine)
  if (missing.length === 0) return { kind: 'ready' }
  const packages = missing.map((p) => p.package).join(' ')
  const aptGet = aptGetOf(machine)
  if (!aptGet) {
    return {
      kind: 'stop',
      message:
        `npm test needs, and this machine lacks:\n${list(missing)}\nThere is no ` +
        `apt-get here: install the Debian packages' equivalents (${packages}) ` +
        `with this system's package manager.`,
    }
  }
  if (!machine.root) {
    return {
      kind: 'stop',
      message:
        `npm test needs these Debian packages, which are not ` +
        `installed:\n${list(missing)}\nInstalling them needs root. Run:\n  sudo ` +
        `apt-get install -y --no-install-recommends ${packages}\nthen npm ` +
        `test again.`,
    }
  }
  return { kind: 'install', missing, commands: installCommands(aptGet, missing) }
}

export function thisMachine(): Machine {
  return {
    postgresBin: postgresBinDir(),
    fuseHeaders: existsSync('/usr/include/fuse3/fuse.h'),
    faketime: libfaketimePath() !== null,
    which: (command) => Bun.which(command, { PATH: process.env.PATH ?? '' }),
    isExecutable: (path) => {
      try {
        accessSync(path, constants.X_OK)
        return true
      } catch {
        return false
      }
    },
    env: process.env,
    root: process.getuid?.() === 0,
  }
}

function main(dryRun: boolean): number {
  for (const version of [OLDEST_NODE_VERSION, TEST_NODE_VERSION]) {
    if (dryRun) {
      if (!existsSync(nodeBinary(version)))
        console.log(
          `would fetch: Node.js ${version} ` +
            `(${nodePackageFor(process.arch, version)} from the npm registry) into ` +
            `node_modules/.cache`,
        )
      continue
    }
    const failed = fetchNode(version)
    if (failed) {
      console.error(`npm test: fetching Node.js ${version} for the client library's tests: ${failed}`)
      return 1
    }
  }
  const machine = thisMachine()
  const decided = plan(machine)
  if (decided.kind === 'ready') {
    if (dryRun) console.log('npm test: everything it needs from Debian is installed; nothing to do.')
    return 0
  }
  if (decided.kind === 'stop') {
    console.error(decided.message)
    return 1
  }
  console.log(
    `npm test: installing from Debian what the test suite needs and this machine lacks:\n${list(decided.missing)}`,
  )
  for (const command of decided.commands) {
    console.log(`${dryRun ? 'would run' : 'running'}: DEBIAN_FRONTEND=noninteractive ${command.join(' ')}`)
    if (dryRun) continue
    const run = Bun.spawnSync(command, {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    if (run.exitCode !== 0) {
      console.error(
        `npm test: \`${command.join(' ')}\` failed (exit ${run.exitCode}); ` +
          `install ${decided.missing.map((p) => p.package).join(' ')} by hand, then ` +
          `npm test again.`,
      )
      return 1
    }
  }
  if (dryRun) return 0
  // Looked at again: what the machine had (files, programs) was read before the install.
  const still = missingPrerequisites(thisMachine())
  if (still.length > 0) {
    console.error(`npm test: still missing after the install:\n${list(still)}`)
    return 1
  }
  return 0
}

if (import.meta.main) process.exit(main(process.argv.includes('--dry-run')))
