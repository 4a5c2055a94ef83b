// The delivery section of `bun run bench`: each run on a fresh hub (its own process, built-in agent,
// tcp:// printers added with the CLI), steady-rate latency and burst throughput to 1 and 4 printers,
// compared with a CUPS raw queue (measured, or the reference figures) and, for one printer,
// with the runtime alone keeping the same guarantees (bench-delivery-floor.ts), and reported.
// The runs themselves (their sizes, sinks and hubs) are in bench-delivery-runs.ts.
import { join } from 'node:path'
import { snapshotDatabase } from '../src/sqlite/database.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import type { Check, Machine, SectionResult } from './bench.ts'
import { cupsBurst, type CupsSetup, cupsSteady, setUpCups, stopCups } from './bench-cups.ts'
import { hubBurst, hubSteady, wallOf } from './bench-delivery-hub.ts'
import { DELIVERY, deliveryFloor, deliveryHub, stopSinkAtTheEnd } from './bench-delivery-runs.ts'
import { cpuMs, ms, newDataDir, removeDataDir, round, rssMb } from './bench-hub.ts'
import type { BurstResult, SteadyResult } from './bench-sink.ts'

/** The reference: a CUPS raw queue to a TCP sink on a 2-vCPU machine. */
const CUPS_REFERENCE = { firstByteP50Ms: 10, jobsPerSecond: 115 } as const
const DELIVERY_TARGETS = {
  firstByteP50TimesLower: 5,
  firstByteP99Ms: 5,
  onePrinterJobsPerSecond: 1_000,
  fourPrintersJobsPerSecond: 1_500,
} as const

// ---- Report lines -----------------------------------------------------------------------------

function failIfErrors(what: string, result: SteadyResult | BurstResult): void {
  if (result.errors === 0 && result.repeats === 0) return
  console.log(`  ${what}: ${result.errors} errors, ${result.repeats} printed twice: ${result.errorSamples.join('; ')}`)
}

function describeSteady(
  name: string,
  what: string,
  l: { p50: number; p99: number; max: number },
  result: SteadyResult,
): string {
  return (
    `${name.padEnd(30)} ${what.padEnd(18)} p50 ${ms(l.p50)}   p99 ` +
    `${ms(l.p99)}   max ${l.max.toFixed(1)} ms   (${result.jobs} jobs at ` +
    `${result.ratePerSecond}/s, ${result.errors} errors)`
  )
}

function describeBurst(name: string, result: BurstResult, finish: string): string {
  return (
    `${name.padEnd(30)} ${String(result.jobsPerSecond).padStart(7)} jobs/s  ` +
    `${result.jobs} jobs in ${result.seconds} s until ${finish} (all ` +
    `submitted after ${result.submitSeconds} s, then ` +
    `${result.drainJobsPerSecond} jobs/s; ${result.concurrency} clients, ` +
    `${result.errors} errors)`
  )
}

// ---- Delivery section -------------------------------------------------------------------------

