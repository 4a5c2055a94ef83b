// The CloudPRNT part of `bun run bench`: a hub (its own process, default settings) with 100
// adopted Star CloudPRNT printers that poll it every second, as Star's printers do, from this
// process. Measured: the hub's CPU for those polls against its CPU for the same number of
// `GET /health` requests in the same run (the cheapest route: the yardstick), the polls' latency,
// and the time from a job's submission (its 202) to the printer's download of it, at that poll
// interval.
import { adoptPollingPrinter } from '../src/services/printers.ts'
import { Store } from '../src/store/store.ts'
import { confinementOf } from '../src/transports/confine.ts'
import type { SectionResult } from './bench.ts'
import { cpuMs, initDataDir, newDataDir, removeDataDir, round, sized, sleep, startHub, waitForAgentPrinters } from './bench-hub.ts'
import { summarize } from './bench-load.ts'

const PRINTERS = sized(100, 20)
const POLL_MS = 1_000
const WINDOW_MS = sized(10_000, 4_000)
const JOBS = sized(40, 10)
/** Submit to download: at most one poll interval, plus what a poll and a download take. */
const DOWNLOAD_TARGET_MS = POLL_MS + 250

const macOf = (i: number) => `00:11:62:be:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`

interface Poller {
  mac: string
  polls: number[]
  downloads: Map<string, number>
  stop(): void
}

