// The installed executable: what a candidate is (a printhub for this machine, and which version),
// and replacing the installed one without ever writing into a running file. The new one is copied
// beside it (same directory, so same file system), flushed to disk and made executable, the old
// one is kept as `.printhub.old` (a hard link to the same file), and the new one is renamed over
// the installed name: a running hub keeps its file, the next start gets the new one, and a power
// cut leaves one or the other, never half of one.
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  linkSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { fsyncPath } from '../platform/durable-file.ts'
import { RUNTIME_OPTION_NAME, RUNTIME_OPTION_VALUE } from './files.ts'

export class ExecutableError extends Error {}

export interface ExecutableVersion {
  version: string
  commit: string
  /** The newest store schema it knows; absent from builds that did not say it. */
  schema?: number
  /**
   * The runtime options its service starts with (platform/jit.ts); absent from builds that did not say them, which want
   * none.
   */
  runtimeOptions?: Record<string, string>
}

function runtimeOptionsOf(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const entries = Object.entries(value)
  return entries.every(
    ([name, option]) =>
      RUNTIME_OPTION_NAME.test(name) && typeof option === 'string' && RUNTIME_OPTION_VALUE.test(option),
  )
    ? Object.fromEntries(entries)
    : undefined
}

/** ELF machine numbers of the architectures printhub is built for. */
const ELF_MACHINES: Record<string, number> = { x64: 62, arm64: 183 }

export const describeVersion = (v: ExecutableVersion): string =>
  `printhub ${v.version} (${v.commit}${v.schema === undefined ? '' : `, schema ${v.schema}`})`

/** Whether `file` is an ELF executable of `arch` (this machine's unless given); the problem, in words, if not. */
export function architectureProblem(file: string, arch: string = process.arch): string | undefined {
  const header = Buffer.alloc(20)
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (error) {
    return `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`
  }
  try {
    if (readSync(fd, header, 0, 20, 0) < 20 || header.readUInt32BE(0) !== 0x7f454c46)
      return `${file} is not a Linux executable`
  } finally {
    closeSync(fd)
  }
  const machine = header.readUInt16LE(18)
  const expected = ELF_MACHINES[arch]
  if (machine === expected) return undefined
  const found = Object.entries(ELF_MACHINES).find(([, number]) => number === machine)?.[0] ?? `ELF machine ${machine}`
  return `${file} is built for ${found}, and this machine is ${arch}`
}

/** Runs a command with a time limit; code null when it was stopped for taking too long. */
export async function run(
  argv: string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string; stdout: string }> {
  let child: ReturnType<typeof Bun.spawn>
  try {
    child = Bun.spawn(argv, {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    })
  } catch (error) {
    return { code: 127, output: (error as Error).message, stdout: '' }
  }
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    child.kill('SIGKILL')
  }, timeoutMs)
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout as ReadableStream).text(),
    new Response(child.stderr as ReadableStream).text(),
    child.exited,
  ])
  clearTimeout(timer)
  return { code: timedOut ? null : code, output: `${stdout}${stderr}`.trim(), stdout }
}

/** Runs `file version --json` (within `timeoutMs`) and reads which printhub it is. */
export async function executableVersion(file: string, timeoutMs = 10_000): Promise<ExecutableVersion> {
  const result = await run([file, 'version', '--json'], timeoutMs)
  if (result.code === null)
    throw new ExecutableError(`${file} did not answer "version --json" within ${timeoutMs / 1000} s`)
  if (result.code !== 0)
    throw new ExecutableError(
      `${file} is not a printhub executable: "version --json" exited ` +
        `${result.code}${result.output ? `: ${result.output.split('\n')[0]}` : ''}`,
    )
  let answer: Partial<ExecutableVersion> | undefined
  try {
    answer = JSON.parse(result.stdout) as Partial<ExecutableVersion>
  } catch {
    // Said below.
  }
  if (typeof answer?.version !== 'string' || typeof answer.commit !== 'string')
    throw new ExecutableError(
      `${file} is not a printhub executable: "version --json" printed ${JSON.stringify(result.stdout.slice(0, 80))}`,
    )
  const runtimeOptions = runtimeOptionsOf(answer.runtimeOptions)
  if (answer.runtimeOptions !== undefined && !runtimeOptions)
    throw new ExecutableError(
      `${file} asks for runtime options this printhub will not write into the ` +
        `service's unit: ${JSON.stringify(answer.runtimeOptions).slice(0, 120)}`,
    )
  return {
    version: answer.version,
    commit: answer.commit,
    ...(typeof answer.schema === 'number' ? { schema: answer.schema } : {}),
    ...(runtimeOptions ? { runtimeOptions } : {}),
  }
}

/** Whether two files hold the same bytes. */
export const sameContent = (a: string, b: string): boolean =>
  existsSync(a) && existsSync(b) && Bun.hash(readFileSync(a)) === Bun.hash(readFileSync(b))

/** Where the new executable is prepared and the old one kept, beside the installed one. */
export const besideOf = (installed: string) => ({
  next: join(dirname(installed), '.printhub.new'),
  old: join(dirname(installed), '.printhub.old'),
})

/**
 * Puts `source` at `installed` atomically, keeping the installed one as `.printhub.old` until
 * `dropOld` (or `putBackOld`). Never opens `installed` for writing (a running file: ETXTBSY).
 */
export function replaceExecutable(source: string, installed: string): { keptOld: boolean } {
  const { next, old } = besideOf(installed)
  rmSync(next, { force: true })
  try {
    copyFileSync(source, next)
    chmodSync(next, 0o755)
    fsyncPath(next)
  } catch (error) {
    // A full disk, say: no half-written copy is left beside the installed one.
    rmSync(next, { force: true })
    throw error
  }
  let keptOld = false
  if (existsSync(installed)) {
    rmSync(old, { force: true })
    try {
      linkSync(installed, old)
    } catch {
      copyFileSync(installed, old)
    }
    keptOld = true
  }
  renameSync(next, installed)
  fsyncPath(dirname(installed))
  return { keptOld }
}

/** Puts the kept `.printhub.old` back at `installed` (atomically); false when there is none. */
export function putBackOld(installed: string): boolean {
  const { old } = besideOf(installed)
  if (!existsSync(old)) return false
  renameSync(old, installed)
  fsyncPath(dirname(installed))
  return true
}

/** Forgets the kept old executable, once the new one runs. */
export function dropOld(installed: string): void {
  rmSync(besideOf(installed).old, { force: true })
}
