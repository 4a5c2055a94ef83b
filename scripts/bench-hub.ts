// The hub as a process under the bench, shared by its sections: spawning bun children, starting and
// stopping `printhub serve`, running CLI commands, data directories, the hub's RSS, and ending
// whatever the bench left running. Also the few small helpers (round, sleep, ms) every section uses.
import type { Subprocess } from 'bun'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KEY_JOBS_PER_MINUTE, KEY_MB_PER_MINUTE, MAX_OPEN_JOBS } from '../src/domain/settings.ts'
import { runtimeOptionPairs } from '../src/install/files.ts'
import { SERVICE_JIT_ENVIRONMENT } from '../src/platform/jit.ts'

export const ROOT = join(import.meta.dir, '..')

/** The bench's one API key submits as fast as the hub takes jobs: its rate limit at its maximum. */
export const UNLIMITED_KEY = {
  PRINTHUB_KEY_JOBS_PER_MINUTE: String(KEY_JOBS_PER_MINUTE.max),
  PRINTHUB_KEY_MB_PER_MINUTE: String(KEY_MB_PER_MINUTE.max),
}
const BUN = process.execPath
const HOST = '127.0.0.1'

const HUB_START_TIMEOUT_MS = 15_000
const HUB_STOP_TIMEOUT_MS = 10_000
/** How long the hub's built-in agent gets to report printers added while it runs (its catalog poll). */
export const AGENT_PICKUP_TIMEOUT_MS = 15_000

/**
 * Extra bun flags for the hub process, to see where its time goes, e.g.
 * PRINTHUB_BENCH_HUB_FLAGS='--cpu-prof-md --cpu-prof-dir=/tmp/prof' bun run bench delivery
 */
const HUB_BUN_FLAGS = (process.env.PRINTHUB_BENCH_HUB_FLAGS ?? '').split(/\s+/).filter(Boolean)

export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A latency for a report line: two decimals and the unit. */
export const ms = (value: number) => `${value.toFixed(2)} ms`

// ---- Processes and data directories -----------------------------------------------------------

const children = new Set<Subprocess>()
const dataDirs = new Set<string>()

/** Kills every child still running. Synchronous, so it also works from a signal handler. */
export function killChildren(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  children.clear()
}

/** Kills whatever a failed section left running (its hub, a load generator) and waits until it has exited. */
export async function endChildren(): Promise<void> {
  const left = [...children]
  for (const child of left) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await Promise.all(left.map((child) => child.exited))
}

/** Removes every data directory the bench made and has not removed yet. Synchronous. */
export function removeDataDirs(): void {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
  dataDirs.clear()
}

export function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'printhub-bench-'))
  dataDirs.add(dir)
  return dir
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
  dataDirs.delete(dir)
}

/** The installed service's JIT options, as the bench's header and record give them. */
export const SERVICE_JIT_TEXT = runtimeOptionPairs(SERVICE_JIT_ENVIRONMENT).join(' ')

/** Runs `bun ARGS` in the repository; the child is killed by killChildren() and endChildren(). */
export function spawn(args: string[], env?: Record<string, string>): Subprocess<'ignore', 'pipe', 'pipe'> {
  return track(
    Bun.spawn([BUN, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    }),
  )
}

function track<T extends Subprocess>(child: T): T {
  children.add(child)
  void child.exited.then(() => children.delete(child))
  return child
}

function timeout(ms: number, what: string): { promise: Promise<never>; cancel: () => void } {
  let timer: Timer | undefined
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)
  })
  return { promise, cancel: () => clearTimeout(timer) }
}

/**
 * `bun run bench --quick`: every section with smaller counts and shorter phases, for development;
 * its figures are marked quick and are not the ones the targets are judged on.
 */
export const QUICK = process.argv.includes('--quick')

/** `full` in a full run, `quick` in a quick one. */
export function sized<T>(full: T, quick: T): T {
  return QUICK ? quick : full
}