/** A printer that polls every POLL_MS (starting at `offsetMs`), fetches what it is offered and confirms it. */
function poller(url: string, mac: string, offsetMs: number): Poller {
  const polls: number[] = []
  const downloads = new Map<string, number>()
  let stopped = false
  const body = JSON.stringify({ statusCode: '200%20OK', printerMAC: mac, printingInProgress: false })
  const once = async () => {
    const started = performance.now()
    const answer = (await (await fetch(`${url}/cloudprnt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()) as { jobReady: boolean; jobToken?: string; clientAction?: unknown[] }
    polls.push(performance.now() - started)
    if (!answer.jobReady) return
    const job = await fetch(`${url}/cloudprnt?mac=${mac}&type=application/vnd.star.starprnt&token=${answer.jobToken}`)
    const bytes = new TextDecoder('latin1').decode(await job.arrayBuffer())
    const ticket = /<job ([\w-]+)>/.exec(bytes)?.[1]
    if (ticket) downloads.set(ticket, performance.now())
    await fetch(`${url}/cloudprnt?mac=${mac}&code=200%20OK&token=${answer.jobToken}`, { method: 'DELETE' })
  }
  const loop = async () => {
    await sleep(offsetMs)
    while (!stopped) {
      const next = performance.now() + POLL_MS
      await once().catch(() => undefined)
      await sleep(Math.max(0, next - performance.now()))
    }
  }
  void loop()
  return { mac, polls, downloads, stop: () => void (stopped = true) }
}

/** The hub's CPU time over `ms`, as a share of one core. */
async function cpuOver(pid: number, ms: number): Promise<number> {
  const before = cpuMs(pid)
  await sleep(ms)
  return (cpuMs(pid) - before) / ms
}

export async function cloudprntSection(): Promise<SectionResult> {
  console.log(`cloudprnt: ${PRINTERS} CloudPRNT printers polling every ${POLL_MS} ms; ${JOBS} jobs from submission to download...`)
  const dir = newDataDir()
  const project = await initDataDir(dir)
  // Adopted before the hub starts, straight into its store (as the CLI would, a hundred times).
  const store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 10_000 })
  const records: string[] = []
  try {
    for (let i = 0; i < PRINTERS; i++) {
      const outcome = adoptPollingPrinter(store, project.projectId, { printer: macOf(i), id: `cp-${i}` }, confinementOf(dir))
      if (outcome.kind !== 'added') throw new Error(`adopting ${macOf(i)}: ${outcome.kind}`)
      records.push(outcome.printer.id)
    }
  } finally {
    store.close()
  }
  const hub = await startHub(dir)
  const pollers: Poller[] = []
  try {
    await waitForAgentPrinters(dir, records)
    await sleep(1_000)
    const idle = await cpuOver(hub.pid, WINDOW_MS)
    // The yardstick: the same number of requests a second to /health, spread the same way.
    let healthStop = false
    const health = Array.from({ length: PRINTERS }, async (_, i) => {
      await sleep((i * POLL_MS) / PRINTERS)
      while (!healthStop) {
        const next = performance.now() + POLL_MS
        await fetch(`${hub.url}/health`).then((r) => r.arrayBuffer()).catch(() => undefined)
        await sleep(Math.max(0, next - performance.now()))
      }
    })
    await sleep(POLL_MS)
    const healthCpu = await cpuOver(hub.pid, WINDOW_MS)
    healthStop = true
    await Promise.all(health)
    for (let i = 0; i < PRINTERS; i++) pollers.push(poller(hub.url, macOf(i), (i * POLL_MS) / PRINTERS))
    // Every printer's first poll asks it who it is; past that, polls are plain.
    await sleep(2 * POLL_MS)
    const pollStart = pollers.reduce((n, p) => n + p.polls.length, 0)
    const pollCpu = await cpuOver(hub.pid, WINDOW_MS)
    const polled = pollers.reduce((n, p) => n + p.polls.length, 0) - pollStart
    const pollLatency = summarize(Float64Array.from(pollers.flatMap((p) => p.polls.slice(2))))
    // Submission to download, one job at a time to printers in turn, at random points of their cycle.
    const submittedAt = new Map<string, number>()
    for (let i = 0; i < JOBS; i++) {
      const ticket = `t${i}`
      const started = performance.now()
      const answer = await fetch(`${hub.url}/v1/projects/${project.projectId}/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ printerId: `cp-${(i * 7) % PRINTERS}`, idempotencyKey: `cloudprnt-${i}`, document: { width: 80, sections: [{ type: 'text', value: `<job ${ticket}>` }, { type: 'cut' }] } }),
      })
      if (answer.status !== 202) throw new Error(`a job was answered ${answer.status}`)
      submittedAt.set(ticket, started)
      await sleep(137)
    }
    const deadline = performance.now() + 15_000
    const downloaded = () => pollers.reduce((n, p) => n + p.downloads.size, 0)
    while (downloaded() < JOBS && performance.now() < deadline) await sleep(50)
    const waits = [...submittedAt].flatMap(([ticket, at]) => pollers.flatMap((p) => (p.downloads.has(ticket) ? [p.downloads.get(ticket)! - at] : [])))
    const download = summarize(Float64Array.from(waits))
    const missing = JOBS - waits.length
    const perPollUs = polled > 0 ? ((pollCpu - idle) * WINDOW_MS * 1000) / polled : NaN
    const perHealthUs = ((healthCpu - idle) * WINDOW_MS * 1000) / ((PRINTERS * WINDOW_MS) / POLL_MS)
    return {
      report: [
        `cloudprnt (${PRINTERS} printers polling every ${POLL_MS} ms; the hub's CPU as a share of one core)`,
        `idle ${(idle * 100).toFixed(1)} %   ${PRINTERS} req/s to /health ${(healthCpu * 100).toFixed(1)} %   ${PRINTERS} polls/s ${(pollCpu * 100).toFixed(1)} % (${polled} polls)`,
        `CPU per poll ${round(perPollUs, 0)} us (per /health request ${round(perHealthUs, 0)} us); poll latency p50 ${pollLatency.p50.toFixed(2)} ms p99 ${pollLatency.p99.toFixed(2)} ms`,
        `submit -> download at a ${POLL_MS} ms poll: p50 ${download.p50.toFixed(0)} ms   p99 ${download.p99.toFixed(0)} ms   max ${download.max.toFixed(0)} ms; ${missing} not downloaded`,
      ],
      checks: [
        { name: `${PRINTERS} printers polling, hub CPU`, value: round(pollCpu * 100, 1), unit: ' %', target: '< 10 % of a core', pass: pollCpu < 0.1 },
        { name: 'CPU per poll / per /health', value: round(perPollUs / perHealthUs, 2), unit: 'x', target: '< 3x', pass: perPollUs / perHealthUs < 3 },
        { name: 'submit -> download, max', value: round(download.max, 0), unit: ' ms', target: `< ${DOWNLOAD_TARGET_MS} ms`, pass: missing === 0 && download.max < DOWNLOAD_TARGET_MS },
      ],
      results: { printers: PRINTERS, pollMs: POLL_MS, idleCpu: idle, healthCpu, pollCpu, polled, perPollUs, perHealthUs, pollLatencyMs: pollLatency, downloadMs: download, missing },
    }
  } finally {
    for (const p of pollers) p.stop()
    await hub.stop()
    removeDataDir(dir)
  }
}
