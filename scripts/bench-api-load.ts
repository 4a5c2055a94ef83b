// The loads of the API section (scripts/bench-api.ts): their settings, the load generator (wrk
// when it is installed, else scripts/bench-load.ts in its own process), running one while the
// hub's RSS is sampled, the yardsticks measured under the same loads, and a load's report lines.
import { Database } from 'bun:sqlite'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { snapshotDatabase } from '../src/sqlite/database.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import { sized, spawn, withYardstick } from './bench-hub.ts'
import type { LoadResult, LoadSpec } from './bench-load.ts'
import { demoPrinterId } from './bench-seed.ts'
import { runWrk, wrkPath } from './bench-wrk.ts'

/** The loads of /health and the submissions. */
export const LOAD = {
  concurrency: 50,
  warmupMs: sized(1_000, 500),
  durationMs: sized(5_000, 2_000),
  maxRequests: 2_000_000,
} as const
/** The loads of the job list. */
export const LIST_LOAD = {
  concurrency: 4,
  warmupMs: 500,
  durationMs: 30_000,
  maxRequests: sized(4_000, 1_000),
} as const
export const RSS_SAMPLE_MS = 100
/** Beyond its own deadline, a load process gets this long (start-up, abort grace) before it is killed. */
const LOAD_SLACK_MS = 15_000

// ---- Load -------------------------------------------------------------------------------------

/**
 * The load generator of the throughput figures: wrk when it is installed (the hub's targets were
 * set with it), else bench-load.ts, which needs more CPU than the hub and so measures less of it.
 */
export const GENERATOR = wrkPath() ? 'wrk' : 'bench-load.ts'

/** Runs one load with `generator`, calling `during` every RSS_SAMPLE_MS while it runs, and returns its figures. */
export async function runLoad(
  spec: LoadSpec,
  during?: () => void,
  generator: 'wrk' | 'bench-load.ts' = 'bench-load.ts',
): Promise<LoadResult> {
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
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ])
    if (code !== 0) throw new Error(`load generator exited with ${code}: ${stderr}`)
    return JSON.parse(stdout) as LoadResult
  } finally {
    clearTimeout(killer)
  }
}

// ---- Yardsticks -------------------------------------------------------------------------------

/**
 * The list's yardstick: the same page from scripts/bench-list-floor.ts (Bun.serve and bun:sqlite
 * alone, the hub's query and projection) under the same load, on the same database.
 */
export function listFloor(dir: string, projectId: string): Promise<{ all: LoadResult; pending: LoadResult }> {
  return withYardstick(['scripts/bench-list-floor.ts', join(dir, DATABASE_FILE), projectId], 'list', async (url) => ({
    all: await runLoad({ ...LIST_LOAD, url, method: 'GET', expectStatus: 200 }),
    pending: await runLoad({ ...LIST_LOAD, url: `${url}?state=PENDING`, method: 'GET', expectStatus: 200 }),
  }))
}

/**
 * The submissions' yardstick: scripts/bench-submit-floor.ts (Bun.serve and bun:sqlite alone, the
 * hub's INSERTs, no flush) over a copy of the hub's database, under the same load as the hub.
 */
export async function submitFloor(dir: string, projectId: string, bodyTemplate: string): Promise<LoadResult> {
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
      runLoad(
        {
          ...LOAD,
          url,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          bodyTemplate,
          expectStatus: 202,
        },
        undefined,
        GENERATOR,
      ),
    )
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true })
  }
}

// ---- Report lines -----------------------------------------------------------------------------

/** A load's figures on one line of the report. */
export function describeLoad(name: string, result: LoadResult): string {
  const l = result.latencyMs
  const errors = result.errors === 0 ? 'no errors' : `${result.errors} ERRORS ${JSON.stringify(result.statuses)}`
  return (
    `${name.padEnd(30)} ${String(result.rate).padStart(7)} req/s   p50 ` +
    `${l.p50.toFixed(2)} ms   p99 ${l.p99.toFixed(2)} ms   max ` +
    `${l.max.toFixed(1)} ms   (${result.ok} ok, ${errors})`
  )
}

/** The statuses and samples of a load's errors, when it had any. */
export function errorDetail(name: string, result: LoadResult): string[] {
  return result.errors === 0
    ? []
    : [`  ${name} errors: ${JSON.stringify(result.statuses)}`, ...result.errorSamples.map((s) => `    ${s}`)]
}
