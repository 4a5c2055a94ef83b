// The failover part of `bun run bench`: a hub (its own process, default settings) with a failover
// destination of two emulated Epson printers on TCP, `kitchen` first and `bar` second. The kitchen
// printer runs out of paper; tickets posted to the destination just then still go to it (the hub
// learns of the paper from the printer's next status answer) and wait there. What is measured is
// the time from the paper running out to each of those tickets printing at the bar, against the
// hub's own figures (status poll 2 s, failover after 10 s); and that none prints twice.
import { PrinterEmulator } from '../src/emulator/emulator.ts'
import { FAILOVER_AFTER_MS, STATUS_POLL_MS } from '../src/domain/settings.ts'
import { findProfile } from '../src/profiles/catalog.ts'
import type { SectionResult } from './bench.ts'
import {
  cli,
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

const TICKETS = sized(10, 4)
const PROFILE = 'epson-tm-t20iii'
const TIMEOUT_MS = 60_000
/** The target: the threshold, plus two status polls to notice, plus a second to print. */
const TARGET_MS = FAILOVER_AFTER_MS.default + 2 * STATUS_POLL_MS.default + 1_000

export async function failoverSection(): Promise<SectionResult> {
  console.log(
    `failover: ${TICKETS} tickets waiting at a printer that ran out of paper, ` +
      `moved to the next of their destination...`,
  )
  const printedAt = new Map<string, { printer: string; at: number }[]>()
  const emulators = Object.fromEntries(
    (['kitchen', 'bar'] as const).map((name) => [
      name,
      PrinterEmulator.listen({
        hostname: '127.0.0.1',
        port: 0,
        profile: findProfile(PROFILE)!,
        width: 80,
        onReceipt: (receipt) => {
          for (const match of new TextDecoder('latin1').decode(receipt.bytes).matchAll(/<ticket (\d+)>/g))
            printedAt.set(match[1]!, [...(printedAt.get(match[1]!) ?? []), { printer: name, at: performance.now() }])
        },
      }),
    ]),
  ) as Record<'kitchen' | 'bar', PrinterEmulator>
  const dir = newDataDir()
  const project = await initDataDir(dir)
  const records: string[] = []
  for (const name of ['kitchen', 'bar'] as const) {
    records.push(
      (
        JSON.parse(
          await cli([
            'printers',
            'add',
            '--project',
            project.projectId,
            '--id',
            name,
            '--connection',
            `tcp://127.0.0.1:${emulators[name].port}`,
            '--profile',
            PROFILE,
            '--data',
            dir,
            '--json',
          ]),
        ) as { id: string }
      ).id,
    )
  }
  const hub = await startHub(dir)
  const api = (path: string, body: unknown) =>
    fetch(`${hub.url}/v1/projects/${project.projectId}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  try {
    await waitForAgentPrinters(dir, records)
    const made = await api('/destinations', { name: 'pass', mode: 'failover', printers: ['kitchen', 'bar'] })
    if (made.status !== 201) throw new Error(`making the destination answered ${made.status}`)
    // Both printers known to print before the paper runs out.
    await sleep(2 * STATUS_POLL_MS.default)
    emulators.kitchen.set({ paper: 'out' })
    const paperOutAt = performance.now()
    const sentTo: string[] = []
    for (let i = 0; i < TICKETS; i++) {
      const answer = await api('/jobs', {
        printerId: 'pass',
        idempotencyKey: `failover-${i}`,
        document: { width: 80, sections: [{ type: 'text', value: `<ticket ${i}>` }, { type: 'cut' }] },
      })
      if (answer.status !== 202) throw new Error(`a ticket was answered ${answer.status}`)
      sentTo.push(((await answer.json()) as { job: { printerId: string } }).job.printerId)
    }
    const deadline = performance.now() + TIMEOUT_MS
    while (performance.now() < deadline && printedAt.size < TICKETS) await sleep(100)
    const atKitchenFirst = sentTo.filter((printerId) => printerId === records[0]).length
    const times = [...printedAt.values()].map((prints) => prints[0]!.at - paperOutAt)
    const twice = [...printedAt.values()].filter((prints) => prints.length > 1).length
    const missing = TICKETS - printedAt.size
    const latency = summarize(Float64Array.from(times))
    return {
      report: [
        `failover (a destination of two emulated ${PROFILE}, ${TICKETS} tickets ` +
          `posted as the first runs out of paper; status poll ` +
          `${STATUS_POLL_MS.default} ms, failover after ` +
          `${FAILOVER_AFTER_MS.default} ms)`,
        `tickets given to the printer out of paper (before the hub knew): ${atKitchenFirst} of ${TICKETS}`,
        `paper out -> printed at the other printer   p50 ` +
          `${(latency.p50 / 1000).toFixed(2)} s   max ` +
          `${(latency.max / 1000).toFixed(2)} s; ${missing} missing, ${twice} ` +
          `printed twice`,
      ],
      checks: [
        {
          name: 'paper out -> printed elsewhere, max',
          value: round(latency.max / 1000, 2),
          unit: ' s',
          target: `< ${TARGET_MS / 1000} s`,
          pass: missing === 0 && latency.max < TARGET_MS,
        },
        { name: 'tickets printed twice', value: twice, unit: '', target: '0', pass: twice === 0 },
      ],
      results: {
        tickets: TICKETS,
        atKitchenFirst,
        latencyMs: latency,
        missing,
        twice,
        statusPollMs: STATUS_POLL_MS.default,
        failoverAfterMs: FAILOVER_AFTER_MS.default,
      },
    }
  } finally {
    await hub.stop()
    for (const emulator of Object.values(emulators)) emulator.stop()
    removeDataDir(dir)
  }
}
