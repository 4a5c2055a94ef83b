// The retention part of `bun run bench`: 200,000 jobs through a real store (its SQLite file, its
// group commit, its state machine, the housekeeping that prunes), in this process, under a clock
// that runs 20,000 jobs to a day, with a retention of one day: once every bound is reached (two
// retention periods, and the event log at its cap), the database file must stop growing. Pruned
// jobs are remembered by ID for 60 days past the retention, longer than the run: their table's
// growth is shown apart, not counted. Also the longest time one pruning step held the event loop.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { Log } from '../src/platform/log.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PrintDocument } from '../src/protocol/document.ts'
import { sqliteHousekeeping, PRUNED_JOBS_REMEMBERED_DAYS } from '../src/services/housekeeping.ts'
import { initialize } from '../src/services/init.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import { EVENT_RETENTION_DAYS, MAX_EVENTS } from '../src/store/events.ts'
import { Store } from '../src/store/store.ts'
import type { SectionResult } from './bench.ts'
import { sized } from './bench-hub.ts'

// The event log reaches its cap (MAX_EVENTS, about 5 events a job) after about 60,000 jobs.
const JOBS = sized(200_000, 100_000)
const JOBS_PER_DAY = 20_000
const RETENTION_DAYS = 1
/** Housekeeping passes in a simulated day (the hub's own runs every minute). */
const PASSES_PER_DAY = 24
const SAMPLE_EVERY = sized(10_000, 5_000)
/** The file may grow by at most this much between the end of the warm-up (every bound reached) and the end. */
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
      ...Array.from({ length: 17 }, (_, i) => ({
        type: 'row' as const,
        left: `${i + 1} x Item ${i + 1}`,
        right: `${(3.5 + i).toFixed(2)}`,
      })),
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
  console.log(
    `retention: ${JOBS.toLocaleString('en')} jobs through a store at ` +
      `${JOBS_PER_DAY.toLocaleString('en')} a simulated day, kept ` +
      `${RETENTION_DAYS} day...`,
  )
  const dir = mkdtempSync(join(tmpdir(), 'printhub-bench-retention-'))
  let clock = Date.parse('2026-01-01T00:00:00Z')
  const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: JOBS, now: () => clock })
  try {
    const { projectId } = await initialize(store, dir)
    const printerId = store.printers.resolve(projectId, 'demo')!.id
    const housekeeping = sqliteHousekeeping(store, {
      retentionDays: () => RETENTION_DAYS,
      historyBytesPerProject: () => Number.MAX_SAFE_INTEGER,
      diskLow: () => false,
      now: () => clock,
      log: Log.silent().for('retention'),
    })
    // The longest step of pruning: how long the event loop is held at most.
    const steps: number[] = []
    const prune = store.retention.pruneJobs.bind(store.retention)
    store.retention.pruneJobs = (before, limit) => {
      // The step alone. It runs inside the pass's unit of work, within the open group transaction (a deferred change
      // costs no flush of its own): committing here would end that transaction under the unit, as it once did, and
      // the pass then stopped after its first step (the file grew by a third in four days).
      const started = performance.now()
      const deleted = prune(before, limit)
      steps.push(performance.now() - started)
      return deleted
    }
    const samples: { jobs: number; day: number; mb: number; kept: number; events: number; prunedMb: number }[] = []
    const events = store.db.query<{ n: number }, []>('SELECT count(*) AS n FROM events')
    const prunedBytes = store.db.query<{ bytes: number | null }, []>(
      `SELECT sum(pgsize) AS bytes FROM dbstat WHERE name IN ('pruned_jobs',
        'pruned_jobs_by_age', 'sqlite_autoindex_pruned_jobs_1')`,
    )
    const started = performance.now()
    for (let n = 1; n <= JOBS; n++) {
      const created = store.jobs.create({
        projectId,
        printerId,
        idempotencyKey: `bench-${n}`,
        document: receipt(n),
        metadata: { order: String(n) },
        expiresInMs: DAY,
        maxAttempts: 5,
      })
      if (created.kind !== 'created') throw new Error(`job ${n}: ${created.kind}`)
      const attempt = store.jobStates.startAttempt(created.job.id)!
      store.jobStates.markReceived(created.job.id, attempt.attempt, clock)
      store.jobStates.markSubmitted(created.job.id, attempt.attempt, clock, false)
      clock += DAY / JOBS_PER_DAY
      if (n % 500 === 0) await store.commits.durable()
      if (n % Math.round(JOBS_PER_DAY / PASSES_PER_DAY) === 0) await housekeeping.pass()
      if (n % SAMPLE_EVERY === 0) {
        await store.commits.durable()
        const kept = store.db.query<{ n: number }, []>('SELECT count(*) AS n FROM jobs').get()!.n
        samples.push({
          jobs: n,
          day: n / JOBS_PER_DAY,
          mb: fileMb(dir),
          kept,
          events: events.get()!.n,
          prunedMb: (prunedBytes.get()!.bytes ?? 0) / 1_048_576,
        })
      }
    }
    const seconds = (performance.now() - started) / 1000
    // Every bound reached: two retention periods, and the event log at its cap or its age.
    const warm = samples.find(
      (s) => s.day >= 2 * RETENTION_DAYS && (s.events >= MAX_EVENTS || s.day >= EVENT_RETENTION_DAYS),
    )
    if (!warm || warm === samples.at(-1))
      throw new Error('the run ended before every bound was reached: more jobs are needed')
    const last = samples.at(-1)!
    // What the bounds hold: the file less the pruned jobs' IDs, which are kept longer than the run.
    const bounded = (s: (typeof samples)[number]) => s.mb - s.prunedMb
    const peakSample = samples.filter((s) => s.day >= warm.day).reduce((a, b) => (bounded(b) > bounded(a) ? b : a))
    const peak = bounded(peakSample)
    const growth = (peak - bounded(warm)) / bounded(warm)
    const prunedPerJob = ((last.prunedMb - warm.prunedMb) * 1_048_576) / (last.jobs - warm.jobs)
    steps.sort((a, b) => a - b)
    const longestStep = steps.at(-1) ?? 0
    const p99Step = steps[Math.floor(steps.length * 0.99)] ?? 0
    const round = (value: number, digits = 1) => Number(value.toFixed(digits))
    // The pruned jobs' IDs kept at the day's rate, over the retention and the days past it.
    const prunedMbKept = (prunedPerJob * JOBS_PER_DAY * (PRUNED_JOBS_REMEMBERED_DAYS + RETENTION_DAYS)) / 1_048_576
    return {
      report: [
        `retention (in this process: ${JOBS.toLocaleString('en')} jobs created ` +
          `and printed, ${JOBS_PER_DAY.toLocaleString('en')} a simulated day, kept ` +
          `${RETENTION_DAYS} day, ${Math.round(JOBS / seconds)} jobs/s)`,
        "jobs    day   database+WAL   jobs kept     events   pruned jobs' IDs",
        ...samples.map(
          (s) =>
            `${String(s.jobs).padStart(7)}  ${s.day.toFixed(1).padStart(4)}   ` +
            `${s.mb.toFixed(1).padStart(8)} MB   ${String(s.kept).padStart(8)}   ` +
            `${String(s.events).padStart(8)}   ` +
            `${s.prunedMb.toFixed(1).padStart(6)} MB`,
        ),
        `after the warm-up (day ${warm.day}: two retention periods, the event log ` +
          `at its cap): ${bounded(warm).toFixed(1)} MB without the pruned jobs' ` +
          `IDs, at most ${peak.toFixed(1)} MB since (${(growth * 100).toFixed(1)} ` +
          `%); ${last.mb.toFixed(1)} MB in all at the end`,
        `pruned jobs' IDs: ${Math.round(prunedPerJob)} bytes a job, kept ` +
          `${PRUNED_JOBS_REMEMBERED_DAYS} days past the retention ` +
          `(${prunedMbKept.toFixed(0)} MB at ${JOBS_PER_DAY.toLocaleString('en')} jobs a day)`,
        `pruning steps: ${steps.length}, p50 ` +
          `${round(steps[Math.floor(steps.length / 2)] ?? 0, 2)} ms, p99 ` +
          `${round(steps[Math.floor(steps.length * 0.99)] ?? 0, 2)} ms, longest ` +
          `${round(longestStep, 2)} ms (each the step's own time, within the open group transaction)`,
      ],
      checks: [
        {
          name: 'database size flat after warm-up',
          value: round(growth * 100),
          unit: ' %',
          target: `<= ${PLATEAU_TOLERANCE * 100} % growth`,
          pass: growth <= PLATEAU_TOLERANCE,
        },
        {
          name: 'pruning step p99',
          value: round(p99Step, 2),
          unit: ' ms',
          target: `< ${TARGET_STEP_MS} ms`,
          pass: p99Step < TARGET_STEP_MS,
        },
      ],
      results: {
        jobs: JOBS,
        jobsPerDay: JOBS_PER_DAY,
        retentionDays: RETENTION_DAYS,
        samples,
        warmDay: warm.day,
        warmMb: bounded(warm),
        peakMb: peak,
        growth,
        prunedBytesPerJob: prunedPerJob,
        p99StepMs: p99Step,
        longestStepMs: longestStep,
      },
    }
  } finally {
    store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
