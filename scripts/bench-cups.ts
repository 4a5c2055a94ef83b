// CUPS, the delivery section's reference: set-up of a raw queue to a TCP sink (as the issue's
// reference does), and the same steady-rate latency and burst throughput runs through `lp`, measured
// in the same run when CUPS is installed. The bench never installs CUPS.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { render, targetFor } from '../src/render/render.ts'
import { round, sleep } from './bench-hub.ts'
import {
  atTheSink,
  benchDocument,
  type BurstResult,
  type BurstSpec,
  connectionsOf,
  type SteadyResult,
  type SteadySpec,
  steady,
  type Submitted,
  TcpSink,
} from './bench-sink.ts'

// ---- Set-up -----------------------------------------------------------------------------------

export interface CupsQueue {
  queue: string
  sink: TcpSink
  version: string
  /** True when this bench started cupsd (and stops it again). */
  startedScheduler: boolean
}

export type CupsSetup = { ok: true; cups: CupsQueue } | { ok: false; reason: string }

const CUPS_START_TIMEOUT_MS = 10_000
/** One lp submission that takes longer is killed (and counted as an error). */
const LP_TIMEOUT_MS = 30_000
let cupsChild: ReturnType<typeof Bun.spawn> | undefined
let cupsQueue: string | undefined
let lpadminPath: string | undefined

function which(name: string): string | undefined {
  return Bun.which(name) ?? Bun.which(name, { PATH: '/usr/sbin:/sbin:/usr/bin:/bin' }) ?? undefined
}

function run(argv: string[]): { code: number; out: string } {
  const result = Bun.spawnSync(argv, {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, LC_ALL: 'C' },
  })
  return { code: result.exitCode ?? -1, out: `${result.stdout.toString()}${result.stderr.toString()}`.trim() }
}

const schedulerRunning = (lpstat: string) => /scheduler is running/.test(run([lpstat, '-r']).out)

/**
 * Finds CUPS and makes a raw queue to a fresh sink, as the reference does. Starts cupsd
 * (in the foreground, as a child of this process) only when it is installed and not running and
 * this process may (root); never installs anything.
 */
export async function setUpCups(): Promise<CupsSetup> {
  const lp = which('lp')
  const lpstat = which('lpstat')
  const lpadmin = which('lpadmin')
  const cupsd = which('cupsd')
  if (!lp || !lpstat || !lpadmin) return { ok: false, reason: 'not installed (apt-get install cups)' }
  let startedScheduler = false
  if (!schedulerRunning(lpstat)) {
    if (!cupsd) return { ok: false, reason: 'cupsd is not installed (apt-get install cups-daemon)' }
    if (process.getuid?.() !== 0) return { ok: false, reason: 'cupsd is not running, and only root may start it here' }
    cupsChild = Bun.spawn([cupsd, '-f'], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' })
    startedScheduler = true
    const deadline = performance.now() + CUPS_START_TIMEOUT_MS
    while (!schedulerRunning(lpstat)) {
      if (performance.now() > deadline || cupsChild.exitCode !== null) {
        stopCups()
        return { ok: false, reason: 'cupsd did not start' }
      }
      await sleep(100)
    }
  }
  const sink = new TcpSink('cups')
  const queue = `printhub-bench-${process.pid}`
  lpadminPath = lpadmin
  // -m raw: CUPS 2.4 still makes a raw queue and warns that raw queues are deprecated.
  const made = run([lpadmin, '-p', queue, '-E', '-v', `socket://127.0.0.1:${sink.port}`, '-m', 'raw'])
  if (made.code !== 0) {
    sink.stop()
    stopCups()
    return { ok: false, reason: `lpadmin failed: ${made.out}` }
  }
  cupsQueue = queue
  const version = /CUPS v?([\d.]+)/i.exec(run([lpstat, '-H']).out)?.[1] ?? cupsVersion()
  return { ok: true, cups: { queue, sink, version, startedScheduler } }
}

function cupsVersion(): string {
  const dpkg = which('dpkg-query')
  if (!dpkg) return 'unknown'
  const result = run([dpkg, '-W', '-f', '${Version}', 'cups-daemon'])
  return result.code === 0 ? result.out : 'unknown'
}

/** Removes the queue and stops a cupsd this bench started. Synchronous: safe in a signal handler. */
export function stopCups(): void {
  if (cupsQueue && lpadminPath) run([lpadminPath, '-x', cupsQueue])
  cupsQueue = undefined
  if (cupsChild && cupsChild.exitCode === null) cupsChild.kill('SIGTERM')
  cupsChild = undefined
}

// ---- Runs through lp --------------------------------------------------------------------------

/** The ESC/POS bytes the hub sends for that document (what the CUPS queue is given). */
export function renderedDocument(tag: string, index: number): Uint8Array {
  return render(benchDocument(tag, index), targetFor('generic-80mm', 80))
}

function writeJobFiles(dir: string, tag: string, count: number): string[] {
  mkdirSync(dir, { recursive: true })
  return Array.from({ length: count }, (_, i) => {
    const file = join(dir, `${tag}-${i}.bin`)
    writeFileSync(file, renderedDocument(tag, i))
    return file
  })
}

async function lpSubmit(queue: string, file: string): Promise<Omit<Submitted, 'sentAt'>> {
  const child = Bun.spawn(['lp', '-d', queue, '-o', 'raw', file], {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, LC_ALL: 'C' },
  })
  const killer = setTimeout(() => child.kill('SIGKILL'), LP_TIMEOUT_MS)
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]).finally(() => clearTimeout(killer))
  return code === 0
    ? { status: 0 }
    : { status: -1, error: `lp exited with ${code}: ${(err || out).trim().slice(0, 200)}` }
}

