// The API section of `bun run bench`: the hub as its own process, driven by load processes
// (scripts/bench-load.ts): GET /health and durable job submissions per second with their latency,
// the job list over 1,000,000 seeded jobs, and the hub's RSS idle and under load (run from source;
// the executable's idle RSS is held to its target in scripts/bench-binary.ts). The loads and their
// yardsticks are in scripts/bench-api-load.ts, the seeding in scripts/bench-seed.ts.
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import type { ListJobsResponse } from '../src/protocol/job.ts'
import { JOB_LIST_LIMIT } from '../src/protocol/limits.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import type { Check, Machine, SectionResult } from './bench.ts'
import {
  describeLoad,
  errorDetail,
  GENERATOR,
  LIST_LOAD,
  LOAD,
  listFloor,
  RSS_SAMPLE_MS,
  runLoad,
  submitFloor,
} from './bench-api-load.ts'
import {
  type HubProcess,
  initDataDir,
  ms,
  newDataDir,
  removeDataDir,
  round,
  rssMb,
  sized,
  sleep,
  startHub,
} from './bench-hub.ts'
import { KEY_PLACEHOLDER } from './bench-load.ts'
import { seedJobs } from './bench-seed.ts'

/** The jobs the list is measured over. */
const SEED_JOBS = sized(1_000_000, 100_000)
const IDLE_SETTLE_MS = 2_000

const TARGETS = { submitToHealthRatio: 0.25, submitP99Ms: 10, listP99Ms: 2 } as const