/** CPU time (user + system) a process has used so far, in milliseconds. */
export function cpuMs(pid: number): number {
  // Fields 14 and 15 of /proc/PID/stat, after the command name (which may hold spaces) in parentheses.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND
}
/** Linux's USER_HZ, the unit of /proc's CPU times (100 on every architecture printhub runs on). */
const CLOCK_TICKS_PER_SECOND = 100

/** Resident memory of a process, in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!match) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1]) / 1024
}

// ---- The hub ----------------------------------------------------------------------------------

export interface HubProcess {
  url: string
  pid: number
  stop(): Promise<void>
  /** kill -9, as a power cut or the OOM killer would; settles once it is gone. */
  kill(): Promise<void>
}

/**
 * Starts `printhub serve` and resolves once it listens. Its stdout (one log line per request) goes
 * to a file, as a service's goes to the journal: read through a pipe by this process, which is also
 * the busy load generator, a full pipe would stall the hub mid-request and charge it for our delay.
 */
export async function startHub(
  dir: string,
  extra: { args?: string[]; env?: Record<string, string>; port?: number } = {},
): Promise<HubProcess> {
  // In the API section every submission stays open (its printer is held offline), and half the
  // seeded jobs are unfinished too (counted by a trigger): lift the limit of unfinished jobs
  // (default 10,000) to its maximum, or submissions would turn into 429s.
  // One key submits every job here: lift its rate (default 1,200 jobs and 64 MB a minute) too.
  // Started as the installed service is: with its JIT options (platform/jit.ts).
  const env = {
    PRINTHUB_MAX_OPEN_JOBS: String(MAX_OPEN_JOBS.max),
    ...UNLIMITED_KEY,
    ...SERVICE_JIT_ENVIRONMENT,
    ...extra.env,
  }
  const logFile = join(dir, `hub-${Date.now()}.log`)
  const port = String(extra.port ?? 0)
  const args = [BUN, ...HUB_BUN_FLAGS, 'src/main.ts', 'serve', '--host', HOST, '--port', port, '--data', dir]
  args.push(...(extra.args ?? []))
  const child = track(
    Bun.spawn(args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdin: 'ignore',
      stdout: Bun.file(logFile),
      stderr: 'pipe',
    }),
  )
  const stderrTail: string[] = []
  const tail = () => [...readFileSync(logFile, 'utf8').split('\n').slice(-20), ...stderrTail].join('\n')
  void (async () => {
    const decoder = new TextDecoder()
    // Ends when the hub exits and closes the pipe.
    for await (const chunk of child.stderr)
      for (const line of decoder.decode(chunk, { stream: true }).split('\n'))
        if (stderrTail.push(line) > 20) stderrTail.shift()
  })()
  let waiting = true
  const listening = (async () => {
    // Until it says so, or the start has failed (it exited, or the time ran out).
    while (waiting) {
      const match = / listening on (http:\/\/[^\s,]+)/.exec(existsSync(logFile) ? readFileSync(logFile, 'utf8') : '')
      if (match) return match[1]!
      await Bun.sleep(5)
    }
    return ''
  })()

  const limit = timeout(HUB_START_TIMEOUT_MS, 'hub start')
  const url = await Promise.race([
    listening,
    child.exited.then((code) => Promise.reject(new Error(`hub exited with ${code} before listening:\n${tail()}`))),
    limit.promise,
  ]).finally(() => {
    waiting = false
    limit.cancel()
  })
  if (new URL(url).hostname !== HOST) throw new Error(`hub listens on ${url}, expected ${HOST}`)

  return {
    url,
    pid: child.pid,
    async kill() {
      child.kill('SIGKILL')
      await child.exited
    },
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      const limit = timeout(HUB_STOP_TIMEOUT_MS, 'hub stop')
      try {
        const code = await Promise.race([child.exited, limit.promise])
        if (code !== 0) throw new Error(`hub exited with ${code} on SIGTERM:\n${tail()}`)
      } catch (error) {
        child.kill('SIGKILL')
        throw error
      } finally {
        limit.cancel()
      }
    },
  }
}

