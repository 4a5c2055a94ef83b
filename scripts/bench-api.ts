// The API section of `bun run bench`: the hub as its own process, driven by load processes
// (scripts/bench-load.ts): GET /health and durable job submissions per second with their latency,
// the job list over 1,000,000 seeded jobs, and the hub's RSS idle and under load (run from source;
// the executable's idle RSS is held to its target in scripts/bench-binary.ts).
import { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { JOB_STATES, type JobState, type ListJobsResponse } from '../src/protocol/job.ts'
import { EXPIRES_IN_MS, JOB_LIST_LIMIT, MAX_ATTEMPTS } from '../src/protocol/limits.ts'
import { snapshotDatabase } from '../src/sqlite/database.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import type { Check, Machine, SectionResult } from './bench.ts'
import { type HubProcess, initDataDir, ms, newDataDir, removeDataDir, round, rssMb, sized, sleep, spawn, startHub, withYardstick } from './bench-hub.ts'
import { KEY_PLACEHOLDER, type LoadResult, type LoadSpec } from './bench-load.ts'
import { runWrk, wrkPath } from './bench-wrk.ts'

const LOAD = { concurrency: 50, warmupMs: sized(1_000, 500), durationMs: sized(5_000, 2_000), maxRequests: 2_000_000 } as const
const LIST_LOAD = { concurrency: 4, warmupMs: 500, durationMs: 30_000, maxRequests: sized(4_000, 1_000) } as const
const SEED = { jobs: sized(1_000_000, 100_000), batch: 50_000, timeLimitMs: 120_000 } as const
const IDLE_SETTLE_MS = 2_000
const RSS_SAMPLE_MS = 100
/** Beyond its own deadline, a load process gets this long (start-up, abort grace) before it is killed. */
const LOAD_SLACK_MS = 15_000

const TARGETS = { submitToHealthRatio: 0.25, submitP99Ms: 10, listP99Ms: 2 } as const

/** What the submissions post: a café's receipt of 20 sections, the load the targets were set with. */
const RECEIPT = {
  width: 80,
  sections: [
    { type: 'text', value: 'Café Lumière', align: 'center', bold: true },
    { type: 'text', value: '12 rue des Écoles, 75005 Paris', align: 'center' },
    { type: 'divider' },
    { type: 'text', value: 'Table 12 · served by Zoë · 08:42' },
    { type: 'row', left: '2x Flat white', right: '7.00' },
    { type: 'row', left: 'Croissant', right: '2.80' },
    { type: 'row', left: 'Pain au chocolat', right: '3.10' },
    { type: 'row', left: "Jus d'orange pressé", right: '4.50' },
    { type: 'row', left: 'Crème brûlée', right: '6.00' },
    { type: 'row', left: 'Eau pétillante', right: '3.00' },
    { type: 'divider' },
    { type: 'row', left: 'Subtotal', right: '26.40' },
    { type: 'row', left: 'of which VAT 10 %', right: '2.40' },
    { type: 'row', left: 'Total', right: 'EUR 26.40', bold: true },
    { type: 'text', value: 'Paid by card **** 4242' },
    { type: 'feed', lines: 1 },
    { type: 'qr', value: 'https://cafe-lumiere.example/receipt/2026-11-27/0842-12' },
    { type: 'text', value: 'Merci et à bientôt !', align: 'center' },
    { type: 'feed', lines: 2 },
    { type: 'cut' },
  ],
}

/** How long a seeded job stays with its printer before it printed. */
const HELD_FOR_MS = 10 * 60_000

/** What the seeded jobs hold (the list reads no document): short, so that a million of them seed fast. */
const SEED_DOCUMENT = {
  width: 80,
  sections: [
    { type: 'text', value: 'Table 12: 2x Flat white' },
    { type: 'row', left: 'Flat white', right: '7.00' },
    { type: 'cut' },
  ],
}

// ---- Load -------------------------------------------------------------------------------------

/**
 * The load generator of the throughput figures: wrk when it is installed (the hub's targets were
 * set with it), else bench-load.ts, which needs more CPU than the hub and so measures less of it.
 */
const GENERATOR = wrkPath() ? 'wrk' : 'bench-load.ts'

/** Runs one load with `generator`, calling `during` every RSS_SAMPLE_MS while it runs, and returns its figures. */
async function runLoad(spec: LoadSpec, during?: () => void, generator: 'wrk' | 'bench-load.ts' = 'bench-load.ts'): Promise<LoadResult> {
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
  try {
    const result = generator === 'wrk' ? await runWrk(spec) : await runBunLoad(spec)
    if (samplerError) throw samplerError
    return result
  } finally {
    clearInterval(sampler)
  }
}

/** bench-load.ts in its own process. */
async function runBunLoad(spec: LoadSpec): Promise<LoadResult> {
  const child = spawn(['scripts/bench-load.ts', JSON.stringify(spec)])
  const killer = setTimeout(() => child.kill('SIGKILL'), spec.warmupMs + spec.durationMs + LOAD_SLACK_MS)
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    if (code !== 0) throw new Error(`load generator exited with ${code}: ${stderr}`)
    return JSON.parse(stdout) as LoadResult
  } finally {
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

/** The demo printer's record ID. */
function demoPrinterId(db: Database, projectId: string): string {
  const printer = db.query<{ id: string }, [string]>("SELECT id FROM printers WHERE project_id = ? AND remote_id = 'demo'").get(projectId)
  if (!printer) throw new Error('the demo printer is missing')
  return printer.id
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
    const printerId = demoPrinterId(db, projectId)
    const firstSeq = (db.query<{ seq: number | null }, []>('SELECT max(seq) AS seq FROM jobs').get()?.seq ?? 0) + 1

    const insertJob = db.prepare<never, [number, string, string, string, string, JobState, number, number, number, string | null, string | null, number | null, number | null, number, number]>(
      `INSERT INTO jobs (seq, id, project_id, printer_id, idempotency_key, state, expires_at, attempt_count, max_attempts,
         last_error_code, last_error_message, received_at, submitted_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    const insertDocument = db.prepare<never, [number, string]>('INSERT INTO job_documents (job_seq, document) VALUES (?, ?)')
    const document = JSON.stringify(SEED_DOCUMENT)
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
        // Round robin over the 8 states, as a hub would have left them: a job left waiting past its
        // expiry is EXPIRED (so only the last day's jobs are PENDING or DISPATCHING), and one its
        // printer had for more than a few minutes was printed (a printer that cannot print fails its
        // jobs back to the hub): COMPLETED. The hub's own agent holds the jobs its rows say it holds.
        const createdAt = firstCreatedAt + i * spacingMs
        const dealt = JOB_STATES[i % JOB_STATES.length]!
        const waiting = dealt === 'PENDING' || dealt === 'DISPATCHING'
        const held = dealt === 'DELIVERED' || dealt === 'PRINTING'
        const state = waiting && createdAt + EXPIRES_IN_MS.default <= seededAt ? 'EXPIRED' : held && createdAt + HELD_FOR_MS <= seededAt ? 'COMPLETED' : dealt
        const failed = state === 'FAILED'
        const id = `job_${Bun.randomUUIDv7('hex', createdAt).replace(/-/g, '')}`
        insertJob.run(
          seq,
          id,
          projectId,
          printerId,
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

/**
 * The list's yardstick: the same page from scripts/bench-list-floor.ts (Bun.serve and bun:sqlite
 * alone, the hub's query and projection) under the same load, on the same database.
 */
function listFloor(dir: string, projectId: string): Promise<{ all: LoadResult; pending: LoadResult }> {
  return withYardstick(['scripts/bench-list-floor.ts', join(dir, DATABASE_FILE), projectId], 'list', async (url) => ({
    all: await runLoad({ ...LIST_LOAD, url, method: 'GET', expectStatus: 200 }),
    pending: await runLoad({ ...LIST_LOAD, url: `${url}?state=PENDING`, method: 'GET', expectStatus: 200 }),
  }))
}

/**
 * The submissions' yardstick: scripts/bench-submit-floor.ts (Bun.serve and bun:sqlite alone, the
 * hub's INSERTs, no flush) over a copy of the hub's database, under the same load as the hub.
 */
async function submitFloor(dir: string, projectId: string, bodyTemplate: string): Promise<LoadResult> {
  const copy = join(dir, 'submit-floor.db')
  const source = new Database(join(dir, DATABASE_FILE), { readonly: true, strict: true })
  let printerId: string
  try {
    printerId = demoPrinterId(source, projectId)
  } finally {
    source.close()
  }
  snapshotDatabase(join(dir, DATABASE_FILE), copy)
  try {
    return await withYardstick(['scripts/bench-submit-floor.ts', copy, printerId], "submissions'", (url) =>
      runLoad({ ...LOAD, url, method: 'POST', headers: { 'content-type': 'application/json' }, bodyTemplate, expectStatus: 202 }, undefined, GENERATOR),
    )
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true })
  }
}

// ---- Report lines -----------------------------------------------------------------------------

function describeLoad(name: string, result: LoadResult): string {
  const l = result.latencyMs
  const errors = result.errors === 0 ? 'no errors' : `${result.errors} ERRORS ${JSON.stringify(result.statuses)}`
  return `${name.padEnd(30)} ${String(result.rate).padStart(7)} req/s   p50 ${l.p50.toFixed(2)} ms   p99 ${l.p99.toFixed(2)} ms   max ${l.max.toFixed(1)} ms   (${result.ok} ok, ${errors})`
}

function errorDetail(name: string, result: LoadResult): string[] {
  return result.errors === 0 ? [] : [`  ${name} errors: ${JSON.stringify(result.statuses)}`, ...result.errorSamples.map((s) => `    ${s}`)]
}

// ---- API section ------------------------------------------------------------------------------

export async function apiSection(info: Machine): Promise<SectionResult> {
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

  console.log(`GET /health: ${LOAD.concurrency} connections of ${GENERATOR}, ${LOAD.warmupMs} ms warm-up, ${LOAD.durationMs} ms measured...`)
  const health = await runLoad({ ...LOAD, url: `${hub.url}/health`, method: 'GET', expectStatus: 200 }, undefined, GENERATOR)

  console.log(`POST jobs: ${LOAD.concurrency} connections of ${GENERATOR}, ${LOAD.warmupMs} ms warm-up, ${LOAD.durationMs} ms measured...`)
  let loadedRssMb = rssMb(hub.pid)
  const bodyTemplate = JSON.stringify({ printerId: project.printerId, idempotencyKey: KEY_PLACEHOLDER, document: RECEIPT })
  const submit = await runLoad(
    { ...LOAD, url: jobsUrl(hub), method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, bodyTemplate, expectStatus: 202 },
    () => (loadedRssMb = Math.max(loadedRssMb, rssMb(hub.pid))),
    GENERATOR,
  )
  await hub.stop()
  console.log(`POST jobs on the yardstick (Bun.serve and bun:sqlite alone, the hub's INSERTs, no flush)...`)
  const submitYardstick = await submitFloor(dataDir, project.projectId, bodyTemplate)

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
  // An unchanged page is answered with the bytes made for its first ask (src/http/unchanged-answers.ts),
  // as pollers see it. The same pages asked with `limit=100` are read anew each time (only the
  // specification's pages are kept): the hub's figure for the query itself, beside the yardstick's.
  console.log('GET jobs?limit=100 (the same pages, read anew each time)...')
  const anewAll = await runLoad({ ...LIST_LOAD, url: jobsUrl(hub, `?limit=${JOB_LIST_LIMIT}`), method: 'GET', headers: auth, expectStatus: 200 })
  const anewPending = await runLoad({ ...LIST_LOAD, url: jobsUrl(hub, `?state=PENDING&limit=${JOB_LIST_LIMIT}`), method: 'GET', headers: auth, expectStatus: 200 })
  const listRssMb = rssMb(hub.pid)
  await hub.stop()
  console.log('GET jobs on the yardstick (Bun.serve and bun:sqlite alone, the same query and projection)...')
  const floor = await listFloor(dataDir, project.projectId)
  removeDataDir(dataDir)

  const ratio = submit.rate / health.rate
  const floorRatio = submitYardstick.rate / health.rate
  const checks: Check[] = [
    { name: `submissions / health (yardstick ${round(floorRatio * 100)}%)`, value: round(ratio * 100), unit: '%', target: `>= ${TARGETS.submitToHealthRatio * 100}%`, pass: ratio >= TARGETS.submitToHealthRatio },
    { name: `submit p99 (yardstick ${ms(submitYardstick.latencyMs.p99)})`, value: round(submit.latencyMs.p99, 2), unit: ' ms', target: `< ${TARGETS.submitP99Ms} ms`, pass: submit.latencyMs.p99 < TARGETS.submitP99Ms },
    { name: 'submit errors (non-202)', value: submit.errors, unit: '', target: '0', pass: submit.errors === 0 },
    {
      name: `list p99 (${SEED.jobs.toLocaleString('en')} jobs; read anew ${ms(anewAll.latencyMs.p99)}, yardstick ${ms(floor.all.latencyMs.p99)})`,
      value: round(listAll.latencyMs.p99, 2),
      unit: ' ms',
      target: `< ${TARGETS.listP99Ms} ms`,
      pass: listAll.latencyMs.p99 < TARGETS.listP99Ms && listAll.errors + anewAll.errors === 0,
    },
    {
      name: `list ?state=PENDING p99 (${SEED.jobs.toLocaleString('en')} jobs; read anew ${ms(anewPending.latencyMs.p99)}, yardstick ${ms(floor.pending.latencyMs.p99)})`,
      value: round(listPending.latencyMs.p99, 2),
      unit: ' ms',
      target: `< ${TARGETS.listP99Ms} ms`,
      pass: listPending.latencyMs.p99 < TARGETS.listP99Ms && listPending.errors + anewPending.errors === 0,
    },
  ]

  const report = [
    `printhub bench on ${info.cpus} CPUs (${info.cpuModel}), bun ${info.bun}; hub and load generator share these CPUs`,
    `load generator for /health and POST jobs: ${GENERATOR === 'wrk' ? 'wrk, 2 threads' : 'bench-load.ts (wrk is not installed: apt-get install wrk; this one needs more CPU than the hub, so the hub is measured short of its limit)'}; for the lists: bench-load.ts`,
    describeLoad(`GET /health (${LOAD.concurrency} clients)`, health),
    describeLoad(`POST jobs (${LOAD.concurrency} clients)`, submit),
    describeLoad('  yardstick: INSERTs, no flush', submitYardstick),
    describeLoad(`GET jobs, ${SEED.jobs / 1000}k stored (${LIST_LOAD.concurrency} cl.)`, listAll),
    describeLoad(`GET jobs?state=PENDING, ${SEED.jobs / 1000}k (${LIST_LOAD.concurrency} cl.)`, listPending),
    describeLoad('  read anew: ?limit=100', anewAll),
    describeLoad('  read anew: ?state=PENDING&limit', anewPending),
    describeLoad('  yardstick: Bun.serve + query', floor.all),
    describeLoad('  yardstick, ?state=PENDING', floor.pending),
    `${'RSS (from source)'.padEnd(30)} idle ${idleRssMb.toFixed(1)} MB (the executable's, against its target: bench binary), max under submissions ${loadedRssMb.toFixed(1)} MB, after list load (1M jobs) ${listRssMb.toFixed(1)} MB`,
    `${'seeding'.padEnd(30)} ${seed.jobs.toLocaleString('en')} jobs in ${seed.seconds} s`,
    ...errorDetail('health', health),
    ...errorDetail('submit', submit),
    ...errorDetail('list', listAll),
    ...errorDetail('list PENDING', listPending),
    ...errorDetail('list read anew', anewAll),
    ...errorDetail('list PENDING read anew', anewPending),
  ]
  return {
    report,
    checks,
    results: {
      settings: { generator: GENERATOR, load: LOAD, listLoad: LIST_LOAD, seedJobs: SEED.jobs, rssSampleMs: RSS_SAMPLE_MS, idleSettleMs: IDLE_SETTLE_MS },
      health,
      submit,
      submitToHealthRatio: round(ratio, 4),
      submitYardstick,
      submitYardstickToHealthRatio: round(floorRatio, 4),
      list: { all: listAll, pending: listPending, readAnew: { all: anewAll, pending: anewPending }, yardstick: floor },
      seed: { jobs: seed.jobs, seconds: seed.seconds, rowsPerSecond: seed.rowsPerSecond },
      rssMb: { idle: round(idleRssMb), loadedMax: round(loadedRssMb), afterList: round(listRssMb) },
    },
  }
}
