// The delivery part of `bun run bench` (scripts/bench.ts runs the hub; this file is the client
// side): TCP sinks that stand in for receipt printers, the drivers that submit jobs to the hub and
// time them to the sink, and the CUPS reference (a raw queue driving the same kind of sink),
// measured in the same run when CUPS is installed.
//
// Every job's document carries a marker (`PHB-<tag>-<index>-END`, plain ASCII, so it passes the
// ESC/POS renderer unchanged): each connection a sink takes is matched to its job by the marker in
// its bytes, not by order. Times are performance.now() of this process (submission and first byte
// are both seen here); a job's COMPLETED time is the hub's own timestamp (its `updatedAt`, whole
// milliseconds of the same wall clock, taken at the middle of its millisecond), read through the
// public list route.
import type { TCPSocketListener } from 'bun'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { PrintDocument } from '../src/protocol/document.ts'
import type { Job, ListJobsResponse } from '../src/protocol/job.ts'
import { render, targetFor } from '../src/render/render.ts'
import { type LatencySummary, summarize } from './bench-load.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits

// ---- Clock ------------------------------------------------------------------------------------

/** Offset from timeOrigin + performance.now() to Date.now(), measured at a tick of Date.now(). */
let wallOffsetMs: number | undefined

/** Wall-clock milliseconds (fractional) of a performance.now() reading, on Date.now()'s clock. */
export function wallOf(perfMs: number): number {
  if (wallOffsetMs === undefined) {
    // Wait for Date.now() to tick, so its whole milliseconds are exact at that reading.
    const samples: number[] = []
    for (let i = 0; i < 5; i++) {
      const start = Date.now()
      let now = start
      let perf = performance.now()
      while (now === start) {
        perf = performance.now()
        now = Date.now()
      }
      samples.push(now - (performance.timeOrigin + perf))
    }
    samples.sort((a, b) => a - b)
    wallOffsetMs = samples[2]!
  }
  return performance.timeOrigin + perfMs + wallOffsetMs
}

// ---- Documents --------------------------------------------------------------------------------

const MARKER = /PHB-([a-z0-9]+)-(\d+)-END/

/** A small kitchen ticket, like the API section's, with the marker of job `index` of run `tag`. */
export function benchDocument(tag: string, index: number): PrintDocument {
  return {
    width: 80,
    sections: [
      { type: 'text', value: `PHB-${tag}-${index}-END` },
      { type: 'text', value: 'Table 12: 2x Flat white' },
      { type: 'row', left: 'Flat white', right: '7.00' },
      { type: 'cut' },
    ],
  }
}

/** The ESC/POS bytes the hub sends for that document (what the CUPS queue is given). */
export function renderedDocument(tag: string, index: number): Uint8Array {
  return render(benchDocument(tag, index), targetFor('generic-80mm', 80))
}

// ---- TCP sink ---------------------------------------------------------------------------------

export interface SinkConnection {
  tag: string | null
  index: number
  /** performance.now() when the connection's first byte arrived. */
  firstByteAt: number
  lastByteAt: number
  closedAt: number
  bytes: number
}

interface ConnectionState {
  firstByteAt: number
  lastByteAt: number
  bytes: number
  /** The start of the bytes as latin1, for the marker. */
  head: string
}

/** How much of a connection's start is kept to find the marker in (it is in the first line). */
const MARKER_SEARCH_BYTES = 4_096

/**
 * A printer stand-in on 127.0.0.1: takes a raw TCP connection per job, reads everything, and closes
 * when the sender ends its side (as a network printer does; CUPS's socket backend waits for that).
 */
export class TcpSink {
  readonly port: number
  /** Connections that closed after carrying bytes, in the order they closed. */
  connections: SinkConnection[] = []
  /** Connections that closed without a byte. */
  empty = 0
  errors: string[] = []
  private readonly listener: TCPSocketListener<ConnectionState>
  private waiter: { count: number; resolve: () => void } | undefined

