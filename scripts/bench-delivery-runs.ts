// The runs of the delivery section (scripts/bench-delivery.ts): their sizes, the TCP sinks standing
// in for printers (stopped when the bench ends or a section fails), a fresh hub with tcp:// printers
// for each run, and the one-printer yardstick (bench-delivery-floor.ts) over a copy of its database.
import { hubBurst, hubSteady } from './bench-delivery-hub.ts'
import {
  AGENT_PICKUP_TIMEOUT_MS,
  cli,
  cpuMs,
  type HubProcess,
  initDataDir,
  newDataDir,
  removeDataDir,
  sized,
  startHub,
  waitForAgentPrinters,
  withYardstick,
} from './bench-hub.ts'
import { type BurstResult, type SteadyResult, TcpSink } from './bench-sink.ts'

/** Delivery: the steady-rate latency run, the bursts for throughput, and the CUPS reference runs. */
export const DELIVERY = {
  steady: { tag: 'lat', ratePerSecond: 50, warmupJobs: 50, jobs: sized(500, 200) },
  /** Each run gets a fresh hub, warmed up with these jobs over its printers first. */
  warmup: { tag: 'warm', jobs: 100, concurrency: 8 },
  onePrinter: { tag: 'one', jobs: sized(2_000, 1_000), concurrency: 16 },
  fourPrinters: { tag: 'four', jobs: sized(4_000, 2_000), concurrency: 16 },
  // CUPS's latency at a modest rate (it queues at 50/s on a small machine), its throughput with
  // 8 lp processes at once.
  cupsSteady: { tag: 'cupslat', ratePerSecond: 10, warmupJobs: 10, jobs: 150 },
  cupsBurst: { tag: 'cupsone', jobs: 400, concurrency: 8 },
  pickupTimeoutMs: AGENT_PICKUP_TIMEOUT_MS,
} as const

// ---- Sinks ------------------------------------------------------------------------------------

/** The sinks of the running delivery hub (and CUPS), stopped when the bench ends or a section fails. */
const sinks = new Set<TcpSink>()

function newSink(name: string): TcpSink {
  const sink = new TcpSink(name)
  sinks.add(sink)
  return sink
}

/** Stops every sink still listening. Synchronous: safe in a signal handler. */
export function stopSinks(): void {
  for (const sink of sinks) sink.stop()
  sinks.clear()
}

/** Has `sink` stopped with the others when the bench ends. */
export function stopSinkAtTheEnd(sink: TcpSink): void {
  sinks.add(sink)
}

// ---- Fresh hubs with TCP printers ------------------------------------------------------------

/** Adds a printer of the built-in agent with the CLI, as an operator would; returns its record ID. */
async function addTcpPrinter(dir: string, projectId: string, remoteId: string, sink: TcpSink): Promise<string> {
  const stdout = await cli([
    'printers',
    'add',
    '--project',
    projectId,
    '--id',
    remoteId,
    '--connection',
    sink.url,
    '--data',
    dir,
    '--json',
  ])
  return (JSON.parse(stdout) as { id: string }).id
}

export interface DeliveryHub {
  hub: HubProcess
  api: { url: string; projectId: string; apiKey: string }
  printers: { printerId: string; sink: TcpSink }[]
  /** The printers' record IDs, in the order of `printers`. */
  records: string[]
  dir: string
  stop(): Promise<void>
}

/**
 * A fresh hub (new data directory, so every run starts with empty stores and an empty agent
 * ledger) with one TCP printer per name, added with the CLI while it runs, reported by its
 * built-in agent, and warmed up.
 */
export async function deliveryHub(names: readonly string[]): Promise<DeliveryHub> {
  const dir = newDataDir()
  const project = await initDataDir(dir)
  const printers = names.map((name) => ({ printerId: name, sink: newSink(name) }))
  const hub = await startHub(dir)
  const records: string[] = []
  for (const { printerId, sink } of printers) records.push(await addTcpPrinter(dir, project.projectId, printerId, sink))
  const pickupMs = await waitForAgentPrinters(dir, records)
  const api = { url: hub.url, projectId: project.projectId, apiKey: project.apiKey }
  const warmup = await hubBurst(api, printers, DELIVERY.warmup)
  if (warmup.errors + warmup.repeats > 0) throw new Error(`delivery warm-up failed: ${warmup.errorSamples.join('; ')}`)
  console.log(
    `  hub pid ${hub.pid} at ${hub.url}: its built-in agent reported ` +
      `${names.length} new TCP printer(s) after ${(pickupMs / 1000).toFixed(1)} ` +
      `s; warmed up with ${DELIVERY.warmup.jobs} jobs`,
  )
  return {
    hub,
    api,
    printers,
    records,
    dir,
    async stop() {
      await hub.stop()
      for (const { sink } of printers) {
        sink.stop()
        sinks.delete(sink)
      }
      removeDataDir(dir)
    },
  }
}

/**
 * The one-printer yardstick: scripts/bench-delivery-floor.ts (Bun.serve and bun:sqlite alone, the
 * hub's INSERTs and state changes, the guarantees' flushes and the status asked before each job)
 * over a copy of a hub's database, warmed up and loaded as the hub was, to a sink of its own.
 */
export async function deliveryFloor(
  copy: string,
  recordId: string,
  projectId: string,
): Promise<{ steady: SteadyResult; burst: BurstResult; cpuUsPerJob: number }> {
  const sink = newSink('floor')
  try {
    return await withYardstick(
      ['scripts/bench-delivery-floor.ts', copy, recordId, String(sink.port)],
      'delivery',
      async (url, pid) => {
        const api = { url: url.replace(/\/$/, ''), projectId, apiKey: 'none' }
        // Its first bytes at the steady rate first, as the hub's: the floor of the first byte's tail
        // with the same flushes on the way, on this machine in this minute.
        const steady = await hubSteady(api, recordId, sink, { ...DELIVERY.steady, tag: 'floorlat' })
        const printers = [{ printerId: recordId, sink }]
        const warmup = await hubBurst(api, printers, DELIVERY.warmup)
        if (warmup.errors + warmup.repeats > 0)
          throw new Error(`the delivery yardstick's warm-up failed: ${warmup.errorSamples.join('; ')}`)
        const cpuBefore = cpuMs(pid)
        const burst = await hubBurst(api, printers, DELIVERY.onePrinter)
        return { steady, burst, cpuUsPerJob: ((cpuMs(pid) - cpuBefore) * 1000) / burst.jobs }
      },
    )
  } finally {
    sink.stop()
    sinks.delete(sink)
  }
}
