// TCP sinks that stand in for receipt printers in the delivery section, and what they measure: the
// connection each job arrives on, matched to its job by a marker, and each job's time from its
// submission to the sink, shared by the hub's runs (bench-delivery-hub.ts) and CUPS's (bench-cups.ts).
//
// Every job's document carries a marker (`PHB-<tag>-<index>-END`, plain ASCII, so it passes the
// ESC/POS renderer unchanged): each connection a sink takes is matched to its job by the marker in
// its bytes, not by order. Times are performance.now() of this process (submission and first byte
// are both seen here).
import type { TCPSocketListener } from 'bun'
import type { PrintDocument } from '../src/protocol/document.ts'
import { round, sleep } from './bench-hub.ts'
import { type LatencySummary, summarize } from './bench-load.ts'

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
          if (state.head.length < MARKER_SEARCH_BYTES)
            state.head += chunk.subarray(0, MARKER_SEARCH_BYTES - state.head.length).toString('latin1')
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
export function connectionsOf(
  sinks: readonly TcpSink[],
  tag: string,
): { byIndex: Map<number, SinkConnection>; repeats: number; unmarked: number } {
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

// ---- Timing jobs to the sink ------------------------------------------------------------------

/** One submission of a timed run (to the hub's API, or an lp command). */
export interface Submitted {
  /** performance.now() just before the request was sent. */
  sentAt: number
  status: number
  jobId?: string
  error?: string
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
export async function steady(
  spec: SteadySpec,
  sink: TcpSink,
  send: (index: number) => Promise<Omit<Submitted, 'sentAt'>>,
  poll?: { everyJobs: number; run: () => Promise<void> },
): Promise<{
  submitted: Submitted[]
  byIndex: Map<number, SinkConnection>
  repeats: number
  unmarked: number
  seconds: number
}> {
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

export function latencies(
  spec: SteadySpec,
  submitted: readonly Submitted[],
  at: (index: number) => number | undefined,
): { values: Float64Array; missing: number } {
  const values: number[] = []
  let missing = 0
  for (let i = spec.warmupJobs; i < submitted.length; i++) {
    const t = at(i)
    if (t === undefined) missing++
    else values.push(t - submitted[i]!.sentAt)
  }
  return { values: Float64Array.from(values), missing }
}

/** What a sink saw of a steady run: first bytes and closes, timed from each submission. */
export function atTheSink(spec: SteadySpec, run: Awaited<ReturnType<typeof steady>>) {
  const firstByte = latencies(spec, run.submitted, (i) => run.byIndex.get(i)?.firstByteAt)
  const closed = latencies(spec, run.submitted, (i) => run.byIndex.get(i)?.closedAt)
  const errorSamples = run.submitted
    .filter((s) => s.error)
    .slice(0, 5)
    .map((s) => s.error!)
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
