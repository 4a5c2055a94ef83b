// Delivery through the hub, for the delivery section: jobs submitted to its public API and timed to
// the sinks standing in for its printers: latency at a steady rate (to the first byte, to COMPLETED,
// and where the time goes) and jobs per second in a burst until every job is COMPLETED.
//
// A job's COMPLETED time is the hub's own timestamp (its `updatedAt`, whole milliseconds of the same
// wall clock, taken at the middle of its millisecond), read through the public list route.
import type { PrintDocument } from '../src/protocol/document.ts'
import type { Job, ListJobsResponse } from '../src/protocol/job.ts'
import { round, sleep } from './bench-hub.ts'
import { summarize } from './bench-load.ts'
import {
  atTheSink,
  benchDocument,
  type BurstResult,
  type BurstSpec,
  connectionsOf,
  latencies,
  type SteadyResult,
  type SteadySpec,
  steady,
  type Submitted,
  type TcpSink,
} from './bench-sink.ts'

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

// ---- The hub's API ----------------------------------------------------------------------------

export interface HubApi {
  url: string
  projectId: string
  apiKey: string
}

async function submitJob(
  hub: HubApi,
  printerId: string,
  idempotencyKey: string,
  document: PrintDocument,
): Promise<Omit<Submitted, 'sentAt'>> {
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
  if (response.status !== 200)
    throw new Error(`GET jobs?state=${state} answered ${response.status}: ${await response.text()}`)
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
async function settle(
  hub: HubApi,
  timeoutMs: number,
): Promise<{ completed: Job[]; unsuccessful: number; settled: boolean }> {
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
  const [completed, ...failed] = await Promise.all([
    listJobs(hub, 'COMPLETED'),
    ...UNSUCCESSFUL.map((state) => listJobs(hub, state)),
  ])
  return { completed: completed!, unsuccessful: failed.reduce((sum, jobs) => sum + jobs.length, 0), settled }
}

// ---- Steady rate: latency ---------------------------------------------------------------------

const mean = (values: Float64Array): number =>
  values.length === 0 ? NaN : values.reduce((sum, v) => sum + v, 0) / values.length

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
/** One of the slowest jobs to their first byte: when in the run it was sent, and when each step came after. */
export interface SlowJob {
  sentAfterS: number
  createdMs?: number
  receivedByAgentMs?: number
  firstByteMs: number
}

export async function hubSteady(
  hub: HubApi,
  printerId: string,
  sink: TcpSink,
  spec: SteadySpec,
): Promise<SteadyResult & { breakdownMs: Breakdown; slowest: SlowJob[] }> {
  const runId = `${spec.tag}-${Date.now().toString(36)}`
  const completed = new Map<string, Job>() // job ID -> the job as first seen COMPLETED
  const perfOfHubTime = (iso: string | null) => (iso === null ? undefined : Date.parse(iso) + 0.5 - wallOf(0))
  // Newest 100 per poll; at 50 jobs/s, a poll every 25 jobs sees each completion at least once.
  const everyJobs = Math.max(1, Math.floor(spec.ratePerSecond / 2))
  const poll = async () => {
    for (const job of await listJobs(hub, 'COMPLETED')) if (!completed.has(job.id)) completed.set(job.id, job)
  }
  const run = await steady(spec, sink, (i) => submitJob(hub, printerId, `${runId}-${i}`, benchDocument(spec.tag, i)), {
    everyJobs,
    run: poll,
  })
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
  if (completedAt.missing > 0)
    sinkSide.result.errorSamples.push(`${completedAt.missing} measured jobs were not seen COMPLETED`)
  const breakdownMs: Breakdown = {
    created: mean(latencies(spec, run.submitted, (i) => perfOfHubTime(jobOf(i)?.createdAt ?? null)).values),
    receivedByAgent: mean(latencies(spec, run.submitted, (i) => perfOfHubTime(jobOf(i)?.receivedAt ?? null)).values),
    firstByte: mean(firstByte.values),
    lastByte: mean(lastByte.values),
    submitted: mean(latencies(spec, run.submitted, (i) => perfOfHubTime(jobOf(i)?.submittedAt ?? null)).values),
    completed: mean(completedAt.values),
  }
  for (const key of Object.keys(breakdownMs) as (keyof Breakdown)[]) breakdownMs[key] = round(breakdownMs[key], 2)
  // The tail: where the five slowest first bytes lost their time (a stall before the hub had the job, in its commit, or
  // after).
  const after = (i: number, at: number | undefined) =>
    at === undefined ? undefined : round(at - run.submitted[i]!.sentAt, 2)
  const slowest = run.submitted
    .map((_, i) => ({ i, firstByteMs: i < spec.warmupJobs ? undefined : after(i, run.byIndex.get(i)?.firstByteAt) }))
    .filter((job): job is { i: number; firstByteMs: number } => job.firstByteMs !== undefined)
    .sort((a, b) => b.firstByteMs - a.firstByteMs)
    .slice(0, 5)
    .map(({ i, firstByteMs }) => ({
      sentAfterS: round((run.submitted[i]!.sentAt - run.submitted[spec.warmupJobs]!.sentAt) / 1000, 2),
      createdMs: after(i, perfOfHubTime(jobOf(i)?.createdAt ?? null)),
      receivedByAgentMs: after(i, perfOfHubTime(jobOf(i)?.receivedAt ?? null)),
      firstByteMs,
    }))
  return {
    ...sinkSide.result,
    completedMs: summarize(completedAt.values),
    breakdownMs,
    slowest,
    errors: Math.max(firstByte.missing, completedAt.missing),
  }
}

// ---- As fast as possible: throughput ----------------------------------------------------------

/** The hub: `jobs` jobs round robin over `printers`, submitted as fast as `concurrency` clients go. */
export async function hubBurst(
  hub: HubApi,
  printers: readonly { printerId: string; sink: TcpSink }[],
  spec: BurstSpec,
): Promise<BurstResult> {
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
        submitted[i] = {
          sentAt,
          ...(await submitJob(hub, printers[i % printers.length]!.printerId, `${runId}-${i}`, documents[i]!)),
        }
      }
    }),
  )
  const submitDone = performance.now()
  const accepted = submitted.filter((s) => s.status === 202).length
  // Each printer's share of the accepted jobs.
  const shares = printers.map(
    (_, p) => submitted.filter((s, i) => s.status === 202 && i % printers.length === p).length,
  )
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
  const lastCompleted =
    completed.length > 0 ? Math.max(...completed.map((job) => Date.parse(job.updatedAt))) + 0.5 : wallOf(sinkDone)
  const seconds = (lastCompleted - startWall) / 1000
  const errorSamples = submitted
    .filter((s) => s.error)
    .slice(0, 5)
    .map((s) => s.error!)
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
