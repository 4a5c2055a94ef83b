// The hub's performance bench: `bun run bench`.
//
// Runs the hub as its own process on 127.0.0.1 and drives it from a second process
// (scripts/bench-load.ts), then reports, against targets:
//   1. GET /health requests per second (50 clients),
//   2. durable job submissions per second (50 clients) with p50/p99 latency,
//   3. submissions / health (how close a durable write gets to the cheapest route) and submit p99,
//   4. list latency with 1,000,000 stored jobs (seeded straight into SQLite),
//   5. idle and loaded RSS of the hub process;
// and delivery (scripts/bench-delivery.ts), through the built-in agent to raw TCP sinks standing
// in for printers, against a CUPS raw queue driving the same kind of sink:
//   6. submit-to-first-byte and submit-to-COMPLETED latency at a steady 50 jobs/s (p50/p99),
//   7. jobs per second to one printer, and across 4 printers, until every job is COMPLETED,
//   8. the same first-byte latency and jobs per second through CUPS, when it is installed;
// printers (scripts/bench-printers.ts): submit-to-first-byte at the printer emulator over TCP, and
// the share of a 115,200-baud serial line the serial transport keeps busy.
// `bun run bench` runs every section; `bun run bench api`, `delivery`, `render`, `printers` or `binary` runs one.
// Writes the figures to dist/bench.json as well (dist/bench-SECTION.json for one section). A
// section that fails is reported and the others still run; the bench exits 1 only when a section
// itself fails. A missed target is reported, not fatal, since figures depend on the machine.
// CUPS is measured when lp, lpadmin and cupsd are installed (apt-get install cups); the bench
// installs nothing, and without CUPS compares with the reference figures.
import { Database } from 'bun:sqlite'
import type { Subprocess } from 'bun'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { MAX_OPEN_JOBS_RANGE } from '../src/hub/config.ts'
import { JOB_STATES, type JobState, type ListJobsResponse } from '../src/protocol/job.ts'
import { EXPIRES_IN_MS, JOB_LIST_LIMIT, MAX_ATTEMPTS } from '../src/protocol/limits.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import { type BurstResult, type CupsSetup, cupsBurst, cupsSteady, hubBurst, hubSteady, setUpCups, type SteadyResult, stopCups, TcpSink, wallOf } from './bench-delivery.ts'
import { KEY_PLACEHOLDER, type LoadResult, type LoadSpec } from './bench-load.ts'
import { measureBinary } from './bench-binary.ts'
import { measureRender } from './bench-render.ts'
import { EMULATOR_PROFILE, emulatorFirstByte, serialThroughput, startEmulator } from './bench-printers.ts'

const ROOT = join(import.meta.dir, '..')
const BUN = process.execPath
const HOST = '127.0.0.1'

const LOAD = { concurrency: 50, warmupMs: 1_000, durationMs: 5_000, maxRequests: 2_000_000 } as const
const LIST_LOAD = { concurrency: 4, warmupMs: 500, durationMs: 30_000, maxRequests: 4_000 } as const
const SEED = { jobs: 1_000_000, batch: 50_000, timeLimitMs: 120_000 } as const
const IDLE_SETTLE_MS = 2_000
const RSS_SAMPLE_MS = 100
const HUB_START_TIMEOUT_MS = 15_000
const HUB_STOP_TIMEOUT_MS = 10_000
/** Beyond its own deadline, a load process gets this long (start-up, abort grace) before it is killed. */
const LOAD_SLACK_MS = 15_000

/**
 * Extra bun flags for the hub process, to see where its time goes, e.g.
 * PRINTHUB_BENCH_HUB_FLAGS='--cpu-prof-md --cpu-prof-dir=/tmp/prof' bun run bench delivery
 */
const HUB_BUN_FLAGS = (process.env.PRINTHUB_BENCH_HUB_FLAGS ?? '').split(/\s+/).filter(Boolean)

const TARGETS = { submitToHealthRatio: 0.25, submitP99Ms: 10, listP99Ms: 5, idleRssMb: 60 } as const

/** Delivery: the steady-rate latency run, the bursts for throughput, and the CUPS reference runs. */
const DELIVERY = {
  steady: { tag: 'lat', ratePerSecond: 50, warmupJobs: 50, jobs: 500 },
  /** Each run gets a fresh hub, warmed up with these jobs over its printers first. */
  warmup: { tag: 'warm', jobs: 100, concurrency: 8 },
  onePrinter: { tag: 'one', jobs: 2_000, concurrency: 16 },
  fourPrinters: { tag: 'four', jobs: 4_000, concurrency: 16 },
  // CUPS's latency at a modest rate (it queues at 50/s on a small machine), its throughput with
  // 8 lp processes at once.
  cupsSteady: { tag: 'cupslat', ratePerSecond: 10, warmupJobs: 10, jobs: 150 },
  cupsBurst: { tag: 'cupsone', jobs: 400, concurrency: 8 },
  pickupTimeoutMs: 15_000,
} as const
/** The reference: a CUPS raw queue to a TCP sink on a 2-vCPU machine. */
const CUPS_REFERENCE = { firstByteP50Ms: 10, jobsPerSecond: 115 } as const
const DELIVERY_TARGETS = { firstByteP50TimesLower: 5, firstByteP99Ms: 5, onePrinterTimesCups: 5, fourPrintersJobsPerSecond: 1_000 } as const

const SECTIONS = ['api', 'delivery', 'render', 'printers', 'binary'] as const
type Section = (typeof SECTIONS)[number]