  constructor(readonly name: string) {
    this.listener = Bun.listen<ConnectionState>({
      hostname: '127.0.0.1',
      port: 0,
      socket: {
        open: (socket) => {
          socket.data = { firstByteAt: 0, lastByteAt: 0, bytes: 0, head: '' }
        },
        data: (socket, received) => {
          const now = performance.now()
          const state = socket.data
          // Like a printer: each status request (DLE EOT n) before the job gets its status byte
          // (online, paper present); the job's first byte is the first one after them.
          let chunk = received
          while (state.bytes === 0 && chunk.length >= 3 && chunk[0] === 0x10 && chunk[1] === 0x04) {
            socket.write(Uint8Array.of(0x12))
            chunk = chunk.subarray(3)
          }
          if (chunk.byteLength === 0) return
          if (state.bytes === 0) state.firstByteAt = now
          state.lastByteAt = now
          state.bytes += chunk.byteLength
          if (state.head.length < MARKER_SEARCH_BYTES) state.head += chunk.subarray(0, MARKER_SEARCH_BYTES - state.head.length).toString('latin1')
        },
        close: (socket) => this.closed(socket.data, performance.now()),
        error: (_socket, error) => {
          if (this.errors.length < 5) this.errors.push(String(error))
        },
      },
    })
    this.port = this.listener.port
  }

  get url(): string {
    return `tcp://127.0.0.1:${this.port}`
  }

  reset(): void {
    this.connections = []
    this.empty = 0
    this.errors = []
  }

  /** Resolves once `count` connections with bytes have closed since the last reset; false on timeout. */
  async until(count: number, timeoutMs: number): Promise<boolean> {
    if (this.connections.length >= count) return true
    let timer: Timer | undefined
    const reached = await Promise.race([
      new Promise<boolean>((resolve) => (this.waiter = { count, resolve: () => resolve(true) })),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ])
    clearTimeout(timer)
    this.waiter = undefined
    return reached
  }

  stop(): void {
    this.listener.stop(true)
  }

  private closed(state: ConnectionState | undefined, now: number): void {
    if (!state || state.bytes === 0) {
      this.empty++
      return
    }
    const match = MARKER.exec(state.head)
    this.connections.push({
      tag: match ? match[1]! : null,
      index: match ? Number(match[2]) : -1,
      firstByteAt: state.firstByteAt,
      lastByteAt: state.lastByteAt,
      closedAt: now,
      bytes: state.bytes,
    })
    if (this.waiter && this.connections.length >= this.waiter.count) this.waiter.resolve()
  }
}

/** Connections of run `tag`: by job index, and how many jobs arrived more than once or unmarked. */
function connectionsOf(sinks: readonly TcpSink[], tag: string): { byIndex: Map<number, SinkConnection>; repeats: number; unmarked: number } {
  const byIndex = new Map<number, SinkConnection>()
  let repeats = 0
  let unmarked = 0
  for (const sink of sinks) {
    for (const connection of sink.connections) {
      if (connection.tag !== tag) {
        unmarked++
        continue
      }
      if (byIndex.has(connection.index)) repeats++
      else byIndex.set(connection.index, connection)
    }
  }
  return { byIndex, repeats, unmarked }
}

// ---- The hub's API ----------------------------------------------------------------------------

export interface HubApi {
  url: string
  projectId: string
  apiKey: string
}

interface Submitted {
  /** performance.now() just before the request was sent. */
  sentAt: number
  status: number
  jobId?: string
  error?: string
}

