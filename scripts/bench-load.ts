// HTTP load generator for scripts/bench.ts. It runs as its own process so that the client's CPU
// work is not counted in the hub's process, and it talks to the hub over real sockets.
//
// Usage: bun scripts/bench-load.ts '<LoadSpec as JSON>'   -> prints one LoadResult as JSON on stdout.
//
// Every worker loop is bounded by a deadline and by a shared request budget, and every fetch is
// aborted shortly after the deadline, so the process always ends.

export interface LoadSpec {
  url: string
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  /** POST only: the JSON body; each occurrence of KEY_PLACEHOLDER becomes a key unique to the request. */
  bodyTemplate?: string
  /** The status every response must have; anything else counts as an error. */
  expectStatus: number
  concurrency: number
  /** Requests run but are not measured for this long first (connections, JIT, SQLite cache). */
  warmupMs: number
  /** The measured window; the run stops at its end even if the request budget is not spent. */
  durationMs: number
  /** Measured requests at most; the run stops when they are done even if time remains. */
  maxRequests: number
}

export interface LatencySummary {
  p50: number
  p90: number
  p99: number
  max: number
  mean: number
}

export interface LoadResult {
  /** Measured requests answered with `expectStatus`. */
  ok: number
  /** Requests (warm-up included) answered with another status or not answered at all. */
  errors: number
  /** Count per status over the whole run; "network" for a failed fetch. */
  statuses: Record<string, number>
  /** A few error bodies, to say why. */
  errorSamples: string[]
  /** Length of the measured window, in seconds. */
  seconds: number
  /** Measured successful requests per second. */
  rate: number
  /** Latency of the measured successful requests, in milliseconds. */
  latencyMs: LatencySummary
}

export const KEY_PLACEHOLDER = '{{key}}'

/** A fetch still running this long after the deadline is aborted (and counted as an error). */
const ABORT_GRACE_MS = 5_000
const MAX_ERROR_SAMPLES = 5

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

export function summarize(latencies: Float64Array): LatencySummary {
  const sorted = latencies.slice().sort()
  let sum = 0
  for (const value of sorted) sum += value
  const round = (ms: number) => Math.round(ms * 1000) / 1000
  return {
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.length > 0 ? sorted[sorted.length - 1]! : NaN),
    mean: round(sorted.length > 0 ? sum / sorted.length : NaN),
  }
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies = new Float64Array(spec.maxRequests)
  const statuses: Record<string, number> = {}
  const errorSamples: string[] = []
  let ok = 0
  let errors = 0
  let started = 0 // measured requests started: the budget is claimed before sending, so it is never exceeded
  let serial = 0

  // The key prefix makes keys unique across runs against the same data directory too.
  const [bodyHead, bodyTail] = (spec.bodyTemplate ?? '').split(KEY_PLACEHOLDER) as [string, string | undefined]
  const runId = `bench-${process.pid}-${Date.now().toString(36)}`
  const nextBody = (): string | undefined => {
    if (spec.method !== 'POST') return undefined
    return bodyTail === undefined ? bodyHead : `${bodyHead}${runId}-${serial++}${bodyTail}`
  }

  const measureFrom = performance.now() + spec.warmupMs
  const deadline = measureFrom + spec.durationMs
  const abort = new AbortController()
  const abortTimer = setTimeout(() => abort.abort(), deadline - performance.now() + ABORT_GRACE_MS)

  const count = (status: string) => {
    statuses[status] = (statuses[status] ?? 0) + 1
  }

  async function worker(): Promise<void> {
    while (performance.now() < deadline) {
      const t0 = performance.now()
      const measured = t0 >= measureFrom
      if (measured && started++ >= spec.maxRequests) return
      try {
        const response = await fetch(spec.url, {
          method: spec.method,
          headers: spec.headers,
          body: nextBody(),
          signal: abort.signal,
        })
        const text = await response.text() // read in full, so the connection is reused and the timing is complete
        const ms = performance.now() - t0
        count(String(response.status))
        if (response.status !== spec.expectStatus) {
          errors++
          if (errorSamples.length < MAX_ERROR_SAMPLES) errorSamples.push(`${response.status} ${text.slice(0, 300)}`)
        } else if (measured) {
          latencies[ok++] = ms
        }
      } catch (error) {
        errors++
        count('network')
        if (errorSamples.length < MAX_ERROR_SAMPLES) errorSamples.push(String(error))
        if (abort.signal.aborted) return
      }
    }
  }

  await Promise.all(Array.from({ length: spec.concurrency }, worker))
  clearTimeout(abortTimer)
  // The window ends at the deadline, or earlier when the request budget ran out first.
  const seconds = (Math.min(performance.now(), deadline) - measureFrom) / 1000
  return {
    ok,
    errors,
    statuses,
    errorSamples,
    seconds: Math.round(seconds * 1000) / 1000,
    rate: Math.round(ok / seconds),
    latencyMs: summarize(latencies.subarray(0, ok)),
  }
}

function parseSpec(raw: string | undefined): LoadSpec {
  if (raw === undefined) throw new Error("usage: bun scripts/bench-load.ts '<LoadSpec JSON>'")
  const spec = JSON.parse(raw) as LoadSpec
  for (const name of ['concurrency', 'warmupMs', 'durationMs', 'maxRequests', 'expectStatus'] as const) {
    if (!Number.isSafeInteger(spec[name]) || spec[name] < 0) throw new Error(`${name} must be a non-negative integer`)
  }
  if (spec.concurrency < 1 || spec.maxRequests < 1) throw new Error('concurrency and maxRequests must be at least 1')
  const host = new URL(spec.url).hostname
  if (host !== '127.0.0.1') throw new Error(`the load generator only targets 127.0.0.1 (got ${host})`)
  return spec
}

if (import.meta.main) {
  const result = await runLoad(parseSpec(process.argv[2]))
  process.stdout.write(`${JSON.stringify(result)}\n`)
}