/** CUPS: `lp -d QUEUE -o raw FILE` at a steady rate, each timed from starting lp to the first byte. */
export async function cupsSteady(cups: CupsQueue, dir: string, spec: SteadySpec): Promise<SteadyResult> {
  const files = writeJobFiles(dir, spec.tag, spec.warmupJobs + spec.jobs)
  const run = await steady(spec, cups.sink, (i) => lpSubmit(cups.queue, files[i]!))
  return atTheSink(spec, run).result
}

/**
 * CUPS: `jobs` lp submissions, `concurrency` at once, to one queue; jobs per second until the sink
 * had every job (CUPS marks a job completed after that, so this is CUPS's best case).
 */
export async function cupsBurst(cups: CupsQueue, dir: string, spec: BurstSpec): Promise<BurstResult> {
  const files = writeJobFiles(dir, spec.tag, spec.jobs)
  cups.sink.reset()
  const submitted: Submitted[] = new Array(spec.jobs)
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: spec.concurrency }, async () => {
      for (let i = next++; i < spec.jobs; i = next++) {
        const sentAt = performance.now()
        submitted[i] = { sentAt, ...(await lpSubmit(cups.queue, files[i]!)) }
      }
    }),
  )
  const submitDone = performance.now()
  const accepted = submitted.filter((s) => s.error === undefined).length
  const reached = await cups.sink.until(accepted, 120_000)
  const { byIndex, repeats, unmarked } = connectionsOf([cups.sink], spec.tag)
  let sinkDone = start
  for (const connection of byIndex.values()) sinkDone = Math.max(sinkDone, connection.closedAt)
  let drained = 0
  for (const connection of byIndex.values()) if (connection.closedAt > submitDone) drained++
  const seconds = (sinkDone - start) / 1000
  const errorSamples = submitted
    .filter((s) => s.error)
    .slice(0, 5)
    .map((s) => s.error!)
  if (!reached) errorSamples.push(`the sink got ${byIndex.size} of ${accepted} jobs within 120 s`)
  if (unmarked > 0) errorSamples.push(`${unmarked} connections without this run's marker`)
  return {
    jobs: spec.jobs,
    printers: 1,
    concurrency: spec.concurrency,
    jobsPerSecond: Math.round(byIndex.size / seconds),
    seconds: round(seconds, 3),
    submitSeconds: round((submitDone - start) / 1000, 3),
    sinkSeconds: round(seconds, 3),
    drainJobsPerSecond: sinkDone > submitDone ? Math.round(drained / ((sinkDone - submitDone) / 1000)) : 0,
    errors: spec.jobs - byIndex.size,
    repeats,
    errorSamples,
  }
}