async function submitJob(hub: HubApi, printerId: string, idempotencyKey: string, document: PrintDocument): Promise<Omit<Submitted, 'sentAt'>> {
  try {
    const response = await fetch(`${hub.url}/v1/projects/${hub.projectId}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ printerId, idempotencyKey, document }),
      signal: AbortSignal.timeout(30_000),
    })
    const text = await response.text()
    if (response.status !== 202) return { status: response.status, error: `${response.status} ${text.slice(0, 200)}` }
    return { status: 202, jobId: (JSON.parse(text) as { job: Job }).job.id }
  } catch (error) {
    return { status: 0, error: String(error) }
  }
}

async function listJobs(hub: HubApi, state: Job['state']): Promise<Job[]> {
  const response = await fetch(`${hub.url}/v1/projects/${hub.projectId}/jobs?state=${state}`, {
    headers: { authorization: `Bearer ${hub.apiKey}` },
    signal: AbortSignal.timeout(10_000),
  })
  if (response.status !== 200) throw new Error(`GET jobs?state=${state} answered ${response.status}: ${await response.text()}`)
  return ((await response.json()) as ListJobsResponse).jobs
}

const UNFINISHED: readonly Job['state'][] = ['PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING']
const UNSUCCESSFUL: readonly Job['state'][] = ['FAILED', 'EXPIRED', 'CANCELLED']

/**
 * Waits until the project has no unfinished job (every list of an unfinished state is empty),
 * then returns the newest COMPLETED jobs (at most 100) and the count of failed ones (at most 100
 * per state). Each printer runs its jobs in creation order, so the last job to complete is among
 * the newest of each printer.
 */
async function settle(hub: HubApi, timeoutMs: number): Promise<{ completed: Job[]; unsuccessful: number; settled: boolean }> {
  const deadline = performance.now() + timeoutMs
  let settled = false
  while (performance.now() < deadline) {
    const open = await Promise.all(UNFINISHED.map((state) => listJobs(hub, state)))
    if (open.every((jobs) => jobs.length === 0)) {
      settled = true
      break
    }
    await sleep(10)
  }
  const [completed, ...failed] = await Promise.all([listJobs(hub, 'COMPLETED'), ...UNSUCCESSFUL.map((state) => listJobs(hub, state))])
  return { completed: completed!, unsuccessful: failed.reduce((sum, jobs) => sum + jobs.length, 0), settled }
}

// ---- Steady rate: latency ---------------------------------------------------------------------

export interface SteadySpec {
  tag: string
  ratePerSecond: number
  warmupJobs: number
  jobs: number
}

export interface SteadyResult {
  ratePerSecond: number
  /** Measured jobs (the warm-up excluded). */
  jobs: number
  warmupJobs: number
  /** Measured seconds from the first to the last submission of the measured jobs. */
  seconds: number
  firstByteMs: LatencySummary
  /** To the end of the job's connection (the printer has every byte). */
  closedMs: LatencySummary
  /** To the COMPLETED state (hub's timestamp); absent for CUPS. */
  completedMs?: LatencySummary
  /** Jobs whose submission failed, or that never reached the sink or the state COMPLETED. */
  errors: number
  repeats: number
  errorSamples: string[]
}

/**
 * Submits `warmupJobs + jobs` jobs at a steady rate (open loop: each goes at its time, whether or
 * not the previous ones are done) through `send`, and times each measured one to its sink. A
 * `poll`, if given, runs after every `poll.everyJobs`-th job, half an interval after it was sent:
 * between two jobs, so it does not sit in the path of the jobs it measures.
 */
async function steady(
  spec: SteadySpec,
  sink: TcpSink,
  send: (index: number) => Promise<Omit<Submitted, 'sentAt'>>,
  poll?: { everyJobs: number; run: () => Promise<void> },
): Promise<{ submitted: Submitted[]; byIndex: Map<number, SinkConnection>; repeats: number; unmarked: number; seconds: number }> {
  sink.reset()
  const total = spec.warmupJobs + spec.jobs
  const intervalMs = 1000 / spec.ratePerSecond
  const submitted: Submitted[] = new Array(total)
  const pending: Promise<void>[] = []
  const start = performance.now() + 20
  for (let i = 0; i < total; i++) {
    const wait = start + i * intervalMs - performance.now()
    if (wait > 0) await sleep(wait)
    const sentAt = performance.now()
    submitted[i] = { sentAt, status: -1 }
    pending.push(send(i).then((outcome) => void (submitted[i] = { sentAt, ...outcome })))
    if (poll && i % poll.everyJobs === poll.everyJobs - 1) pending.push(sleep(intervalMs / 2).then(poll.run))
  }
  const seconds = (submitted[total - 1]!.sentAt - submitted[Math.min(spec.warmupJobs, total - 1)]!.sentAt) / 1000
  await Promise.all(pending)
  const accepted = submitted.filter((s) => s.error === undefined).length
  await sink.until(accepted, 30_000)
  const { byIndex, repeats, unmarked } = connectionsOf([sink], spec.tag)
  return { submitted, byIndex, repeats, unmarked, seconds }
}

function latencies(spec: SteadySpec, submitted: readonly Submitted[], at: (index: number) => number | undefined): { values: Float64Array; missing: number } {
  const values: number[] = []
  let missing = 0
  for (let i = spec.warmupJobs; i < submitted.length; i++) {
    const t = at(i)
    if (t === undefined) missing++
    else values.push(t - submitted[i]!.sentAt)
  }
  return { values: Float64Array.from(values), missing }
}

const mean = (values: Float64Array): number => (values.length === 0 ? NaN : values.reduce((sum, v) => sum + v, 0) / values.length)

/**
 * Where a job's time goes, as means from its submission (ms): the hub's own timestamps of the
 * job (created: committed to the job table; receivedAt: the agent stored it; submittedAt: the
 * agent had written every byte; COMPLETED), and the sink's first and last byte.
 */
export interface Breakdown {
  created: number
  receivedByAgent: number
  firstByte: number
  lastByte: number
  submitted: number
  completed: number
}

/**
 * The hub: latency at a steady rate to one printer, to its first byte and to COMPLETED. The hub's
 * timestamps are whole milliseconds; each is taken at the middle of its millisecond.
 */
export async function hubSteady(hub: HubApi, printerId: string, sink: TcpSink, spec: SteadySpec): Promise<SteadyResult & { breakdownMs: Breakdown }> {
  const runId = `${spec.tag}-${Date.now().toString(36)}`
  const completed = new Map<string, Job>() // job ID -> the job as first seen COMPLETED
  const perfOfHubTime = (iso: string | null) => (iso === null ? undefined : Date.parse(iso) + 0.5 - wallOf(0))
  // Newest 100 per poll; at 50 jobs/s, a poll every 25 jobs sees each completion at least once.
  const everyJobs = Math.max(1, Math.floor(spec.ratePerSecond / 2))
  const poll = async () => {
    for (const job of await listJobs(hub, 'COMPLETED')) if (!completed.has(job.id)) completed.set(job.id, job)
  }
  const run = await steady(spec, sink, (i) => submitJob(hub, printerId, `${runId}-${i}`, benchDocument(spec.tag, i)), { everyJobs, run: poll })
  // The last completions, and any a poll missed.
  const wanted = run.submitted.slice(spec.warmupJobs).filter((s) => s.jobId !== undefined)
  for (let tries = 0; tries < 20 && wanted.some((s) => !completed.has(s.jobId!)); tries++) {
    await poll()
    await sleep(100)
  }
  const jobOf = (i: number) => {
    const id = run.submitted[i]!.jobId
    return id === undefined ? undefined : completed.get(id)
  }
  const sinkSide = atTheSink(spec, run)
  const { firstByte } = sinkSide
  const lastByte = latencies(spec, run.submitted, (i) => run.byIndex.get(i)?.lastByteAt)
  // COMPLETED on the hub's wall clock, against the submission on the same clock.
  const completedAt = latencies(spec, run.submitted, (i) => perfOfHubTime(jobOf(i)?.updatedAt ?? null))
  if (completedAt.missing > 0) sinkSide.result.errorSamples.push(`${completedAt.missing} measured jobs were not seen COMPLETED`)
  const breakdownMs: Breakdown = {
    created: mean(latencies(spec, run.submitted, (i) => perfOfHubTime(jobOf(i)?.createdAt ?? null)).values),
    receivedByAgent: mean(latencies(spec, run.submitted, (i) => perfOfHubTime(jobOf(i)?.receivedAt ?? null)).values),
    firstByte: mean(firstByte.values),
    lastByte: mean(lastByte.values),
    submitted: mean(latencies(spec, run.submitted, (i) => perfOfHubTime(jobOf(i)?.submittedAt ?? null)).values),
    completed: mean(completedAt.values),
  }
  for (const key of Object.keys(breakdownMs) as (keyof Breakdown)[]) breakdownMs[key] = round(breakdownMs[key], 2)
  return { ...sinkSide.result, completedMs: summarize(completedAt.values), breakdownMs, errors: Math.max(firstByte.missing, completedAt.missing) }
}

// ---- As fast as possible: throughput ----------------------------------------------------------

export interface BurstSpec {
  tag: string
  jobs: number
  /** Clients submitting at once. */
  concurrency: number
}

export interface BurstResult {
  jobs: number
  printers: number
  concurrency: number
  /** Jobs per second from the first submission until every job was done (the target's figure). */
  jobsPerSecond: number
  seconds: number
  /** When the last submission was answered, from the first one sent. */
  submitSeconds: number
  /** When the sinks had every job, from the first submission. */
  sinkSeconds: number
  /** Jobs per second the sinks took after the last submission was answered (delivery alone). */
  drainJobsPerSecond: number
  errors: number
  repeats: number
  errorSamples: string[]
}

/** The hub: `jobs` jobs round robin over `printers`, submitted as fast as `concurrency` clients go. */
export async function hubBurst(hub: HubApi, printers: readonly { printerId: string; sink: TcpSink }[], spec: BurstSpec): Promise<BurstResult> {
  const runId = `${spec.tag}-${Date.now().toString(36)}`
  for (const { sink } of printers) sink.reset()
  const documents = Array.from({ length: spec.jobs }, (_, i) => benchDocument(spec.tag, i))
  const submitted: Submitted[] = new Array(spec.jobs)
  let next = 0
  const start = performance.now()
  const startWall = wallOf(start)
  await Promise.all(
    Array.from({ length: spec.concurrency }, async () => {
      for (let i = next++; i < spec.jobs; i = next++) {
        const sentAt = performance.now()
        submitted[i] = { sentAt, ...(await submitJob(hub, printers[i % printers.length]!.printerId, `${runId}-${i}`, documents[i]!)) }
      }
    }),
  )
  const submitDone = performance.now()
  const accepted = submitted.filter((s) => s.status === 202).length
  // Each printer's share of the accepted jobs.
  const shares = printers.map((_, p) => submitted.filter((s, i) => s.status === 202 && i % printers.length === p).length)
  const reached = await Promise.all(printers.map(({ sink }, p) => sink.until(shares[p]!, 120_000)))
  const { byIndex, repeats, unmarked } = connectionsOf(
    printers.map((p) => p.sink),
    spec.tag,
  )
  let sinkDone = start
  let drained = 0
  for (const connection of byIndex.values()) {
    sinkDone = Math.max(sinkDone, connection.closedAt)
    if (connection.closedAt > submitDone) drained++
  }
  const { completed, unsuccessful, settled } = await settle(hub, 30_000)
  // The hub's time of the last completion (midpoint of its millisecond); the sinks' if none completed.
  const lastCompleted = completed.length > 0 ? Math.max(...completed.map((job) => Date.parse(job.updatedAt))) + 0.5 : wallOf(sinkDone)
  const seconds = (lastCompleted - startWall) / 1000
  const errorSamples = submitted.filter((s) => s.error).slice(0, 5).map((s) => s.error!)
  if (!reached.every(Boolean)) errorSamples.push(`the sinks got ${byIndex.size} of ${accepted} jobs within 120 s`)
  if (!settled) errorSamples.push('jobs were still unfinished 30 s after the sinks had them all')
  if (unsuccessful > 0) errorSamples.push(`${unsuccessful} jobs FAILED, EXPIRED or CANCELLED`)
  if (unmarked > 0) errorSamples.push(`${unmarked} connections without this run's marker`)
  return {
    jobs: spec.jobs,
    printers: printers.length,
    concurrency: spec.concurrency,
    jobsPerSecond: Math.round(byIndex.size / seconds),
    seconds: round(seconds, 3),
    submitSeconds: round((submitDone - start) / 1000, 3),
    sinkSeconds: round((sinkDone - start) / 1000, 3),
    drainJobsPerSecond: sinkDone > submitDone ? Math.round(drained / ((sinkDone - submitDone) / 1000)) : 0,
    errors: spec.jobs - accepted + (accepted - byIndex.size) + unsuccessful + (settled ? 0 : 1),
    repeats,
    errorSamples,
  }
}

// ---- CUPS -------------------------------------------------------------------------------------

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
  const result = Bun.spawnSync(argv, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...process.env, LC_ALL: 'C' } })
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

