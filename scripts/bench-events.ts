// The event stream part of `bun run bench`: a hub (its own process) with STREAMS readers of its
// event stream open at once, while jobs are submitted to its demo printer at a steady rate. What
// the readers cost the hub (RSS idle and with them open, CPU), how long each job's `job.created`
// takes from the submission to every reader, and that every reader got every event; then the same
// with a webhook (bench-webhooks.ts).
import type { SectionResult } from './bench.ts'
import {
  cpuMs,
  initDataDir,
  newDataDir,
  removeDataDir,
  round,
  rssMb,
  sized,
  sleep,
  startHub,
  submitAtRate,
} from './bench-hub.ts'
import { summarize } from './bench-load.ts'
import { EVENTS_PER_JOB, webhookPhase } from './bench-webhooks.ts'

const STREAMS = sized(500, 100)
const JOBS = sized(200, 50)
const JOBS_PER_SECOND = 20
const TARGETS = { rssMb: 150 } as const
const ARRIVAL_TIMEOUT_MS = 30_000

interface Reader {
  /** When each job's creation event arrived, by job ID. */
  arrivals: Map<string, number>
  close(): void
}

/**
 * One reader of the stream over its own TCP connection (fetch holds at most 256 requests open at
 * once): an HTTP/1.1 GET, the chunked body decoded, and the arrival time of each `job.created`,
 * found without parsing the rest.
 */
async function openReader(url: string, apiKey: string): Promise<Reader> {
  const { hostname, port, pathname } = new URL(url)
  const arrivals = new Map<string, number>()
  const decoder = new TextDecoder()
  let raw = ''
  let headersDone = false
  let text = ''
  let status = 0
  let opened: (() => void) | undefined
  const ready = new Promise<void>((resolve) => (opened = resolve))
  // The chunked body: size lines and data, to the frames of the stream.
  const body = () => {
    for (;;) {
      const line = raw.indexOf('\r\n')
      if (line < 0) return
      const size = Number.parseInt(raw.slice(0, line), 16)
      if (Number.isNaN(size) || raw.length < line + 2 + size + 2) return
      text += raw.slice(line + 2, line + 2 + size)
      raw = raw.slice(line + 2 + size + 2)
    }
  }
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_, bytes) {
        const now = performance.now()
        raw += decoder.decode(bytes, { stream: true })
        if (!headersDone) {
          const end = raw.indexOf('\r\n\r\n')
          if (end < 0) return
          status = Number(raw.slice(9, 12))
          raw = raw.slice(end + 4)
          headersDone = true
          opened?.()
        }
        body()
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const frame = text.slice(0, end)
          text = text.slice(end + 2)
          if (frame.includes('event: job.created')) {
            const id = /"job":\{"id":"(job_[0-9a-f]+)"/.exec(frame)?.[1]
            if (id) arrivals.set(id, now)
          }
        }
      },
      close: () => opened?.(),
      error: () => opened?.(),
    },
  })
  socket.write(
    `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: ` +
      `Bearer ${apiKey}\r\nAccept: text/event-stream\r\n\r\n`,
  )
  await ready
  if (status !== 200) throw new Error(`the event stream answered ${status}`)
  return { arrivals, close: () => socket.end() }
}

export async function eventsSection(): Promise<SectionResult> {
  console.log(
    `events: ${STREAMS} readers of the event stream, ${JOBS} jobs at ${JOBS_PER_SECOND} jobs/s to the demo printer...`,
  )
  const dir = newDataDir()
  const project = await initDataDir(dir)
  const hub = await startHub(dir)
  try {
    await sleep(1_000)
    const idleRssMb = rssMb(hub.pid)
    const url = `${hub.url}/v1/projects/${project.projectId}/events`
    const readers: Reader[] = []
    for (let i = 0; i < STREAMS; i++) readers.push(await openReader(url, project.apiKey))
    await sleep(500)
    const openRssMb = rssMb(hub.pid)
    const cpuBefore = cpuMs(hub.pid)
    const submitted = await submitAtRate(hub.url, project, {
      count: JOBS,
      perSecond: JOBS_PER_SECOND,
      keyPrefix: 'events',
    })
    // Every reader has every creation, or the time is up.
    const deadline = performance.now() + ARRIVAL_TIMEOUT_MS
    while (performance.now() < deadline && readers.some((r) => r.arrivals.size < JOBS)) await sleep(50)
    const cpu = cpuMs(hub.pid) - cpuBefore
    const loadedRssMb = rssMb(hub.pid)
    const latencies: number[] = []
    let missing = 0
    for (const reader of readers) {
      for (const [id, at] of submitted) {
        const arrived = reader.arrivals.get(id)
        if (arrived === undefined) missing++
        else latencies.push(arrived - at)
      }
    }
    for (const reader of readers) reader.close()
    // Then the same hub with a webhook instead of readers.
    const webhooks = await webhookPhase(hub, project)
    const latency = summarize(Float64Array.from(latencies))
    // Every event of a job to every reader.
    const delivered = latencies.length * EVENTS_PER_JOB
    return {
      report: [
        `events (${STREAMS} readers of one project's stream, ${JOBS} jobs at ` +
          `${JOBS_PER_SECOND}/s, each job ${EVENTS_PER_JOB} events to every reader)`,
        `hub RSS                        idle ${idleRssMb.toFixed(1)} MB, ` +
          `${STREAMS} streams open ${openRssMb.toFixed(1)} MB, after the jobs ` +
          `${loadedRssMb.toFixed(1)} MB`,
        `submit -> job.created at every reader   p50 ${latency.p50.toFixed(2)} ms ` +
          `  p99 ${latency.p99.toFixed(2)} ms   max ${latency.max.toFixed(1)} ms ` +
          `(${latencies.length} arrivals, ${missing} missing)`,
        `hub CPU                        ${round(cpu)} ms for ${JOBS} jobs: ` +
          `${round((cpu * 1000) / Math.max(1, delivered), 1)} µs per event sent ` +
          `to a reader`,
        ...webhooks.report,
      ],
      checks: [
        {
          name: `hub RSS with ${STREAMS} event streams`,
          value: round(Math.max(openRssMb, loadedRssMb)),
          unit: ' MB',
          target: `< ${TARGETS.rssMb} MB`,
          pass: Math.max(openRssMb, loadedRssMb) < TARGETS.rssMb,
        },
        { name: 'events missing at a reader', value: missing, unit: '', target: '0', pass: missing === 0 },
        { name: 'webhook deliveries wrong', value: webhooks.wrong, unit: '', target: '0', pass: webhooks.wrong === 0 },
      ],
      results: {
        streams: STREAMS,
        jobs: JOBS,
        jobsPerSecond: JOBS_PER_SECOND,
        rssMb: { idle: round(idleRssMb), open: round(openRssMb), loaded: round(loadedRssMb) },
        latencyMs: latency,
        missing,
        hubCpuMs: round(cpu),
        webhooks: webhooks.results,
      },
    }
  } finally {
    await hub.stop()
    removeDataDir(dir)
  }
}
