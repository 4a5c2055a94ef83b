// The hub's performance bench: `bun run bench`.
//
// Runs the hub as its own process on 127.0.0.1 and drives it from a second process
// (scripts/bench-load.ts), then reports, against targets:
//   1. GET /health requests per second (50 clients),
//   2. durable job submissions per second (50 clients) with p50/p99 latency,
//   3. submissions / health (how close a durable write gets to the cheapest route) and submit p99,
//   4. list latency with 1,000,000 stored jobs (seeded straight into SQLite),
//   5. idle and loaded RSS of the hub process.
// Writes the figures to dist/bench.json as well. Exits 1 only when the bench itself fails; a
// missed target is reported, not fatal, since figures depend on the machine.
import { Database } from 'bun:sqlite'
import type { Subprocess } from 'bun'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { MAX_OPEN_JOBS_RANGE } from '../src/hub/config.ts'
import { JOB_STATES, type JobState, type ListJobsResponse } from '../src/protocol/job.ts'
import { EXPIRES_IN_MS, JOB_LIST_LIMIT, MAX_ATTEMPTS } from '../src/protocol/limits.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import { KEY_PLACEHOLDER, type LoadResult, type LoadSpec } from './bench-load.ts'

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

const TARGETS = { submitToHealthRatio: 0.25, submitP99Ms: 10, listP99Ms: 5, idleRssMb: 60 } as const

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
let dataDir: string | undefined

/** Synchronous, so it also works from a signal handler; safe to call twice. */
function cleanup(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  children.clear()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  dataDir = undefined
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
  // The virtual printer never completes jobs, so every submission stays open: lift the limit of
  // unfinished jobs (default 10,000) to its maximum, or submissions would turn into 429s. Half
  // the seeded jobs are unfinished too (counted by a trigger), which stays below that maximum.
  const env = { PRINTHUB_MAX_OPEN_JOBS: String(MAX_OPEN_JOBS_RANGE.max) }
  const child = spawn(['src/main.ts', 'serve', '--host', HOST, '--port', '0', '--data', dir], env)
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

/** `printhub init --json`: the machine-readable way to get the project and its only key. */
async function initDataDir(dir: string): Promise<Project> {
  const child = spawn(['src/main.ts', 'init', '--data', dir, '--json'])
  const limit = timeout(HUB_START_TIMEOUT_MS, 'printhub init')
  const [stdout, stderr, code] = await Promise.race([
    Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]),
    limit.promise,
  ]).finally(limit.cancel)
  if (code !== 0) throw new Error(`printhub init exited with ${code}: ${stderr}`)
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
function seedJobs(dir: string, projectId: string, count: number): SeedResult {
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
    const firstCreatedAt = Date.now() - count * spacingMs
    let newestId = ''

    const insertBatch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const seq = firstSeq + i
        // Round robin over the 8 states, so each state holds an eighth of the jobs.
        const state = JOB_STATES[i % JOB_STATES.length]!
        const createdAt = firstCreatedAt + i * spacingMs
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
          state === 'PENDING' ? 0 : failed ? MAX_ATTEMPTS.default : 1,
          MAX_ATTEMPTS.default,
          failed ? 'printer_offline' : null,
          failed ? 'The printer did not answer.' : null,
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

// ---- Main -------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const info = machine()
  console.log(`printhub bench: ${info.cpus} CPUs (${info.cpuModel}), bun ${info.bun}, ${info.platform}`)
  dataDir = mkdtempSync(join(tmpdir(), 'printhub-bench-'))
  const project = await initDataDir(dataDir)
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
    '',
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
    '',
    ...checks.map(checkLine),
    '',
  ]
  console.log(report.join('\n'))

  const out = join(ROOT, 'dist', 'bench.json')
  mkdirSync(join(ROOT, 'dist'), { recursive: true })
  const results = {
    at: new Date().toISOString(),
    machine: info,
    settings: { load: LOAD, listLoad: LIST_LOAD, seedJobs: SEED.jobs, rssSampleMs: RSS_SAMPLE_MS, idleSettleMs: IDLE_SETTLE_MS },
    health,
    submit,
    submitToHealthRatio: round(ratio, 4),
    list: { all: listAll, pending: listPending },
    seed: { jobs: seed.jobs, seconds: seed.seconds, rowsPerSecond: seed.rowsPerSecond },
    rssMb: { idle: round(idleRssMb), loadedMax: round(loadedRssMb), afterList: round(listRssMb) },
    checks,
  }
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`)
  console.log(`results written to ${out}`)
}

try {
  await main()
} catch (error) {
  console.error('bench failed:', error)
  process.exitCode = 1
} finally {
  cleanup()
}