function writeJobFiles(dir: string, tag: string, count: number): string[] {
  mkdirSync(dir, { recursive: true })
  return Array.from({ length: count }, (_, i) => {
    const file = join(dir, `${tag}-${i}.bin`)
    writeFileSync(file, renderedDocument(tag, i))
    return file
  })
}

async function lpSubmit(queue: string, file: string): Promise<Omit<Submitted, 'sentAt'>> {
  const child = Bun.spawn(['lp', '-d', queue, '-o', 'raw', file], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...process.env, LC_ALL: 'C' } })
  const killer = setTimeout(() => child.kill('SIGKILL'), LP_TIMEOUT_MS)
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]).finally(() => clearTimeout(killer))
  return code === 0 ? { status: 0 } : { status: -1, error: `lp exited with ${code}: ${(err || out).trim().slice(0, 200)}` }
}

/** CUPS: `lp -d QUEUE -o raw FILE` at a steady rate, each timed from starting lp to the first byte. */
export async function cupsSteady(cups: CupsQueue, dir: string, spec: SteadySpec): Promise<SteadyResult> {
  const files = writeJobFiles(dir, spec.tag, spec.warmupJobs + spec.jobs)
  const run = await steady(spec, cups.sink, (i) => lpSubmit(cups.queue, files[i]!))
  return atTheSink(spec, run).result
}

/** What a sink saw of a steady run: first bytes and closes, timed from each submission. */
function atTheSink(spec: SteadySpec, run: Awaited<ReturnType<typeof steady>>) {
  const firstByte = latencies(spec, run.submitted, (i) => run.byIndex.get(i)?.firstByteAt)
  const closed = latencies(spec, run.submitted, (i) => run.byIndex.get(i)?.closedAt)
  const errorSamples = run.submitted.filter((s) => s.error).slice(0, 5).map((s) => s.error!)
  if (firstByte.missing > 0) errorSamples.push(`${firstByte.missing} measured jobs never reached the sink`)
  return {
    firstByte,
    result: {
      ratePerSecond: spec.ratePerSecond,
      jobs: spec.jobs,
      warmupJobs: spec.warmupJobs,
      seconds: round(run.seconds, 2),
      firstByteMs: summarize(firstByte.values),
      closedMs: summarize(closed.values),
      errors: firstByte.missing,
      repeats: run.repeats,
      errorSamples,
    } satisfies SteadyResult as SteadyResult,
  }
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
  const errorSamples = submitted.filter((s) => s.error).slice(0, 5).map((s) => s.error!)
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
