// The printers-that-poll part of `bun run bench` (`cloudprnt`): a hub (its own process, default
// settings) with 100 adopted Star CloudPRNT printers, then 100 adopted Epson Server Direct Print
// printers, that poll it every second from this process. Measured for each: the hub's CPU for
// those polls against its CPU for the same number of `GET /health` requests in the same run (the
// cheapest route: the yardstick), the polls' latency, and the time from a job's submission (its
// 202) to the printer's download of it, at that poll interval.
import { THE_MACHINE } from '../src/services/actor.ts'
import { HubServices } from '../src/services/hub-services.ts'
import { Store } from '../src/store/store.ts'
import { confinementOf } from '../src/transports/confine.ts'
import type { SectionResult } from './bench.ts'
import {
  cpuMs,
  initDataDir,
  newDataDir,
  removeDataDir,
  round,
  sized,
  sleep,
  startHub,
  waitForAgentPrinters,
} from './bench-hub.ts'
import { summarize } from './bench-load.ts'

const PRINTERS = sized(100, 20)
const POLL_MS = 1_000
const WINDOW_MS = sized(10_000, 4_000)
const JOBS = sized(40, 10)
/** Submit to download: at most one poll interval, plus what a poll and a download take. */
const DOWNLOAD_TARGET_MS = POLL_MS + 250

const macOf = (i: number) =>
  `00:11:62:be:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`

interface Poller {
  polls: number[]
  downloads: Map<string, number>
  stop(): void
}

type Kind = 'cloudprnt' | 'epson-sdp'
const keyOf = (kind: Kind, i: number) => (kind === 'cloudprnt' ? macOf(i) : `SDP${i}`)

