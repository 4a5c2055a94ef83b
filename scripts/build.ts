// `bun run build`: the printhub executables for 64-bit Linux on ARM (Raspberry Pi 3, 4, 5, Zero 2 W)
// and x86, with the pinned Bun, minified and with bytecode, the version and git commit stamped in.
// Everything the program needs at run time (migrations, printer profiles) is imported, so it is
// inside the binary. Prints each binary's size and SHA-256 and writes dist/SHA256SUMS.
// `bun run build x64` (or `arm64`) builds one.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const DIST = join(ROOT, 'dist')
const TARGETS = { arm64: 'bun-linux-arm64', x64: 'bun-linux-x64' } as const
type Arch = keyof typeof TARGETS

/** The commit of the checkout, marked when it has uncommitted changes. */
function gitCommit(): string {
  const run = (args: string[]) => Bun.spawnSync(['git', ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'ignore' })
  const head = run(['rev-parse', '--short=12', 'HEAD'])
  if (head.exitCode !== 0) return 'unknown'
  const dirty = run(['status', '--porcelain', '--untracked-files=no']).stdout.toString().trim() !== ''
  return `${head.stdout.toString().trim()}${dirty ? '-dirty' : ''}`
}

export function binaryPath(arch: Arch): string {
  return join(DIST, `printhub-linux-${arch}`)
}

export async function build(arches: readonly Arch[] = ['arm64', 'x64']): Promise<string[]> {
  mkdirSync(DIST, { recursive: true })
  const commit = gitCommit()
  const lines: string[] = []
  for (const arch of arches) {
    const outfile = binaryPath(arch)
    const result = Bun.spawnSync(
      [process.execPath, 'build', '--compile', '--minify', '--bytecode', `--target=${TARGETS[arch]}`, `--define=PRINTHUB_BUILD_COMMIT=${JSON.stringify(commit)}`, '--outfile', outfile, join(ROOT, 'src/main.ts')],
      { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' },
    )
    if (result.exitCode !== 0) throw new Error(`building ${basename(outfile)} failed:\n${result.stderr.toString()}${result.stdout.toString()}`)
    const sha256 = createHash('sha256').update(readFileSync(outfile)).digest('hex')
    lines.push(`${sha256}  ${basename(outfile)}`)
    console.log(`${basename(outfile)}  ${(statSync(outfile).size / 1024 / 1024).toFixed(1)} MiB  sha256 ${sha256}  (commit ${commit})`)
  }
  writeFileSync(join(DIST, 'SHA256SUMS'), `${lines.join('\n')}\n`)
  return lines
}

if (import.meta.main) {
  const asked = process.argv.slice(2)
  for (const arch of asked) if (!(arch in TARGETS)) throw new Error(`unknown target "${arch}"; the targets are ${Object.keys(TARGETS).join(', ')}`)
  await build(asked.length > 0 ? (asked as Arch[]) : undefined)
}