export interface Project {
  projectId: string
  apiKey: string
  printerId: string
}

/** Runs one `printhub` CLI command to its end and returns its stdout. */
export async function cli(args: string[]): Promise<string> {
  const child = spawn(['src/main.ts', ...args])
  const what = `printhub ${args.slice(0, 2).join(' ')}`
  const limit = timeout(HUB_START_TIMEOUT_MS, what)
  const [stdout, stderr, code] = await Promise.race([
    Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]),
    limit.promise,
  ]).finally(limit.cancel)
  if (code !== 0) throw new Error(`${what} exited with ${code}: ${stderr}`)
  return stdout
}

/** `printhub init --json`: the machine-readable way to get the project and its only key. */
export async function initDataDir(dir: string): Promise<Project> {
  const stdout = await cli(['init', '--data', dir, '--json'])
  const result = JSON.parse(stdout) as Partial<Project> & { created: boolean }
  if (!result.created || !result.projectId || !result.apiKey || !result.printerId)
    throw new Error(`unexpected init output: ${stdout}`)
  return { projectId: result.projectId, apiKey: result.apiKey, printerId: result.printerId }
}

/** Waits until the running hub's built-in agent reports every one of `printerIds` (its catalog poll). */
export async function waitForAgentPrinters(dir: string, printerIds: readonly string[]): Promise<number> {
  const startedAt = performance.now()
  for (;;) {
    const reported = new Set(
      (JSON.parse(await cli(['printers', 'list', '--agents', '--data', dir, '--json'])) as { printerId: string }[]).map(
        (p) => p.printerId,
      ),
    )
    if (printerIds.every((id) => reported.has(id))) return performance.now() - startedAt
    if (performance.now() - startedAt > AGENT_PICKUP_TIMEOUT_MS)
      throw new Error(`the built-in agent did not report its new printers within ${AGENT_PICKUP_TIMEOUT_MS} ms`)
    await sleep(200)
  }
}

/**
 * Posts `count` small tickets to the project's demo printer, `perSecond` a second on a steady
 * clock, their idempotency keys starting with `keyPrefix`; when each was submitted
 * (performance.now()), by job ID.
 */
export async function submitAtRate(
  url: string,
  project: Project,
  { count, perSecond, keyPrefix }: { count: number; perSecond: number; keyPrefix: string },
): Promise<Map<string, number>> {
  const submitted = new Map<string, number>()
  const started = performance.now()
  for (let i = 0; i < count; i++) {
    await sleep(Math.max(0, started + (i * 1000) / perSecond - performance.now()))
    const at = performance.now()
    const response = await fetch(`${url}/v1/projects/${project.projectId}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        printerId: 'demo',
        idempotencyKey: `${keyPrefix}-${i}`,
        document: { width: 80, sections: [{ type: 'text', value: `ticket ${i}` }, { type: 'cut' }] },
      }),
    })
    if (response.status !== 202) throw new Error(`a submission answered ${response.status}`)
    submitted.set(((await response.json()) as { job: { id: string } }).job.id, at)
  }
  return submitted
}

/**
 * Runs a yardstick script (it prints its port, then serves until killed) while `measure` loads it
 * at http://127.0.0.1:PORT/ (told the process ID, for its CPU time); stops it after.
 */
export async function withYardstick<T>(
  args: string[],
  what: string,
  measure: (url: string, pid: number) => Promise<T>,
): Promise<T> {
  // With the hub's JIT options, as the hub it is measured against.
  const server = spawn(args, { ...SERVICE_JIT_ENVIRONMENT })
  try {
    const reader = server.stdout.getReader()
    const first = await reader.read()
    reader.releaseLock()
    const port = Number(new TextDecoder().decode(first.value).trim())
    if (!Number.isInteger(port) || port <= 0)
      throw new Error(`the ${what} yardstick did not start: ${await new Response(server.stderr).text()}`)
    return await measure(`http://127.0.0.1:${port}/`, server.pid)
  } finally {
    server.kill()
    await server.exited
  }
}