/** One poll of a printer: a job fetched (and confirmed) when one is offered; its ticket, if any. */
async function pollOnce(url: string, kind: Kind, key: string): Promise<string | undefined> {
  if (kind === 'epson-sdp') {
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ID: key, ...fields }),
    })
    const xml = await (await fetch(`${url}/epson-sdp`, form({ ConnectionType: 'GetRequest' }))).text()
    if (xml === '') return undefined
    const id = /<printjobid>([^<]+)</.exec(xml)![1]!
    const ticket = /<job ([\w-]+)>/.exec(
      Buffer.from(/<command>([0-9a-f]*)</.exec(xml)![1]!, 'hex').toString('latin1'),
    )?.[1]
    const response =
      `<PrintResponseInfo Version="2.00"><ePOSPrint><Parameter><printjobid>${id}</printjobid></Parameter>` +
      `<PrintResponse><response success="true" code="" ` +
      `status="251854870"/></PrintResponse></ePOSPrint></PrintResponseInfo>`
    await fetch(`${url}/epson-sdp`, form({ ConnectionType: 'SetResponse', ResponseFile: response }))
    return ticket
  }
  const body = JSON.stringify({ statusCode: '200%20OK', printerMAC: key, printingInProgress: false })
  const answer = (await (
    await fetch(`${url}/cloudprnt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  ).json()) as { jobReady: boolean; jobToken?: string }
  if (!answer.jobReady) return undefined
  const job = await fetch(`${url}/cloudprnt?mac=${key}&type=application/vnd.star.starprnt&token=${answer.jobToken}`)
  const ticket = /<job ([\w-]+)>/.exec(new TextDecoder('latin1').decode(await job.arrayBuffer()))?.[1]
  await fetch(`${url}/cloudprnt?mac=${key}&code=200%20OK&token=${answer.jobToken}`, { method: 'DELETE' })
  return ticket
}

/** A printer that polls every POLL_MS (starting at `offsetMs`), fetches what it is offered and says it printed. */
function poller(url: string, kind: Kind, key: string, offsetMs: number): Poller {
  const polls: number[] = []
  const downloads = new Map<string, number>()
  let stopped = false
  const loop = async () => {
    await sleep(offsetMs)
    while (!stopped) {
      const next = performance.now() + POLL_MS
      const started = performance.now()
      const ticket = await pollOnce(url, kind, key).catch(() => undefined)
      if (ticket) downloads.set(ticket, performance.now())
      else polls.push(performance.now() - started)
      await sleep(Math.max(0, next - performance.now()))
    }
  }
  void loop()
  return { polls, downloads, stop: () => void (stopped = true) }
}

/** The hub's CPU time over `ms`, as a share of one core. */
async function cpuOver(pid: number, ms: number): Promise<number> {
  const before = cpuMs(pid)
  await sleep(ms)
  return (cpuMs(pid) - before) / ms
}

/**
 * 100 printers of `kind`, adopted before the hub starts: what their polls cost it, and how soon a job is downloaded.
 */
async function measure(kind: Kind) {
  const dir = newDataDir()
  const project = await initDataDir(dir)
  // Adopted straight into its store (as the CLI would, a hundred times).
  const store = Store.open({ dataDir: dir, create: false, maxOpenJobsPerProject: 10_000 })
  const records: string[] = []
  try {
    for (let i = 0; i < PRINTERS; i++) {
      const outcome = await new HubServices(store).printers.adopt(
        THE_MACHINE,
        project.projectId,
        { printer: keyOf(kind, i), kind, id: `p-${i}` },
        confinementOf(dir),
      )
      if (outcome.kind !== 'added') throw new Error(`adopting ${keyOf(kind, i)}: ${outcome.kind}`)
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
        await fetch(`${hub.url}/health`)
          .then((r) => r.arrayBuffer())
          .catch(() => undefined)
        await sleep(Math.max(0, next - performance.now()))
      }
    })
    await sleep(POLL_MS)
    const healthCpu = await cpuOver(hub.pid, WINDOW_MS)
    healthStop = true
    await Promise.all(health)
    for (let i = 0; i < PRINTERS; i++) pollers.push(poller(hub.url, kind, keyOf(kind, i), (i * POLL_MS) / PRINTERS))
    // A CloudPRNT printer's first poll asks it who it is; past that, polls are plain. An Epson printer's interval is
    // known after two.
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
        body: JSON.stringify({
          printerId: `p-${(i * 7) % PRINTERS}`,
          idempotencyKey: `polling-${i}`,
          document: { width: 80, sections: [{ type: 'text', value: `<job ${ticket}>` }, { type: 'cut' }] },
        }),
      })
      if (answer.status !== 202) throw new Error(`a job was answered ${answer.status}`)
      submittedAt.set(ticket, started)
      await sleep(137)
    }
    const deadline = performance.now() + 15_000
    const downloaded = () => pollers.reduce((n, p) => n + p.downloads.size, 0)
    while (downloaded() < JOBS && performance.now() < deadline) await sleep(50)
    const waits = [...submittedAt].flatMap(([ticket, at]) =>
      pollers.flatMap((p) => (p.downloads.has(ticket) ? [p.downloads.get(ticket)! - at] : [])),
    )
    return {
      idle,
      healthCpu,
      pollCpu,
      polled,
      pollLatency,
      download: summarize(Float64Array.from(waits)),
      missing: JOBS - waits.length,
      perPollUs: polled > 0 ? ((pollCpu - idle) * WINDOW_MS * 1000) / polled : NaN,
      perHealthUs: ((healthCpu - idle) * WINDOW_MS * 1000) / ((PRINTERS * WINDOW_MS) / POLL_MS),
    }
  } finally {
    for (const p of pollers) p.stop()
    await hub.stop()
    removeDataDir(dir)
  }
}

const NAMES: Record<Kind, string> = { cloudprnt: 'CloudPRNT', 'epson-sdp': 'Epson SDP' }

export async function cloudprntSection(): Promise<SectionResult> {
  console.log(
    `cloudprnt: ${PRINTERS} CloudPRNT, then ${PRINTERS} Epson Server Direct ` +
      `Print printers polling every ${POLL_MS} ms; ${JOBS} jobs each from ` +
      `submission to download...`,
  )
  const report: string[] = [
    `printers that poll (${PRINTERS} of a kind, polling every ${POLL_MS} ms; the hub's CPU as a share of one core)`,
  ]
  const checks: SectionResult['checks'] = []
  const results: Record<string, unknown> = { printers: PRINTERS, pollMs: POLL_MS }
  for (const kind of ['cloudprnt', 'epson-sdp'] as const) {
    const m = await measure(kind)
    const name = NAMES[kind]
    report.push(
      `${name}: idle ${(m.idle * 100).toFixed(1)} %   ${PRINTERS} req/s to ` +
        `/health ${(m.healthCpu * 100).toFixed(1)} %   ${PRINTERS} polls/s ` +
        `${(m.pollCpu * 100).toFixed(1)} % (${m.polled} polls)`,
      `${name}: CPU per poll ${round(m.perPollUs, 0)} us (per /health request ` +
        `${round(m.perHealthUs, 0)} us); poll latency p50 ` +
        `${m.pollLatency.p50.toFixed(2)} ms p99 ` +
        `${m.pollLatency.p99.toFixed(2)} ms`,
      `${name}: submit -> download at a ${POLL_MS} ms poll: p50 ` +
        `${m.download.p50.toFixed(0)} ms   p99 ${m.download.p99.toFixed(0)} ms   ` +
        `max ${m.download.max.toFixed(0)} ms; ${m.missing} not downloaded`,
    )
    checks.push(
      {
        name: `${PRINTERS} ${name} polling, hub CPU`,
        value: round(m.pollCpu * 100, 1),
        unit: ' %',
        target: '< 10 % of a core',
        pass: m.pollCpu < 0.1,
      },
      {
        name: `${name} CPU per poll / per /health`,
        value: round(m.perPollUs / m.perHealthUs, 2),
        unit: 'x',
        target: '< 3x',
        pass: m.perPollUs / m.perHealthUs < 3,
      },
      {
        name: `${name} submit -> download, max`,
        value: round(m.download.max, 0),
        unit: ' ms',
        target: `< ${DOWNLOAD_TARGET_MS} ms`,
        pass: m.missing === 0 && m.download.max < DOWNLOAD_TARGET_MS,
      },
    )
    results[kind] = m
  }
  return { report, checks, results }
}