/** What the submissions post: a café's receipt of 20 sections, the load the targets were set with. */
export const RECEIPT = {
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

  console.log(
    `GET /health: ${LOAD.concurrency} connections of ${GENERATOR}, ` +
      `${LOAD.warmupMs} ms warm-up, ${LOAD.durationMs} ms measured...`,
  )
  const health = await runLoad(
    { ...LOAD, url: `${hub.url}/health`, method: 'GET', expectStatus: 200 },
    undefined,
    GENERATOR,
  )

  console.log(
    `POST jobs: ${LOAD.concurrency} connections of ${GENERATOR}, ` +
      `${LOAD.warmupMs} ms warm-up, ${LOAD.durationMs} ms measured...`,
  )
  let loadedRssMb = rssMb(hub.pid)
  const bodyTemplate = JSON.stringify({
    printerId: project.printerId,
    idempotencyKey: KEY_PLACEHOLDER,
    document: RECEIPT,
  })
  const submit = await runLoad(
    {
      ...LOAD,
      url: jobsUrl(hub),
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      bodyTemplate,
      expectStatus: 202,
    },
    () => (loadedRssMb = Math.max(loadedRssMb, rssMb(hub.pid))),
    GENERATOR,
  )
  await hub.stop()
  console.log(`POST jobs on the yardstick (Bun.serve and bun:sqlite alone, the hub's INSERTs, no flush)...`)
  const submitYardstick = await submitFloor(dataDir, project.projectId, bodyTemplate)

  // 4: list latency over a million stored jobs.
  console.log(`seeding ${SEED_JOBS.toLocaleString('en')} jobs into ${DATABASE_FILE}...`)
  const seed = seedJobs(dataDir, project.projectId, SEED_JOBS)
  console.log(`seeded in ${seed.seconds} s (${seed.rowsPerSecond.toLocaleString('en')} rows/s)`)

  hub = await startHub(dataDir)
  // The list must really read the seeded rows: newest first, a full page, the state filter applied.
  const list = async (query = ''): Promise<ListJobsResponse> => {
    const response = await fetch(jobsUrl(hub, query), { headers: auth, signal: AbortSignal.timeout(10_000) })
    if (response.status !== 200)
      throw new Error(`GET jobs${query} answered ${response.status}: ${await response.text()}`)
    return (await response.json()) as ListJobsResponse
  }
  const all = await list()
  const pending = await list('?state=PENDING')
  if (all.jobs.length !== JOB_LIST_LIMIT || all.jobs[0]?.id !== seed.newestId)
    throw new Error('the job list does not start with the newest seeded job')
  if (pending.jobs.length !== JOB_LIST_LIMIT || pending.jobs.some((job) => job.state !== 'PENDING'))
    throw new Error('the PENDING list is wrong')

  console.log(`GET jobs: ${LIST_LOAD.concurrency} clients, ${LIST_LOAD.maxRequests} requests each list...`)
  const listAll = await runLoad({ ...LIST_LOAD, url: jobsUrl(hub), method: 'GET', headers: auth, expectStatus: 200 })
  const listPending = await runLoad({
    ...LIST_LOAD,
    url: jobsUrl(hub, '?state=PENDING'),
    method: 'GET',
    headers: auth,
    expectStatus: 200,
  })
  // An unchanged page is answered with the bytes made for its first ask (src/http/unchanged-answers.ts),
  // as pollers see it. The same pages asked with `limit=100` are read anew each time (only the
  // specification's pages are kept): the hub's figure for the query itself, beside the yardstick's.
  console.log('GET jobs?limit=100 (the same pages, read anew each time)...')
  const anewAll = await runLoad({
    ...LIST_LOAD,
    url: jobsUrl(hub, `?limit=${JOB_LIST_LIMIT}`),
    method: 'GET',
    headers: auth,
    expectStatus: 200,
  })
  const anewPending = await runLoad({
    ...LIST_LOAD,
    url: jobsUrl(hub, `?state=PENDING&limit=${JOB_LIST_LIMIT}`),
    method: 'GET',
    headers: auth,
    expectStatus: 200,
  })
  const listRssMb = rssMb(hub.pid)
  await hub.stop()
  console.log('GET jobs on the yardstick (Bun.serve and bun:sqlite alone, the same query and projection)...')
  const floor = await listFloor(dataDir, project.projectId)
  removeDataDir(dataDir)

  const ratio = submit.rate / health.rate
  const floorRatio = submitYardstick.rate / health.rate
  const checks: Check[] = [
    {
      name: `submissions / health (yardstick ${round(floorRatio * 100)}%)`,
      value: round(ratio * 100),
      unit: '%',
      target: `>= ${TARGETS.submitToHealthRatio * 100}%`,
      pass: ratio >= TARGETS.submitToHealthRatio,
    },
    {
      name: `submit p99 (yardstick ${ms(submitYardstick.latencyMs.p99)})`,
      value: round(submit.latencyMs.p99, 2),
      unit: ' ms',
      target: `< ${TARGETS.submitP99Ms} ms`,
      pass: submit.latencyMs.p99 < TARGETS.submitP99Ms,
    },
    { name: 'submit errors (non-202)', value: submit.errors, unit: '', target: '0', pass: submit.errors === 0 },
    {
      name:
        `list p99 (${SEED_JOBS.toLocaleString('en')} jobs; read anew ` +
        `${ms(anewAll.latencyMs.p99)}, yardstick ${ms(floor.all.latencyMs.p99)})`,
      value: round(listAll.latencyMs.p99, 2),
      unit: ' ms',
      target: `< ${TARGETS.listP99Ms} ms`,
      pass: listAll.latencyMs.p99 < TARGETS.listP99Ms && listAll.errors + anewAll.errors === 0,
    },
    {
      name:
        `list ?state=PENDING p99 (${SEED_JOBS.toLocaleString('en')} jobs; read ` +
        `anew ${ms(anewPending.latencyMs.p99)}, yardstick ` +
        `${ms(floor.pending.latencyMs.p99)})`,
      value: round(listPending.latencyMs.p99, 2),
      unit: ' ms',
      target: `< ${TARGETS.listP99Ms} ms`,
      pass: listPending.latencyMs.p99 < TARGETS.listP99Ms && listPending.errors + anewPending.errors === 0,
    },
  ]

  const generator =
    GENERATOR === 'wrk'
      ? 'wrk, 2 threads'
      : 'bench-load.ts (wrk is not installed: apt-get install wrk; this one needs more CPU than the hub, ' +
        'so the hub is measured short of its limit)'
  const report = [
    `printhub bench on ${info.cpus} CPUs (${info.cpuModel}), bun ${info.bun}; hub and load generator share these CPUs`,
    `load generator for /health and POST jobs: ${generator}; for the lists: bench-load.ts`,
    describeLoad(`GET /health (${LOAD.concurrency} clients)`, health),
    describeLoad(`POST jobs (${LOAD.concurrency} clients)`, submit),
    describeLoad('  yardstick: INSERTs, no flush', submitYardstick),
    describeLoad(`GET jobs, ${SEED_JOBS / 1000}k stored (${LIST_LOAD.concurrency} cl.)`, listAll),
    describeLoad(`GET jobs?state=PENDING, ${SEED_JOBS / 1000}k (${LIST_LOAD.concurrency} cl.)`, listPending),
    describeLoad('  read anew: ?limit=100', anewAll),
    describeLoad('  read anew: ?state=PENDING&limit', anewPending),
    describeLoad('  yardstick: Bun.serve + query', floor.all),
    describeLoad('  yardstick, ?state=PENDING', floor.pending),
    `${'RSS (from source)'.padEnd(30)} idle ${idleRssMb.toFixed(1)} MB (the ` +
      `executable's, against its target: bench binary), max under submissions ` +
      `${loadedRssMb.toFixed(1)} MB, after list load (1M jobs) ` +
      `${listRssMb.toFixed(1)} MB`,
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
      settings: {
        generator: GENERATOR,
        load: LOAD,
        listLoad: LIST_LOAD,
        seedJobs: SEED_JOBS,
        rssSampleMs: RSS_SAMPLE_MS,
        idleSettleMs: IDLE_SETTLE_MS,
      },
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
