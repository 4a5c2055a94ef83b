// `bun run build`: the printhub executables for 64-bit Linux on ARM (Raspberry Pi 3, 4, 5, Zero 2 W) and x86, with the
// pinned Bun, minified and with bytecode, the version and git commit stamped in. ES modules split into chunks: each
// command loads only its own modules (cli/main.ts), so the hub neither reads nor holds the installer, the emulator or
// the preview until they are used. The executable reads no `.env` or `bunfig.toml` from the directory it is started in:
// a file there must not set its environment or preload code into it (a technician runs it as root). Everything the
// program needs at run time (migrations, printer profiles, the `usb` package's native part for the target) is imported,
// so it is inside the binary. Prints each binary's size and SHA-256 and writes dist/SHA256SUMS. `bun run build x64` (or
// `arm64`) builds one. Start-up and idle memory (docs/performance.md): JavaScriptCore's tier-up thresholds are raised
// while the program starts (STARTUP_JIT_POLICY; serve sets the normal policy with its first work, agent once it runs:
// platform/jit.ts), so no machine code is kept for code that runs once; and the bytecode is laid out by a profile
// recorded on the spot from this machine's executable starting `serve` and answering /health (one profile serves every
// target), so the parts a started hub uses sit together at the front of the file and the rest is never read from disk.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { freePort } from './free-port.ts'

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
  const version = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules/usb/package.json'), 'utf8')) as {
      optionalDependencies: Record<string, string>
    }
  ).optionalDependencies[name]
  if (!version) throw new Error(`usb does not name ${name}`)
  const work = mkdtempSync(join(tmpdir(), 'printhub-usb-'))
  try {
    const pack = Bun.spawnSync(['npm', 'pack', `${name}@${version}`, '--silent'], {
      cwd: work,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    if (pack.exitCode !== 0) throw new Error(`npm pack ${name}@${version} failed: ${pack.stderr.toString()}`)
    mkdirSync(dir, { recursive: true })
    const untar = Bun.spawnSync(
      ['tar', '-xzf', join(work, pack.stdout.toString().trim().split('\n').pop()!), '-C', dir, '--strip-components=1'],
      { stderr: 'pipe' },
    )
    if (untar.exitCode !== 0) throw new Error(`unpacking ${name} failed: ${untar.stderr.toString()}`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/**
 * The worker threads' modules, compiled into the executable beside main.ts; at run time they are
 * found under /$bunfs/root/ by their path below src/ (render/off-thread.ts, workers/receipt-images.ts).
 */
export const WORKER_ENTRIES = ['src/render/worker.ts', 'src/workers/receipt-thread.ts'] as const

/** JavaScriptCore's tier-up thresholds, times this, until a long-running command is up (platform/jit.ts). */
export const STARTUP_JIT_POLICY = 32

/** The flags every executable is compiled with: the hub's, and the bench's yardstick (scripts/bench-binary.ts). */
export const COMPILE_FLAGS = [
  '--compile',
  '--minify',
  '--bytecode',
  '--format=esm',
  '--no-compile-autoload-dotenv',
  '--no-compile-autoload-bunfig',
  `--compile-jit-policy=${STARTUP_JIT_POLICY}`,
  `--define=PRINTHUB_STARTUP_JIT_POLICY=${STARTUP_JIT_POLICY}`,
] as const

/** Runs `bun build` with `args`; throws with its output when it fails. */
export function compile(args: readonly string[], what: string): void {
  const result = Bun.spawnSync([process.execPath, 'build', ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  if (result.exitCode !== 0)
    throw new Error(`building ${what} failed:\n${result.stderr.toString()}${result.stdout.toString()}`)
}

/**
 * Records which functions `binary` runs while it starts as `command(port)` and answers GET /health
 * (BUN_BYTECODE_ORDER_OUT, written when it stops on SIGTERM): the profile of the bytecode layout.
 */
export async function recordBytecodeOrder(
  binary: string,
  command: (port: number) => string[],
  orderFile: string,
): Promise<void> {
  const port = freePort()
  const child = Bun.spawn([binary, ...command(port)], {
    env: { PATH: process.env.PATH ?? '', BUN_BYTECODE_ORDER_OUT: orderFile },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  try {
    const deadline = performance.now() + 30_000
    for (;;) {
      const answered = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1_000) }).then(
        (response) => response.status === 200,
        () => false,
      )
      if (answered) break
      if (child.exitCode !== null)
        throw new Error(
          `${basename(binary)} exited with ${child.exitCode} while its bytecode ` +
            `order was recorded: ${await new Response(child.stderr).text()}`,
        )
      if (performance.now() > deadline)
        throw new Error(`${basename(binary)} did not answer within 30 s while its bytecode order was recorded`)
      await Bun.sleep(5)
    }
    // A moment of idling: the timers of a started program run once.
    await Bun.sleep(1_000)
  } finally {
    child.kill('SIGTERM')
    await child.exited
  }
  if (!existsSync(orderFile)) throw new Error(`${basename(binary)} wrote no bytecode order`)
}

/** This machine's target, when it is one the build makes. */
function hostArch(): Arch | undefined {
  return process.platform === 'linux' && (process.arch === 'x64' || process.arch === 'arm64') ? process.arch : undefined
}

function hubBuildArgs(arch: Arch, commit: string, outfile: string, orderFile?: string): string[] {
  return [
    ...COMPILE_FLAGS,
    '--splitting',
    `--target=${TARGETS[arch]}`,
    `--define=PRINTHUB_BUILD_COMMIT=${JSON.stringify(commit)}`,
    ...(orderFile ? [`--bytecode-order=${orderFile}`] : []),
    '--outfile',
    outfile,
    join(ROOT, 'src/main.ts'),
    ...WORKER_ENTRIES.map((entry) => join(ROOT, entry)),
  ]
}

/** The bytecode order of the hub, recorded from this machine's executable serving an initialised data directory. */
async function recordHubOrder(arch: Arch, commit: string, work: string): Promise<string> {
  ensureUsbBinding(arch)
  const binary = join(work, 'printhub-unordered')
  compile(hubBuildArgs(arch, commit, binary), 'the executable to record its bytecode order')
  const dataDir = join(work, 'data')
  const init = Bun.spawnSync([binary, 'init', '--data', dataDir], { stdout: 'ignore', stderr: 'pipe' })
  if (init.exitCode !== 0)
    throw new Error(`init failed while the bytecode order was recorded: ${init.stderr.toString()}`)
  const orderFile = join(work, 'serve.order')
  await recordBytecodeOrder(
    binary,
    (port) => ['serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir],
    orderFile,
  )
  return orderFile
}

/**
 * The hub's bytecode order, or undefined where none can be recorded: without an executable this
 * machine can run, or from a program that does not start (the layout is then the compiler's own:
 * the same program, slower to start and holding more).
 */
async function hubOrder(commit: string, work: string): Promise<string | undefined> {
  const host = hostArch()
  if (!host) return undefined
  try {
    return await recordHubOrder(host, commit, work)
  } catch (error) {
    console.warn(`built without a bytecode order: ${(error as Error).message}`)
    return undefined
  }
}

export async function build(arches: readonly Arch[] = ['arm64', 'x64']): Promise<string[]> {
  mkdirSync(DIST, { recursive: true })
  const commit = gitCommit()
  const lines: string[] = []
  const work = mkdtempSync(join(tmpdir(), 'printhub-build-'))
  try {
    const orderFile = await hubOrder(commit, work)
    for (const arch of arches) lines.push(buildOne(arch, commit, orderFile))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  writeFileSync(join(DIST, 'SHA256SUMS'), `${lines.join('\n')}\n`)
  return lines
}

/** Builds the executable for `arch`; its line of SHA256SUMS. */
function buildOne(arch: Arch, commit: string, orderFile: string | undefined): string {
  ensureUsbBinding(arch)
  const outfile = binaryPath(arch)
  compile(hubBuildArgs(arch, commit, outfile, orderFile), basename(outfile))
  const sha256 = createHash('sha256').update(readFileSync(outfile)).digest('hex')
  console.log(
    `${basename(outfile)}  ` +
      `${(statSync(outfile).size / 1024 / 1024).toFixed(1)} MiB  sha256 ` +
      `${sha256}  (commit ${commit})`,
  )
  return `${sha256}  ${basename(outfile)}`
}

if (import.meta.main) {
  const asked = process.argv.slice(2)
  for (const arch of asked)
    if (!(arch in TARGETS))
      throw new Error(`unknown target "${arch}"; the targets are ${Object.keys(TARGETS).join(', ')}`)
  await build(asked.length > 0 ? (asked as Arch[]) : undefined)
}
