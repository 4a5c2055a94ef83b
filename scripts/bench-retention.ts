// The retention part of `bun run bench`: 200,000 jobs through a real store (its SQLite file, its
// group commit, its state machine, the housekeeping that prunes), in this process, under a clock
// that runs 20,000 jobs to a day, with a retention of one day: after the first days the database
// file must stop growing. Also the longest time one pruning step held the event loop.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { Log } from '../src/platform/log.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PrintDocument } from '../src/protocol/document.ts'
import { Housekeeping } from '../src/services/housekeeping.ts'
import { initialize } from '../src/services/init.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import { Store } from '../src/store/store.ts'
import type { SectionResult } from './bench.ts'
import { sized } from './bench-hub.ts'

const JOBS = sized(200_000, 60_000)
const JOBS_PER_DAY = sized(20_000, 10_000)
const RETENTION_DAYS = 1
/** Housekeeping passes in a simulated day (the hub's own runs every minute). */
const PASSES_PER_DAY = 24
const SAMPLE_EVERY = sized(10_000, 5_000)
/** The file may grow by at most this much between the end of the warm-up (two retention periods) and the end. */
const PLATEAU_TOLERANCE = 0.1
/** A pruning step is a few milliseconds of the event loop (p99). */
const TARGET_STEP_MS = 10

const DAY = 86_400_000

/** A 20-line receipt, as the API bench submits. */
function receipt(n: number): PrintDocument {
  return {
    width: 80,
    sections: [
      { type: 'text', value: `Order ${n}`, align: 'center', bold: true },
      ...Array.from({ length: 17 }, (_, i) => ({ type: 'row' as const, left: `${i + 1} x Item ${i + 1}`, right: `${(3.5 + i).toFixed(2)}` })),
      { type: 'divider' },
      { type: 'cut' },
    ],
  }
}

const fileMb = (dir: string) =>
  ['', '-wal'].reduce((sum, suffix) => {
    try {
      return sum + statSync(join(dir, `${DATABASE_FILE}${suffix}`)).size
    } catch {
      return sum
    }
  }, 0) / 1_048_576

export async function retentionSection(): Promise<SectionResult> {
  console.log(`retention: ${JOBS.toLocaleString('en')} jobs through a store at ${JOBS_PER_DAY.toLocaleString('en')} a simulated day, kept ${RETENTION_DAYS} day...`)
  const dir = mkdtempSync(join(tmpdir(), 'printhub-bench-retention-'))
  let clock = Date.parse('2026-01-01T00:00:00Z')
  const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: JOBS, now: () => clock })
  try {
    const { projectId } = await initialize(store, dir)
    const printerId = store.printers.resolve(projectId, 'demo')!.id
    const housekeeping = new Housekeeping(store, { retentionDays: () => RETENTION_DAYS, historyBytesPerProject: () => Number.MAX_SAFE_INTEGER, diskLow: () => false, now: () => clock, log: Log.silent().for('retention') })
    // The longest step of pruning: how long the event loop is held at most.
    const steps: number[] = []
    const prune = store.retention.pruneJobs.bind(store.retention)
    store.retention.pruneJobs = (before, limit) => {
      // The step alone: the flush of what the turn wrote before it is not its cost.
      store.commits.commit()
      const started = performance.now()
      const deleted = prune(before, limit)
      steps.push(performance.now() - started)
      return deleted
    }
    const samples: { jobs: number; day: number; mb: number; kept: number }[] = []
    const started = performance.now()
    for (let n = 1; n <= JOBS; n++) {
      const created = store.jobs.create({ projectId, printerId, idempotencyKey: `bench-${n}`, document: receipt(n), metadata: { order: String(n) }, expiresInMs: DAY, maxAttempts: 5 })
      if (created.kind !== 'created') throw new Error(`job ${n}: ${created.kind}`)
      const attempt = store.jobStates.startAttempt(created.job.id)!
      store.jobStates.markReceived(created.job.id, attempt.attempt, clock)
      store.jobStates.markSubmitted(created.job.id, attempt.attempt, clock, false)
      clock += DAY / JOBS_PER_DAY
      if (n % 500 === 0) await store.commits.durable()
      if (n % Math.round(JOBS_PER_DAY / PASSES_PER_DAY) === 0) await housekeeping.pass()
      if (n % SAMPLE_EVERY === 0) {
        await store.commits.durable()
        samples.push({ jobs: n, day: n / JOBS_PER_DAY, mb: fileMb(dir), kept: store.db.query<{ n: number }, []>('SELECT count(*) AS n FROM jobs').get()!.n })
      }
    }
    const seconds = (performance.now() - started) / 1000
    const warm = samples.find((s) => s.day >= 2 * RETENTION_DAYS)!
    const last = samples.at(-1)!
    const peak = Math.max(...samples.filter((s) => s.day >= warm.day).map((s) => s.mb))
    const growth = (peak - warm.mb) / warm.mb
    steps.sort((a, b) => a - b)
    const longestStep = steps.at(-1) ?? 0
    const p99Step = steps[Math.floor(steps.length * 0.99)] ?? 0
    const round = (value: number, digits = 1) => Number(value.toFixed(digits))
    return {
      report: [
        `retention (in this process: ${JOBS.toLocaleString('en')} jobs created and printed, ${JOBS_PER_DAY.toLocaleString('en')} a simulated day, kept ${RETENTION_DAYS} day, ${Math.round(JOBS / seconds)} jobs/s)`,
        'jobs    day   database+WAL   jobs kept',
        ...samples.map((s) => `${String(s.jobs).padStart(7)}  ${s.day.toFixed(1).padStart(4)}   ${s.mb.toFixed(1).padStart(8)} MB   ${String(s.kept).padStart(8)}`),
        `after the warm-up (day ${warm.day}): ${warm.mb.toFixed(1)} MB, at most ${peak.toFixed(1)} MB since (${(growth * 100).toFixed(1)} %), ${last.mb.toFixed(1)} MB at the end`,
        `pruning steps: ${steps.length}, p50 ${round(steps[Math.floor(steps.length / 2)] ?? 0, 2)} ms, p99 ${round(steps[Math.floor(steps.length * 0.99)] ?? 0, 2)} ms, longest ${round(longestStep, 2)} ms (each measured after the open transaction was committed)`,
      ],
      checks: [
        { name: 'database size flat after warm-up', value: round(growth * 100), unit: ' %', target: `<= ${PLATEAU_TOLERANCE * 100} % growth`, pass: growth <= PLATEAU_TOLERANCE },
        { name: 'pruning step p99', value: round(p99Step, 2), unit: ' ms', target: `< ${TARGET_STEP_MS} ms`, pass: p99Step < TARGET_STEP_MS },
      ],
      results: { jobs: JOBS, jobsPerDay: JOBS_PER_DAY, retentionDays: RETENTION_DAYS, samples, warmMb: warm.mb, peakMb: peak, growth, p99StepMs: p99Step, longestStepMs: longestStep },
    }
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
