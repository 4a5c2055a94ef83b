// Runs the printhub CLI as its own process, as technicians and scripts do: from the sources, or
// the compiled executable named by PRINTHUB_EXECUTABLE (`npm run test:binary`).
import { join, resolve } from 'node:path'

export const ROOT = join(import.meta.dir, '..', '..')

/** The command line that starts printhub. */
export const PRINTHUB: readonly string[] = process.env.PRINTHUB_EXECUTABLE
  ? [resolve(ROOT, process.env.PRINTHUB_EXECUTABLE)]
  : [process.execPath, join(ROOT, 'src/main.ts')]

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs a CLI command; `stdin`, when given, is its standard input (a password, as a technician pipes one). */
export async function cli(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliResult> {
  const child = Bun.spawn([...PRINTHUB, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    ...(stdin === undefined ? {} : { stdin: new TextEncoder().encode(stdin) }),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

/** Runs a CLI command with --json and parses its output; fails the test on a non-zero exit. */
export async function cliJson<T = any>(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<T> {
  const result = await cli([...args, '--json'], env, stdin)
  if (result.code !== 0) throw new Error(`printhub ${args.join(' ')} exited ${result.code}: ${result.stderr}`)
  return JSON.parse(result.stdout) as T
}