const DOCUMENT = {
  width: 80,
  sections: [
    { type: 'text', value: 'Table 12: 2x Flat white' },
    { type: 'row', left: 'Flat white', right: '7.00' },
    { type: 'cut' },
  ],
}

// ---- Processes and cleanup ------------------------------------------------------------------

const children = new Set<Subprocess>()
const dataDirs = new Set<string>()
const sinks = new Set<TcpSink>()

/** Synchronous, so it also works from a signal handler; safe to call twice. */
function cleanup(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  children.clear()
  for (const sink of sinks) sink.stop()
  sinks.clear()
  stopCups()
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
  dataDirs.clear()
}

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'printhub-bench-'))
  dataDirs.add(dir)
  return dir
}

function newSink(name: string): TcpSink {
  const sink = new TcpSink(name)
  sinks.add(sink)
  return sink
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    cleanup()
    process.exit(130)
  })
}

function spawn(args: string[], env?: Record<string, string>): Subprocess<'ignore', 'pipe', 'pipe'> {
  const child = Bun.spawn([BUN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
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

/** Resident memory of a process, in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!match) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1]) / 1024
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

// ---- The hub ----------------------------------------------------------------------------------

interface HubProcess {
  url: string
  pid: number
  stop(): Promise<void>
}

/**
 * Starts `printhub serve` and resolves once it listens. Its stdout (one log line per request) is
 * drained for as long as it runs: a full pipe would block the hub mid-request.
 */
async function startHub(dir: string): Promise<HubProcess> {
  // In the API section every submission stays open (its printer is held offline), and half the
  // seeded jobs are unfinished too (counted by a trigger): lift the limit of unfinished jobs
  // (default 10,000) to its maximum, or submissions would turn into 429s.
  const env = { PRINTHUB_MAX_OPEN_JOBS: String(MAX_OPEN_JOBS_RANGE.max) }
  const child = spawn([...HUB_BUN_FLAGS, 'src/main.ts', 'serve', '--host', HOST, '--port', '0', '--data', dir], env)
  const tail: string[] = [] // the last lines of both streams, to explain a failed start
  let onListening: (url: string) => void = () => {}
  const listening = new Promise<string>((resolve) => (onListening = resolve))

  async function drain(stream: ReadableStream<Uint8Array>, watch: boolean): Promise<void> {
    const decoder = new TextDecoder()
    let pending = ''
    // Ends when the hub exits and closes the pipe.
    for await (const chunk of stream) {
      const parts = (pending + decoder.decode(chunk, { stream: true })).split('\n')
      pending = parts.pop()!
      for (const line of parts) {
        if (tail.push(line) > 20) tail.shift()
        const match = watch ? / listening on (http:\/\/[^\s,]+)/.exec(line) : null
        if (match) onListening(match[1]!)
      }
    }
  }
  void drain(child.stdout, true)
  void drain(child.stderr, false)

  const limit = timeout(HUB_START_TIMEOUT_MS, 'hub start')
  const url = await Promise.race([
    listening,
    child.exited.then((code) => Promise.reject(new Error(`hub exited with ${code} before listening:\n${tail.join('\n')}`))),
    limit.promise,
  ]).finally(limit.cancel)
  if (new URL(url).hostname !== HOST) throw new Error(`hub listens on ${url}, expected ${HOST}`)

  return {
    url,
    pid: child.pid,
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      const limit = timeout(HUB_STOP_TIMEOUT_MS, 'hub stop')
      try {
        const code = await Promise.race([child.exited, limit.promise])
        if (code !== 0) throw new Error(`hub exited with ${code} on SIGTERM:\n${tail.join('\n')}`)
      } catch (error) {
        child.kill('SIGKILL')
        throw error
      } finally {
        limit.cancel()
      }
    },
  }
}

interface Project {
  projectId: string
  apiKey: string
  printerId: string
}

/** Runs one `printhub` CLI command to its end and returns its stdout. */
async function cli(args: string[]): Promise<string> {
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
async function initDataDir(dir: string): Promise<Project> {
  const stdout = await cli(['init', '--data', dir, '--json'])
  const result = JSON.parse(stdout) as Partial<Project> & { created: boolean }
  if (!result.created || !result.projectId || !result.apiKey || !result.printerId) throw new Error(`unexpected init output: ${stdout}`)
  return { projectId: result.projectId, apiKey: result.apiKey, printerId: result.printerId }
}

// ---- Load -------------------------------------------------------------------------------------

/** Runs one load in its own process and returns its figures. */
async function runLoad(spec: LoadSpec, during?: () => void): Promise<LoadResult> {
  const child = spawn(['scripts/bench-load.ts', JSON.stringify(spec)])
  // A throw inside a timer would end the bench without cleanup: keep the first one for later.
  let samplerError: unknown
  const sampler = during
    ? setInterval(() => {
        try {
          during()
        } catch (error) {
          samplerError ??= error
        }
      }, RSS_SAMPLE_MS)
    : undefined
  const killer = setTimeout(() => child.kill('SIGKILL'), spec.warmupMs + spec.durationMs + LOAD_SLACK_MS)
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    if (code !== 0) throw new Error(`load generator exited with ${code}: ${stderr}`)
    if (samplerError) throw samplerError
    return JSON.parse(stdout) as LoadResult
  } finally {
    clearInterval(sampler)
    clearTimeout(killer)
  }
}

// ---- Seeding ----------------------------------------------------------------------------------

interface SeedResult {
  jobs: number
  seconds: number
  rowsPerSecond: number
  /** The newest seeded job, which the list must start with. */
  newestId: string
}

/** Seeds jobs straight into the (stopped) hub's database, as valid rows of the demo printer. */
export function seedJobs(dir: string, projectId: string, count: number): SeedResult {
  const startedAt = performance.now()
  const db = new Database(join(dir, DATABASE_FILE), { strict: true })
  try {
    db.run('PRAGMA busy_timeout = 5000')
    // A bench fixture: losing it to a power cut costs nothing, so skip the flushes. The hub
    // reopens the file with its own durable settings.
    db.run('PRAGMA synchronous = OFF')
    // Each INSERT into jobs needs a statement journal (two UNIQUE constraints, a trigger); in a
    // temp file that is one pwrite per touched page, and more than half of the seeding time.
    db.run('PRAGMA temp_store = MEMORY')
    // The four jobs indexes outgrow the default 2 MB cache within seconds; 256 MB keeps them hot.
    db.run('PRAGMA cache_size = -262144')
    const printer = db.query<{ id: string }, [string]>("SELECT id FROM printers WHERE project_id = ? AND remote_id = 'demo'").get(projectId)
    if (!printer) throw new Error('the demo printer is missing')
    const firstSeq = (db.query<{ seq: number | null }, []>('SELECT max(seq) AS seq FROM jobs').get()?.seq ?? 0) + 1

    const insertJob = db.prepare<never, [number, string, string, string, string, JobState, number, number, number, string | null, string | null, number | null, number | null, number, number]>(
      `INSERT INTO jobs (seq, id, project_id, printer_id, idempotency_key, state, expires_at, attempt_count, max_attempts,
         last_error_code, last_error_message, received_at, submitted_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    const insertDocument = db.prepare<never, [number, string]>('INSERT INTO job_documents (job_seq, document) VALUES (?, ?)')
    const document = JSON.stringify(DOCUMENT)
    // Which timestamps a job in each state has: received by an agent, submitted to the printer.
    const received = new Set<JobState>(['DELIVERED', 'PRINTING', 'COMPLETED'])
    const submitted = new Set<JobState>(['PRINTING', 'COMPLETED'])
    const seedRunId = Date.now().toString(36)
    // One job every 2 s, ending now: about 23 days of history, in seq order.
    const spacingMs = 2_000
    const seededAt = Date.now()
    const firstCreatedAt = seededAt - count * spacingMs
    let newestId = ''

    const insertBatch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const seq = firstSeq + i
        // Round robin over the 8 states; a job left unfinished past its expiry is EXPIRED, as the
        // hub would have left it (so only the last day's jobs are PENDING or DISPATCHING).
        const createdAt = firstCreatedAt + i * spacingMs
        const dealt = JOB_STATES[i % JOB_STATES.length]!
        const state = (dealt === 'PENDING' || dealt === 'DISPATCHING') && createdAt + EXPIRES_IN_MS.default <= seededAt ? 'EXPIRED' : dealt
        const failed = state === 'FAILED'
        const id = `job_${Bun.randomUUIDv7('hex', createdAt).replace(/-/g, '')}`
        insertJob.run(
          seq,
          id,
          projectId,
          printer.id,
          `seed-${seedRunId}-${String(i).padStart(String(count).length, '0')}`, // padded: appended in index order
          state,
          createdAt + EXPIRES_IN_MS.default,
          dealt === 'PENDING' ? 0 : failed ? MAX_ATTEMPTS.default : 1,
          MAX_ATTEMPTS.default,
          failed ? 'printer_offline' : state === 'EXPIRED' ? 'expired' : null,
          failed ? 'The printer did not answer.' : state === 'EXPIRED' ? 'The job expired before it reached the printer.' : null,
          received.has(state) ? createdAt + 200 : null,
          submitted.has(state) ? createdAt + 400 : null,
          createdAt,
          state === 'PENDING' ? createdAt : createdAt + 1_000,
        )
        insertDocument.run(seq, document)
        newestId = id
      }
    })

    for (let from = 0; from < count; from += SEED.batch) {
      if (performance.now() - startedAt > SEED.timeLimitMs) throw new Error(`seeding took longer than ${SEED.timeLimitMs} ms`)
      insertBatch.immediate(from, Math.min(count, from + SEED.batch))
    }
    // Leave a compact file for the hub: no large WAL to replay or checkpoint under load.
    db.run('PRAGMA wal_checkpoint(TRUNCATE)')
    const seconds = (performance.now() - startedAt) / 1000
    return { jobs: count, seconds: round(seconds, 2), rowsPerSecond: Math.round(count / seconds), newestId }
  } finally {
    db.close()
  }
}

// ---- Report -----------------------------------------------------------------------------------

interface Check {
  name: string
  value: number
  unit: string
  target: string
  pass: boolean
}

function machine() {
  const nproc = Bun.spawnSync(['nproc'], { stdout: 'pipe', stderr: 'ignore' })
  const cpus = nproc.exitCode === 0 ? Number(nproc.stdout.toString().trim()) : availableParallelism()
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown'
  return { cpus, cpuModel, bun: Bun.version, platform: `${process.platform} ${process.arch}` }
}

function describeLoad(name: string, result: LoadResult): string {
  const l = result.latencyMs
  const errors = result.errors === 0 ? 'no errors' : `${result.errors} ERRORS ${JSON.stringify(result.statuses)}`
  return `${name.padEnd(30)} ${String(result.rate).padStart(7)} req/s   p50 ${l.p50.toFixed(2)} ms   p99 ${l.p99.toFixed(2)} ms   max ${l.max.toFixed(1)} ms   (${result.ok} ok, ${errors})`
}

function checkLine(check: Check): string {
  const value = `${check.value}${check.unit}`
  return `  ${check.pass ? 'PASS' : 'MISS'}  ${check.name.padEnd(34)} ${value.padStart(10)}   target ${check.target}`
}

function errorDetail(name: string, result: LoadResult): string[] {
  return result.errors === 0 ? [] : [`  ${name} errors: ${JSON.stringify(result.statuses)}`, ...result.errorSamples.map((s) => `    ${s}`)]
}

// ---- API section ------------------------------------------------------------------------------

interface SectionResult {
  report: string[]
  checks: Check[]
  results: Record<string, unknown>
}

async function apiSection(info: ReturnType<typeof machine>): Promise<SectionResult> {
  const dataDir = newDataDir()
  const project = await initDataDir(dataDir)
  // This section measures the API alone (delivery has its own): the demo printer is held offline,
  // so submitted and seeded jobs stay queued instead of being printed while the API is measured.
  const db = new Database(join(dataDir, DATABASE_FILE), { strict: true })
  db.run(`UPDATE printers SET connection = 'virtual://demo?mode=offline'`)
  db.close()
  const jobsUrl = (hub: HubProcess, query = '') => `${hub.url}/v1/projects/${project.projectId}/jobs${query}`
  const auth = { authorization: `Bearer ${project.apiKey}` }

  // 1, 2, 5: throughput and memory on a fresh hub.
  let hub = await startHub(dataDir)
  await sleep(IDLE_SETTLE_MS)
  const idleRssMb = rssMb(hub.pid)
  console.log(`hub pid ${hub.pid} at ${hub.url}; idle RSS ${idleRssMb.toFixed(1)} MB`)

  console.log(`GET /health: ${LOAD.concurrency} clients, ${LOAD.warmupMs} ms warm-up, ${LOAD.durationMs} ms measured...`)
  const health = await runLoad({ ...LOAD, url: `${hub.url}/health`, method: 'GET', expectStatus: 200 })

  console.log(`POST jobs: ${LOAD.concurrency} clients, ${LOAD.warmupMs} ms warm-up, ${LOAD.durationMs} ms measured...`)
  let loadedRssMb = rssMb(hub.pid)
  const bodyTemplate = JSON.stringify({ printerId: project.printerId, idempotencyKey: KEY_PLACEHOLDER, document: DOCUMENT })
  const submit = await runLoad(
    { ...LOAD, url: jobsUrl(hub), method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, bodyTemplate, expectStatus: 202 },
    () => (loadedRssMb = Math.max(loadedRssMb, rssMb(hub.pid))),
  )
  await hub.stop()

  // 4: list latency over a million stored jobs.
  console.log(`seeding ${SEED.jobs.toLocaleString('en')} jobs into ${DATABASE_FILE}...`)
  const seed = seedJobs(dataDir, project.projectId, SEED.jobs)
  console.log(`seeded in ${seed.seconds} s (${seed.rowsPerSecond.toLocaleString('en')} rows/s)`)

  hub = await startHub(dataDir)
  // The list must really read the seeded rows: newest first, a full page, the state filter applied.
  const list = async (query = ''): Promise<ListJobsResponse> => {
    const response = await fetch(jobsUrl(hub, query), { headers: auth, signal: AbortSignal.timeout(10_000) })
    if (response.status !== 200) throw new Error(`GET jobs${query} answered ${response.status}: ${await response.text()}`)
    return (await response.json()) as ListJobsResponse
  }
  const all = await list()
  const pending = await list('?state=PENDING')
  if (all.jobs.length !== JOB_LIST_LIMIT || all.jobs[0]?.id !== seed.newestId) throw new Error('the job list does not start with the newest seeded job')
  if (pending.jobs.length !== JOB_LIST_LIMIT || pending.jobs.some((job) => job.state !== 'PENDING')) throw new Error('the PENDING list is wrong')

  console.log(`GET jobs: ${LIST_LOAD.concurrency} clients, ${LIST_LOAD.maxRequests} requests each list...`)
  const listAll = await runLoad({ ...LIST_LOAD, url: jobsUrl(hub), method: 'GET', headers: auth, expectStatus: 200 })
  const listPending = await runLoad({ ...LIST_LOAD, url: jobsUrl(hub, '?state=PENDING'), method: 'GET', headers: auth, expectStatus: 200 })
  const listRssMb = rssMb(hub.pid)
  await hub.stop()
  rmSync(dataDir, { recursive: true, force: true })
  dataDirs.delete(dataDir)

  const ratio = submit.rate / health.rate
  const checks: Check[] = [
    { name: 'submissions / health', value: round(ratio * 100), unit: '%', target: `>= ${TARGETS.submitToHealthRatio * 100}%`, pass: ratio >= TARGETS.submitToHealthRatio },
    { name: 'submit p99', value: round(submit.latencyMs.p99, 2), unit: ' ms', target: `< ${TARGETS.submitP99Ms} ms`, pass: submit.latencyMs.p99 < TARGETS.submitP99Ms },
    { name: 'submit errors (non-202)', value: submit.errors, unit: '', target: '0', pass: submit.errors === 0 },
    { name: 'list p99 (1M jobs)', value: round(listAll.latencyMs.p99, 2), unit: ' ms', target: `< ${TARGETS.listP99Ms} ms`, pass: listAll.latencyMs.p99 < TARGETS.listP99Ms && listAll.errors === 0 },
    { name: 'list ?state=PENDING p99 (1M jobs)', value: round(listPending.latencyMs.p99, 2), unit: ' ms', target: `< ${TARGETS.listP99Ms} ms`, pass: listPending.latencyMs.p99 < TARGETS.listP99Ms && listPending.errors === 0 },
    { name: 'idle RSS', value: round(idleRssMb), unit: ' MB', target: `< ${TARGETS.idleRssMb} MB`, pass: idleRssMb < TARGETS.idleRssMb },
  ]

  const report = [
    `printhub bench on ${info.cpus} CPUs (${info.cpuModel}), bun ${info.bun}; hub and load generator share these CPUs`,
    describeLoad(`GET /health (${LOAD.concurrency} clients)`, health),
    describeLoad(`POST jobs (${LOAD.concurrency} clients)`, submit),
    describeLoad(`GET jobs, 1M stored (${LIST_LOAD.concurrency} cl.)`, listAll),
    describeLoad(`GET jobs?state=PENDING (${LIST_LOAD.concurrency} cl.)`, listPending),
    `${'RSS'.padEnd(30)} idle ${idleRssMb.toFixed(1)} MB, max under submissions ${loadedRssMb.toFixed(1)} MB, after list load (1M jobs) ${listRssMb.toFixed(1)} MB`,
    `${'seeding'.padEnd(30)} ${seed.jobs.toLocaleString('en')} jobs in ${seed.seconds} s`,
    ...errorDetail('health', health),
    ...errorDetail('submit', submit),
    ...errorDetail('list', listAll),
    ...errorDetail('list PENDING', listPending),
  ]
  return {
    report,
    checks,
    results: {
      settings: { load: LOAD, listLoad: LIST_LOAD, seedJobs: SEED.jobs, rssSampleMs: RSS_SAMPLE_MS, idleSettleMs: IDLE_SETTLE_MS },
      health,
      submit,
      submitToHealthRatio: round(ratio, 4),
      list: { all: listAll, pending: listPending },
      seed: { jobs: seed.jobs, seconds: seed.seconds, rowsPerSecond: seed.rowsPerSecond },
      rssMb: { idle: round(idleRssMb), loadedMax: round(loadedRssMb), afterList: round(listRssMb) },
    },
  }
}

// ---- Delivery section -------------------------------------------------------------------------

/** Adds a printer of the built-in agent with the CLI, as an operator would; returns its record ID. */
async function addTcpPrinter(dir: string, projectId: string, remoteId: string, sink: TcpSink): Promise<string> {
  const stdout = await cli(['printers', 'add', '--project', projectId, '--id', remoteId, '--connection', sink.url, '--data', dir, '--json'])
  return (JSON.parse(stdout) as { id: string }).id
}

/** Waits until the running hub's built-in agent reports every one of `printerIds` (its catalog poll). */
async function waitForAgentPrinters(dir: string, printerIds: readonly string[]): Promise<number> {
  const startedAt = performance.now()
  for (;;) {
    const reported = new Set((JSON.parse(await cli(['printers', 'list', '--agents', '--data', dir, '--json'])) as { printerId: string }[]).map((p) => p.printerId))
    if (printerIds.every((id) => reported.has(id))) return performance.now() - startedAt
    if (performance.now() - startedAt > DELIVERY.pickupTimeoutMs) throw new Error(`the built-in agent did not report its new printers within ${DELIVERY.pickupTimeoutMs} ms`)
    await sleep(200)
  }
}

function failIfErrors(what: string, result: SteadyResult | BurstResult): void {
  if (result.errors === 0 && result.repeats === 0) return
  console.log(`  ${what}: ${result.errors} errors, ${result.repeats} printed twice: ${result.errorSamples.join('; ')}`)
}

const ms = (value: number) => `${value.toFixed(2)} ms`

function describeSteady(name: string, what: string, l: { p50: number; p99: number; max: number }, result: SteadyResult): string {
  return `${name.padEnd(30)} ${what.padEnd(18)} p50 ${ms(l.p50)}   p99 ${ms(l.p99)}   max ${l.max.toFixed(1)} ms   (${result.jobs} jobs at ${result.ratePerSecond}/s, ${result.errors} errors)`
}

function describeBurst(name: string, result: BurstResult, finish: string): string {
  return `${name.padEnd(30)} ${String(result.jobsPerSecond).padStart(7)} jobs/s  ${result.jobs} jobs in ${result.seconds} s until ${finish} (all submitted after ${result.submitSeconds} s, then ${result.drainJobsPerSecond} jobs/s; ${result.concurrency} clients, ${result.errors} errors)`
}

interface DeliveryHub {
  hub: HubProcess
  api: { url: string; projectId: string; apiKey: string }
  printers: { printerId: string; sink: TcpSink }[]
  dir: string
  stop(): Promise<void>
}

/**
 * A fresh hub (new data directory, so every run starts with empty stores and an empty agent
 * ledger) with one TCP printer per name, added with the CLI while it runs, reported by its
 * built-in agent, and warmed up.
 */
async function deliveryHub(names: readonly string[]): Promise<DeliveryHub> {
  const dir = newDataDir()
  const project = await initDataDir(dir)
  const printers = names.map((name) => ({ printerId: name, sink: newSink(name) }))
  const hub = await startHub(dir)
  const records: string[] = []
  for (const { printerId, sink } of printers) records.push(await addTcpPrinter(dir, project.projectId, printerId, sink))
  const pickupMs = await waitForAgentPrinters(dir, records)
  const api = { url: hub.url, projectId: project.projectId, apiKey: project.apiKey }
  const warmup = await hubBurst(api, printers, DELIVERY.warmup)
  if (warmup.errors + warmup.repeats > 0) throw new Error(`delivery warm-up failed: ${warmup.errorSamples.join('; ')}`)
  console.log(`  hub pid ${hub.pid} at ${hub.url}: its built-in agent reported ${names.length} new TCP printer(s) after ${(pickupMs / 1000).toFixed(1)} s; warmed up with ${DELIVERY.warmup.jobs} jobs`)
  return {
    hub,
    api,
    printers,
    dir,
    async stop() {
      await hub.stop()
      for (const { sink } of printers) {
        sink.stop()
        sinks.delete(sink)
      }
      rmSync(dir, { recursive: true, force: true })
      dataDirs.delete(dir)
    },
  }
}

async function deliverySection(info: ReturnType<typeof machine>): Promise<SectionResult> {
  wallOf(0) // calibrates the wall clock before any timing
  const s = DELIVERY.steady
  console.log(`delivery latency: ${s.warmupJobs} + ${s.jobs} jobs at ${s.ratePerSecond} jobs/s to one printer...`)
  let run = await deliveryHub(['one'])
  const steady = await hubSteady(run.api, 'one', run.printers[0]!.sink, s)
  failIfErrors('latency', steady)
  await run.stop()

  console.log(`delivery throughput: ${DELIVERY.onePrinter.jobs} jobs to one printer, ${DELIVERY.onePrinter.concurrency} clients...`)
  run = await deliveryHub(['one'])
  const onePrinter = await hubBurst(run.api, run.printers, DELIVERY.onePrinter)
  failIfErrors('one printer', onePrinter)
  await run.stop()

  console.log(`delivery throughput: ${DELIVERY.fourPrinters.jobs} jobs round robin to 4 printers, ${DELIVERY.fourPrinters.concurrency} clients...`)
  run = await deliveryHub(['p1', 'p2', 'p3', 'p4'])
  const fourResult = await hubBurst(run.api, run.printers, DELIVERY.fourPrinters)
  failIfErrors('4 printers', fourResult)
  const hubRssMb = rssMb(run.hub.pid)
  await run.stop()

  // CUPS, after the hub stopped, so the two never share the CPUs.
  console.log('CUPS: looking for lp, lpadmin and a running cupsd...')
  const setup: CupsSetup = await setUpCups()
  let cups: { version: string; startedScheduler: boolean; steady: SteadyResult; onePrinter: BurstResult } | undefined
  if (setup.ok) {
    sinks.add(setup.cups.sink)
    const files = join(newDataDir(), 'cups-jobs')
    const c = DELIVERY.cupsSteady
    console.log(`CUPS ${setup.cups.version} latency: ${c.warmupJobs} + ${c.jobs} jobs at ${c.ratePerSecond} jobs/s with lp -o raw to queue ${setup.cups.queue}...`)
    const cupsLatency = await cupsSteady(setup.cups, files, c)
    failIfErrors('CUPS latency', cupsLatency)
    console.log(`CUPS throughput: ${DELIVERY.cupsBurst.jobs} jobs, ${DELIVERY.cupsBurst.concurrency} lp at once...`)
    const cupsOne = await cupsBurst(setup.cups, files, DELIVERY.cupsBurst)
    failIfErrors('CUPS one printer', cupsOne)
    cups = { version: setup.cups.version, startedScheduler: setup.cups.startedScheduler, steady: cupsLatency, onePrinter: cupsOne }
    stopCups()
  } else {
    console.log(`CUPS: ${setup.reason}`)
  }

  // The figures CUPS is compared with: measured here, else the issue's.
  const cupsP50 = cups ? cups.steady.firstByteMs.p50 : CUPS_REFERENCE.firstByteP50Ms
  const cupsRate = cups ? cups.onePrinter.jobsPerSecond : CUPS_REFERENCE.jobsPerSecond
  const cupsSource = cups ? 'CUPS measured' : 'CUPS reference'
  const p50 = steady.firstByteMs.p50
  const p50TimesLower = cupsP50 / p50
  const oneTimesCups = onePrinter.jobsPerSecond / cupsRate
  const errors = steady.errors + onePrinter.errors + fourResult.errors
  const repeats = steady.repeats + onePrinter.repeats + fourResult.repeats
  const checks: Check[] = [
    {
      name: 'first byte p50, times lower than CUPS',
      value: round(p50TimesLower, 1),
      unit: 'x',
      target: `>= ${DELIVERY_TARGETS.firstByteP50TimesLower}x (${ms(p50)} vs ${cupsSource} ${ms(cupsP50)})`,
      pass: p50TimesLower >= DELIVERY_TARGETS.firstByteP50TimesLower,
    },
    {
      name: `first byte p99 at ${s.ratePerSecond} jobs/s`,
      value: round(steady.firstByteMs.p99, 2),
      unit: ' ms',
      target: `< ${DELIVERY_TARGETS.firstByteP99Ms} ms`,
      pass: steady.firstByteMs.p99 < DELIVERY_TARGETS.firstByteP99Ms,
    },
    {
      name: 'jobs/s to 1 printer, times CUPS',
      value: round(oneTimesCups, 1),
      unit: 'x',
      target: `>= ${DELIVERY_TARGETS.onePrinterTimesCups}x (${onePrinter.jobsPerSecond} vs ${cupsSource} ${cupsRate} jobs/s)`,
      pass: oneTimesCups >= DELIVERY_TARGETS.onePrinterTimesCups,
    },
    {
      name: 'jobs/s across 4 printers',
      value: fourResult.jobsPerSecond,
      unit: '',
      target: `>= ${DELIVERY_TARGETS.fourPrintersJobsPerSecond.toLocaleString('en')} jobs/s`,
      pass: fourResult.jobsPerSecond >= DELIVERY_TARGETS.fourPrintersJobsPerSecond,
    },
    { name: 'jobs lost, failed or printed twice', value: errors + repeats, unit: '', target: '0', pass: errors + repeats === 0 },
  ]

  const reference = `the issue's reference (2 vCPUs): p50 ${CUPS_REFERENCE.firstByteP50Ms} ms, ${CUPS_REFERENCE.jobsPerSecond} jobs/s`
  const cupsLines = cups
    ? [
        describeSteady(`CUPS ${cups.version} raw queue`, 'to first byte', cups.steady.firstByteMs, cups.steady),
        describeSteady('', 'to last byte', cups.steady.closedMs, cups.steady),
        describeBurst('CUPS, 1 printer', cups.onePrinter, 'the sink had all'),
        `${''.padEnd(30)} CUPS measured in this run: lp -d QUEUE -o raw FILE, one lp process per job; cupsd ${cups.startedScheduler ? 'started by the bench' : 'already running'}; ${reference}`,
      ]
    : [`CUPS: ${setup.ok ? '' : setup.reason}, reference figures from the issue: p50 ${CUPS_REFERENCE.firstByteP50Ms} ms, ${CUPS_REFERENCE.jobsPerSecond} jobs/s`]
  const b = steady.breakdownMs
  const report = [
    `delivery on ${info.cpus} CPUs: each run on a fresh hub as its own process (built-in agent, tcp:// printers); sinks and clients in the bench process`,
    describeSteady('submit -> first byte', 'at the sink', steady.firstByteMs, steady),
    describeSteady('submit -> last byte', 'sink closed', steady.closedMs, steady),
    describeSteady('submit -> COMPLETED', "hub's timestamp", steady.completedMs!, steady),
    `${'  where the time goes (means)'.padEnd(30)} created ${ms(b.created)}, stored by the agent ${ms(b.receivedByAgent)}, first byte ${ms(b.firstByte)}, last byte ${ms(b.lastByte)}, submitted ${ms(b.submitted)}, COMPLETED ${ms(b.completed)}`,
    describeBurst('1 printer', onePrinter, 'all COMPLETED'),
    describeBurst('4 printers', fourResult, 'all COMPLETED'),
    `${'hub RSS'.padEnd(30)} ${hubRssMb.toFixed(1)} MB after the 4-printer run`,
    ...cupsLines,
  ]
  return {
    report,
    checks,
    results: {
      hub: 'separate process (printhub serve), built-in agent, tcp:// printers',
      settings: DELIVERY,
      steady,
      onePrinter,
      fourPrinters: fourResult,
      hubRssMb: round(hubRssMb),
      cups: cups ? { measured: true, ...cups } : { measured: false, reason: setup.ok ? '' : setup.reason, reference: CUPS_REFERENCE },
    },
  }
}

// ---- Main -------------------------------------------------------------------------------------

function sectionsOf(args: string[]): Section[] {
  for (const arg of args) if (!SECTIONS.includes(arg as Section)) throw new Error(`unknown bench section "${arg}"; the sections are ${SECTIONS.join(', ')}`)
  return args.length === 0 ? [...SECTIONS] : SECTIONS.filter((section) => args.includes(section))
}

/** Ends whatever a failed section left running (its hub, a load generator), so the next section runs alone. */
async function abandonChildren(): Promise<void> {
  const left = [...children]
  for (const child of left) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await Promise.all(left.map((child) => child.exited))
  for (const sink of sinks) sink.stop()
  sinks.clear()
  stopCups()
}

// ---- Render section ---------------------------------------------------------------------------

const RENDER_TARGETS = { receiptMs: 1, photoMs: 30 } as const

function renderSection(): SectionResult {
  console.log('render: a 40-line receipt with a QR code (2,000 runs), a 576 x 1000 photo as JPEG and as PNG (15 runs each)...')
  const figures = measureRender()
  const ms = (value: number) => Number(value.toFixed(value < 1 ? 3 : 1))
  return {
    report: [
      'render (in this process, median time of one document to ESC/POS bytes, 80 mm)',
      `40-line receipt with a QR code   ${ms(figures.receiptMs)} ms`,
      `576 x 1000 photo, JPEG          ${ms(figures.photoJpegMs)} ms (decode, scale, dither, raster)`,
      `576 x 1000 photo, PNG           ${ms(figures.photoPngMs)} ms`,
    ],
    checks: [
      { name: 'render a 40-line receipt with a QR', value: ms(figures.receiptMs), unit: ' ms', target: `< ${RENDER_TARGETS.receiptMs} ms`, pass: figures.receiptMs < RENDER_TARGETS.receiptMs },
      { name: 'render a 576x1000 photo (JPEG)', value: ms(figures.photoJpegMs), unit: ' ms', target: `< ${RENDER_TARGETS.photoMs} ms`, pass: figures.photoJpegMs < RENDER_TARGETS.photoMs },
      { name: 'render a 576x1000 photo (PNG)', value: ms(figures.photoPngMs), unit: ' ms', target: `< ${RENDER_TARGETS.photoMs} ms`, pass: figures.photoPngMs < RENDER_TARGETS.photoMs },
    ],
    results: { ...figures, targets: RENDER_TARGETS },
  }
}

// ---- Printers section -------------------------------------------------------------------------

/** The issue sets a target for the serial line only; the first byte at the emulator is reported as measured. */
const PRINTER_TARGETS = { serialShare: 0.95 } as const

async function printersSection(): Promise<SectionResult> {
  console.log(`printers: a hub printing to the printer emulator over TCP (${EMULATOR_PROFILE}: status before, confirmation after), and one job at 115,200 baud to the serial emulator...`)
  const emulator = startEmulator()
  const dir = newDataDir()
  const project = await initDataDir(dir)
  const hub = await startHub(dir)
  let tcp: Awaited<ReturnType<typeof emulatorFirstByte>>
  try {
    const stdout = await cli(['printers', 'add', '--project', project.projectId, '--id', 'emulated', '--connection', `tcp://127.0.0.1:${emulator.port}`, '--profile', EMULATOR_PROFILE, '--data', dir, '--json'])
    await waitForAgentPrinters(dir, [(JSON.parse(stdout) as { id: string }).id])
    tcp = await emulatorFirstByte({ url: hub.url, projectId: project.projectId, apiKey: project.apiKey }, 'emulated', emulator)
  } finally {
    await hub.stop()
    emulator.stop()
  }
  if (tcp.missing > 0) throw new Error(`${tcp.missing} jobs did not reach the emulator`)
  const serial = await serialThroughput()
  const l = tcp.firstByteMs
  return {
    report: [
      'printers (the emulator in the bench process; the hub in its own)',
      `submit -> first byte at the TCP emulator   p50 ${ms(l.p50)}   p99 ${ms(l.p99)}   max ${l.max.toFixed(1)} ms   (${tcp.jobs} jobs at 20/s, ${tcp.missing} missing)`,
      `serial at ${serial.baud} baud             ${(serial.share * 100).toFixed(1)}% of the line rate   (${serial.bytes} bytes in ${serial.seconds} s, ${serial.lost} lost; the line is paced in 5 ms steps)`,
    ],
    checks: [
      { name: 'serial throughput at 115,200 baud', value: Number((serial.share * 100).toFixed(1)), unit: '% of the line rate', target: `>= ${PRINTER_TARGETS.serialShare * 100}%`, pass: serial.share >= PRINTER_TARGETS.serialShare && serial.lost === 0 },
    ],
    results: { tcpEmulator: tcp, serial, targets: PRINTER_TARGETS },
  }
}

// ---- Executable section -----------------------------------------------------------------------

const BINARY_TARGETS = { startupMs: 200 } as const

async function binarySection(): Promise<SectionResult> {
  console.log('executable: build both, start the x64 one 10 times, then 100,000 jobs to the demo printer...')
  const f = await measureBinary()
  return {
    report: [
      'the compiled x64 executable (started as a technician does, on an initialised data directory)',
      `size                           arm64 ${f.sizeMiB.arm64} MiB, x64 ${f.sizeMiB.x64} MiB`,
      `start-up to the first 200      median ${f.startupMs.median.toFixed(0)} ms of 10 (${f.startupMs.min.toFixed(0)}-${f.startupMs.max.toFixed(0)} ms)`,
      `RSS                            idle ${f.idleRssMb.toFixed(1)} MB, after ${f.jobs.toLocaleString('en')} jobs ${f.rssAfterJobsMb.toFixed(1)} MB (${f.jobsPerSecond} jobs/s, 16 clients)`,
    ],
    checks: [{ name: 'executable start-up to first 200', value: Math.round(f.startupMs.median), unit: ' ms', target: `< ${BINARY_TARGETS.startupMs} ms`, pass: f.startupMs.median < BINARY_TARGETS.startupMs }],
    results: { ...f, targets: BINARY_TARGETS },
  }
}

async function main(): Promise<void> {
  const sections = sectionsOf(process.argv.slice(2))
  const info = machine()
  console.log(`printhub bench (${sections.join(', ')}): ${info.cpus} CPUs (${info.cpuModel}), bun ${info.bun}, ${info.platform}`)
  const done: Partial<Record<Section, SectionResult>> = {}
  const failed: Partial<Record<Section, string>> = {}
  // A section that fails is reported, and the others still run; the bench then exits 1.
  for (const section of sections) {
    try {
      done[section] = section === 'api' ? await apiSection(info) : section === 'delivery' ? await deliverySection(info) : section === 'render' ? renderSection() : section === 'printers' ? await printersSection() : await binarySection()
    } catch (error) {
      failed[section] = error instanceof Error ? error.message : String(error)
      console.error(`bench section ${section} failed:`, error)
      await abandonChildren()
    }
  }

  const report = ['']
  for (const section of sections) report.push(...(done[section]?.report ?? [`${section}: FAILED: ${failed[section]}`]), '')
  for (const section of sections) report.push(...(done[section]?.checks.map(checkLine) ?? []))
  console.log([...report, ''].join('\n'))

  const file = sections.length === SECTIONS.length ? 'bench.json' : `bench-${sections.join('-')}.json`
  const out = join(ROOT, 'dist', file)
  mkdirSync(join(ROOT, 'dist'), { recursive: true })
  const results: Record<string, unknown> = { at: new Date().toISOString(), machine: info, sections }
  if (done.api) Object.assign(results, done.api.results)
  if (done.delivery) results.delivery = done.delivery.results
  results.checks = sections.flatMap((section) => done[section]?.checks ?? [])
  if (Object.keys(failed).length > 0) results.failed = failed
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`)
  console.log(`results written to ${out}`)
  if (Object.keys(failed).length > 0) {
    console.error(`bench sections failed: ${Object.keys(failed).join(', ')}`)
    process.exitCode = 1
  }
}

if (import.meta.main) {
  try {
    await main()
  } catch (error) {
    console.error('bench failed:', error)
    process.exitCode = 1
  } finally {
    cleanup()
  }
}
