// `bun run build`: the printhub executables for 64-bit Linux on ARM (Raspberry Pi 3, 4, 5, Zero 2 W)
// and x86, with the pinned Bun, minified and with bytecode, the version and git commit stamped in.
// ES modules split into chunks: each command loads only its own modules (cli/main.ts), so the hub
// neither reads nor holds the installer, the emulator or the preview until they are used. The
// executable reads no `.env` or `bunfig.toml` from the directory it is started in: a file there
// must not set its environment or preload code into it (a technician runs it as root).
// Everything the program needs at run time (migrations, printer profiles, the `usb` package's
// native part for the target) is imported, so it is inside the binary. Prints each binary's size and SHA-256 and writes dist/SHA256SUMS.
// `bun run build x64` (or `arm64`) builds one.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
const DIST = join(ROOT, 'dist')
const TARGETS = { arm64: 'bun-linux-arm64', x64: 'bun-linux-x64' } as const
type Arch = keyof typeof TARGETS

/** The commit of the checkout, marked when it has uncommitted changes. */
function gitCommit(): string {
  // Without git (a tarball, a minimal machine) the build goes on, stamped "unknown".
  if (!Bun.which('git')) return 'unknown'
  const run = (args: string[]) => Bun.spawnSync(['git', ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'ignore' })
  const head = run(['rev-parse', '--short=12', 'HEAD'])
  if (head.exitCode !== 0) return 'unknown'
  const dirty = run(['status', '--porcelain', '--untracked-files=no']).stdout.toString().trim() !== ''
  return `${head.stdout.toString().trim()}${dirty ? '-dirty' : ''}`
}

export function binaryPath(arch: Arch): string {
  return join(DIST, `printhub-linux-${arch}`)
}

/**
 * The `usb` package's native part for `arch`: npm installs only the one of the machine it runs on,
 * so the other is fetched from the registry (at the version `usb` pins) to be embedded.
 */
function ensureUsbBinding(arch: Arch): void {
  const name = `@node-usb/usb-linux-${arch}-gnu`
  const dir = join(ROOT, 'node_modules', name)
  if (existsSync(join(dir, 'package.json'))) return
  const version = (JSON.parse(readFileSync(join(ROOT, 'node_modules/usb/package.json'), 'utf8')) as { optionalDependencies: Record<string, string> }).optionalDependencies[name]
  if (!version) throw new Error(`usb does not name ${name}`)
  const work = mkdtempSync(join(tmpdir(), 'printhub-usb-'))
  try {
    const pack = Bun.spawnSync(['npm', 'pack', `${name}@${version}`, '--silent'], { cwd: work, stdout: 'pipe', stderr: 'pipe' })
    if (pack.exitCode !== 0) throw new Error(`npm pack ${name}@${version} failed: ${pack.stderr.toString()}`)
    mkdirSync(dir, { recursive: true })
    const untar = Bun.spawnSync(['tar', '-xzf', join(work, pack.stdout.toString().trim().split('\n').pop()!), '-C', dir, '--strip-components=1'], { stderr: 'pipe' })
    if (untar.exitCode !== 0) throw new Error(`unpacking ${name} failed: ${untar.stderr.toString()}`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/**
 * The worker threads' modules, compiled into the executable beside main.ts; at run time they are
 * found under /$bunfs/root/ by their path below src/ (render/off-thread.ts, services/receipt-image.ts).
 */
export const WORKER_ENTRIES = ['src/render/worker.ts', 'src/services/receipt-worker.ts'] as const

export async function build(arches: readonly Arch[] = ['arm64', 'x64']): Promise<string[]> {
  mkdirSync(DIST, { recursive: true })
  const commit = gitCommit()
  const lines: string[] = []
  for (const arch of arches) {
    ensureUsbBinding(arch)
    const outfile = binaryPath(arch)
    const result = Bun.spawnSync(
      [process.execPath, 'build', '--compile', '--minify', '--bytecode', '--format=esm', '--splitting', '--no-compile-autoload-dotenv', '--no-compile-autoload-bunfig', `--target=${TARGETS[arch]}`, `--define=PRINTHUB_BUILD_COMMIT=${JSON.stringify(commit)}`, '--outfile', outfile, join(ROOT, 'src/main.ts'), ...WORKER_ENTRIES.map((entry) => join(ROOT, entry))],
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