export async function deliverySection(info: Machine): Promise<SectionResult> {
  wallOf(0) // calibrates the wall clock before any timing
  const s = DELIVERY.steady
  console.log(`delivery latency: ${s.warmupJobs} + ${s.jobs} jobs at ${s.ratePerSecond} jobs/s to one printer...`)
  let run = await deliveryHub(['one'])
  const steady = await hubSteady(run.api, 'one', run.printers[0]!.sink, s)
  failIfErrors('latency', steady)
  await run.stop()

  console.log(
    `delivery throughput: ${DELIVERY.onePrinter.jobs} jobs to one printer, ` +
      `${DELIVERY.onePrinter.concurrency} clients...`,
  )
  run = await deliveryHub(['one'])
  let cpuBefore = cpuMs(run.hub.pid)
  const onePrinter = await hubBurst(run.api, run.printers, DELIVERY.onePrinter)
  // What carries over to a Raspberry Pi: the hub's CPU time for each job, submission to COMPLETED.
  const oneCpuUsPerJob = ((cpuMs(run.hub.pid) - cpuBefore) * 1000) / onePrinter.jobs
  failIfErrors('one printer', onePrinter)
  // The yardstick's database: a copy of this hub's (its schema, project and printer record).
  const floorDir = newDataDir()
  const floorCopy = join(floorDir, 'delivery-floor.db')
  snapshotDatabase(join(run.dir, DATABASE_FILE), floorCopy)
  const floorPrinter = run.records[0]!
  await run.stop()

  console.log(
    `delivery throughput, the yardstick: ${DELIVERY.onePrinter.jobs} jobs to ` +
      `one printer, ${DELIVERY.onePrinter.concurrency} clients...`,
  )
  let floor: { steady: SteadyResult; burst: BurstResult; cpuUsPerJob: number }
  try {
    floor = await deliveryFloor(floorCopy, floorPrinter, run.api.projectId)
  } finally {
    removeDataDir(floorDir)
  }
  const oneFloor = floor.burst
  failIfErrors('the one-printer yardstick', oneFloor)
  failIfErrors('the yardstick at a steady rate', floor.steady)

  console.log(
    `delivery throughput: ${DELIVERY.fourPrinters.jobs} jobs round robin to 4 ` +
      `printers, ${DELIVERY.fourPrinters.concurrency} clients...`,
  )
  run = await deliveryHub(['p1', 'p2', 'p3', 'p4'])
  cpuBefore = cpuMs(run.hub.pid)
  const fourResult = await hubBurst(run.api, run.printers, DELIVERY.fourPrinters)
  const fourCpuUsPerJob = ((cpuMs(run.hub.pid) - cpuBefore) * 1000) / fourResult.jobs
  failIfErrors('4 printers', fourResult)
  const hubRssMb = rssMb(run.hub.pid)
  await run.stop()

  // CUPS, after the hub stopped, so the two never share the CPUs.
  console.log('CUPS: looking for lp, lpadmin and a running cupsd...')
  const setup: CupsSetup = await setUpCups()
  let cups: { version: string; startedScheduler: boolean; steady: SteadyResult; onePrinter: BurstResult } | undefined
  if (setup.ok) {
    stopSinkAtTheEnd(setup.cups.sink)
    const files = join(newDataDir(), 'cups-jobs')
    const c = DELIVERY.cupsSteady
    console.log(
      `CUPS ${setup.cups.version} latency: ${c.warmupJobs} + ${c.jobs} jobs at ` +
        `${c.ratePerSecond} jobs/s with lp -o raw to queue ${setup.cups.queue}...`,
    )
    const cupsLatency = await cupsSteady(setup.cups, files, c)
    failIfErrors('CUPS latency', cupsLatency)
    console.log(`CUPS throughput: ${DELIVERY.cupsBurst.jobs} jobs, ${DELIVERY.cupsBurst.concurrency} lp at once...`)
    const cupsOne = await cupsBurst(setup.cups, files, DELIVERY.cupsBurst)
    failIfErrors('CUPS one printer', cupsOne)
    cups = {
      version: setup.cups.version,
      startedScheduler: setup.cups.startedScheduler,
      steady: cupsLatency,
      onePrinter: cupsOne,
    }
    stopCups()
  } else {
    console.log(`CUPS: ${setup.reason}`)
  }

  // The figures CUPS is compared with: measured here, else the issue's.
  const cupsP50 = cups ? cups.steady.firstByteMs.p50 : CUPS_REFERENCE.firstByteP50Ms
  const cupsRate = cups ? cups.onePrinter.jobsPerSecond : CUPS_REFERENCE.jobsPerSecond
  const cupsSource = cups ? 'CUPS measured' : 'CUPS reference'
  const p50 = steady.firstByteMs.p50
  const p50TimesLower = cupsP50 / p50
  const oneTimesCups = onePrinter.jobsPerSecond / cupsRate
  const errors = steady.errors + onePrinter.errors + fourResult.errors
  const repeats = steady.repeats + onePrinter.repeats + fourResult.repeats
  const checks: Check[] = [
    {
      name: 'first byte p50, times lower than CUPS',
      value: round(p50TimesLower, 1),
      unit: 'x',
      target: `>= ${DELIVERY_TARGETS.firstByteP50TimesLower}x (${ms(p50)} vs ${cupsSource} ${ms(cupsP50)})`,
      pass: p50TimesLower >= DELIVERY_TARGETS.firstByteP50TimesLower,
    },
    {
      name: `first byte p99 at ${s.ratePerSecond} jobs/s (yardstick ${ms(floor.steady.firstByteMs.p99)})`,
      value: round(steady.firstByteMs.p99, 2),
      unit: ' ms',
      target: `< ${DELIVERY_TARGETS.firstByteP99Ms} ms`,
      pass: steady.firstByteMs.p99 < DELIVERY_TARGETS.firstByteP99Ms,
    },
    {
      name: 'jobs/s to 1 printer',
      value: onePrinter.jobsPerSecond,
      unit: '',
      target:
        `>= ${DELIVERY_TARGETS.onePrinterJobsPerSecond.toLocaleString('en')} ` +
        `jobs/s (${round(oneTimesCups, 1)}x ${cupsSource} ${cupsRate} jobs/s; ` +
        `yardstick ${oneFloor.jobsPerSecond})`,
      pass: onePrinter.jobsPerSecond >= DELIVERY_TARGETS.onePrinterJobsPerSecond,
    },
    {
      name: 'jobs/s across 4 printers',
      value: fourResult.jobsPerSecond,
      unit: '',
      target: `>= ${DELIVERY_TARGETS.fourPrintersJobsPerSecond.toLocaleString('en')} jobs/s`,
      pass: fourResult.jobsPerSecond >= DELIVERY_TARGETS.fourPrintersJobsPerSecond,
    },
    {
      name: 'jobs lost, failed or printed twice',
      value: errors + repeats,
      unit: '',
      target: '0',
      pass: errors + repeats === 0,
    },
  ]

  const reference =
    `the issue's reference (2 vCPUs): p50 ${CUPS_REFERENCE.firstByteP50Ms} ` +
    `ms, ${CUPS_REFERENCE.jobsPerSecond} jobs/s`
  const cupsLines = cups
    ? [
        describeSteady(`CUPS ${cups.version} raw queue`, 'to first byte', cups.steady.firstByteMs, cups.steady),
        describeSteady('', 'to last byte', cups.steady.closedMs, cups.steady),
        describeBurst('CUPS, 1 printer', cups.onePrinter, 'the sink had all'),
        `${''.padEnd(30)} CUPS measured in this run: lp -d QUEUE -o raw FILE, one ` +
          `lp process per job; cupsd ` +
          `${cups.startedScheduler ? 'started by the bench' : 'already running'}; ` +
          `${reference}`,
      ]
    : [
        `CUPS: ${setup.ok ? '' : setup.reason}, reference figures from the issue: ` +
          `p50 ${CUPS_REFERENCE.firstByteP50Ms} ms, ` +
          `${CUPS_REFERENCE.jobsPerSecond} jobs/s`,
      ]
  const b = steady.breakdownMs
  const slowest = steady.slowest
    .map(
      (j) =>
        `${ms(j.firstByteMs)} at ${j.sentAfterS} s ` +
        `(created ${j.createdMs ?? '?'}, stored ${j.receivedByAgentMs ?? '?'})`,
    )
    .join('; ')
  const report = [
    `delivery on ${info.cpus} CPUs: each run on a fresh hub as its own ` +
      `process (built-in agent, tcp:// printers); sinks and clients in the ` +
      `bench process`,
    describeSteady('submit -> first byte', 'at the sink', steady.firstByteMs, steady),
    describeSteady('  yardstick: the guarantees', 'at the sink', floor.steady.firstByteMs, floor.steady),
    describeSteady('submit -> last byte', 'sink closed', steady.closedMs, steady),
    describeSteady('submit -> COMPLETED', "hub's timestamp", steady.completedMs!, steady),
    `${'  where the time goes (means)'.padEnd(30)} created ${ms(b.created)}, ` +
      `stored by the agent ${ms(b.receivedByAgent)}, first byte ` +
      `${ms(b.firstByte)}, last byte ${ms(b.lastByte)}, submitted ` +
      `${ms(b.submitted)}, COMPLETED ${ms(b.completed)}`,
    `${'  the five slowest first bytes'.padEnd(30)} ${slowest}`,
    describeBurst('1 printer', onePrinter, 'all COMPLETED'),
    describeBurst('  yardstick: the guarantees', oneFloor, 'all COMPLETED'),
    describeBurst('4 printers', fourResult, 'all COMPLETED'),
    `${'hub CPU per job'.padEnd(30)} ${Math.round(oneCpuUsPerJob)} µs to 1 ` +
      `printer, ${Math.round(fourCpuUsPerJob)} µs across 4 (submission to ` +
      `COMPLETED, the built-in agent included); the yardstick ` +
      `${Math.round(floor.cpuUsPerJob)} µs to 1 printer`,
    `${'hub RSS'.padEnd(30)} ${hubRssMb.toFixed(1)} MB after the 4-printer run`,
    ...cupsLines,
  ]
  return {
    report,
    checks,
    results: {
      hub: 'separate process (printhub serve), built-in agent, tcp:// printers',
      settings: DELIVERY,
      steady,
      onePrinter,
      onePrinterYardstick: oneFloor,
      steadyYardstick: floor.steady,
      fourPrinters: fourResult,
      hubRssMb: round(hubRssMb),
      cpuUsPerJob: {
        onePrinter: Math.round(oneCpuUsPerJob),
        fourPrinters: Math.round(fourCpuUsPerJob),
        onePrinterYardstick: Math.round(floor.cpuUsPerJob),
      },
      cups: cups
        ? { measured: true, ...cups }
        : { measured: false, reason: setup.ok ? '' : setup.reason, reference: CUPS_REFERENCE },
    },
  }
}
