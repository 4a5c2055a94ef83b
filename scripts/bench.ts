// The hub's performance bench: `bun run bench`. This file is the driver: it picks the sections, runs them, reports
// their figures against targets and writes them to dist/. Each section lives in the file of what it measures:
//   api (scripts/bench-api.ts): the hub as its own process on 127.0.0.1, driven from load processes
//   (scripts/bench-load.ts):
//     1. GET /health requests per second (50 clients),
//     2. durable job submissions per second (50 clients) with p50/p99 latency,
//     3. submissions / health (how close a durable write gets to the cheapest route) and submit p99,
//     4. list latency with 1,000,000 stored jobs (seeded straight into SQLite),
//     5. idle and loaded RSS of the hub process;
//   delivery (scripts/bench-delivery.ts), through the built-in agent to raw TCP sinks standing in
//   for printers (scripts/bench-sink.ts, bench-delivery-hub.ts), against a CUPS raw queue driving
//   the same kind of sink (scripts/bench-cups.ts):
//     6. submit-to-first-byte and submit-to-COMPLETED latency at a steady 50 jobs/s (p50/p99),
//     7. jobs per second to one printer, and across 4 printers, until every job is COMPLETED,
//     8. the same first-byte latency and jobs per second through CUPS, when it is installed;
//   render (scripts/bench-render.ts): the ESC/POS renderer alone;
//   printers (scripts/bench-printers.ts): submit-to-first-byte at the printer emulator over TCP, and
//   the share of a 115,200-baud serial line the serial transport keeps busy;
//   crash (scripts/bench-crash.ts): rounds of kill -9 under load, and how many jobs each kill left
//   uncertain (FAILED job.recovery_uncertain), lost or printed twice;
//   retention (scripts/bench-retention.ts): 200,000 jobs through a store with a short retention,
//   the database file's size as they go (it must level off), and the longest pruning step;
//   backup (scripts/bench-backup.ts): `printhub backup` and `restore` of 100,000 jobs, and how long
//   the hub's event loop waits while it makes a backup (a process of its own);
//   security (scripts/bench-security.ts): /health while strangers hold frames at the gateway, while
//   wrong passwords arrive at once, and while images render, against the idle hub; its RSS;
//   cloudprnt (scripts/bench-cloudprnt.ts): 100 CloudPRNT, then 100 Epson SDP, printers polling every
//   second: the hub's CPU against as many /health requests, and the time from a job's submission to
//   its download;
//   dashboard (scripts/bench-dashboard.ts): every page loaded cold by Chromium on a phone profile,
//   in English and German: bytes, first contentful paint, page drawn;
//   binary (scripts/bench-binary.ts): the compiled executable's size, start-up and RSS;
//   cluster (scripts/bench-cluster.ts): nodes on PostgreSQL: submit -> first byte across nodes, the takeover after a
//   node's kill -9, durable submissions/s with 1, 2 and 3 nodes against one hub on SQLite, the database's CPU share;
//   disk (scripts/bench-disk.ts): bytes the hub writes to its disk a job, one job at a time, and where they go (the
//   write-ahead log's pages by table and index), against bare SQLite; bytes an idle hour; the hub's CPU a job;
//   power (scripts/bench-power.ts): the hub's power cut at random moments, many times (scripts/powercut-hub.ts).
// The hub process, its CLI and data directories are shared from scripts/bench-hub.ts. `bun run bench` runs every
// section; `bun run bench api`, `delivery`, `render`, `printers`, `crash`, `retention`, `backup`, `security`, `events`,
// `failover`, `cloudprnt`, `dashboard`, `binary`, `cluster`, `disk` or `power` runs one; `--quick` runs them with
// smaller counts (for development).
// Every run adds a line to docs/benchmarks.jsonl and writes its summary, docs/benchmarks.md, again
// (scripts/bench-log.ts). Writes the figures to dist/bench.json as well (dist/bench-SECTION.json for one section). A
// section that fails is reported and the others still run; the bench exits 1 only when a section itself fails. A missed
// target is reported, not fatal, since figures depend on the machine. CUPS is measured when lp, lpadmin and cupsd are
// installed (apt-get install cups); the bench installs nothing, and without CUPS compares with the reference
// figures.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { apiSection } from './bench-api.ts'
import { backupSection } from './bench-backup.ts'
import { binarySection } from './bench-binary.ts'
import { crashSection } from './bench-crash.ts'
import { stopCups } from './bench-cups.ts'
import { deliverySection } from './bench-delivery.ts'
import { stopSinks } from './bench-delivery-runs.ts'
import { endChildren, killChildren, QUICK, removeDataDirs, ROOT, SERVICE_JIT_TEXT } from './bench-hub.ts'
import { recordRun } from './bench-log.ts'
import { printersSection } from './bench-printers.ts'
import { renderSection } from './bench-render.ts'
import { eventsSection } from './bench-events.ts'
import { failoverSection } from './bench-failover.ts'
import { cloudprntSection } from './bench-cloudprnt.ts'
import { clusterSection } from './bench-cluster.ts'
import { dashboardSection } from './bench-dashboard.ts'
import { diskSection } from './bench-disk.ts'
import { powerSection } from './bench-power.ts'
import { retentionSection } from './bench-retention.ts'
import { securitySection } from './bench-security.ts'

const SECTIONS = [
  'api',
  'delivery',
  'render',
  'printers',
  'crash',
  'retention',
  'backup',
  'security',
  'events',
  'failover',
  'cloudprnt',
  'dashboard',
  'binary',
  'cluster',
  'disk',
  'power',
] as const
type Section = (typeof SECTIONS)[number]

// ---- Cleanup ----------------------------------------------------------------------------------

/** Ends everything the bench started. Synchronous, so it also works from a signal handler; safe to call twice. */
function cleanup(): void {
  killChildren()
  stopSinks()
  stopCups()
  removeDataDirs()
}

/** Ends whatever a failed section left running (its hub, a load generator), so the next section runs alone. */
async function abandonChildren(): Promise<void> {
  await endChildren()
  stopSinks()
  stopCups()
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    cleanup()
    process.exit(130)
  })
}

// ---- Report -----------------------------------------------------------------------------------

/** One figure against its target, as a section reports it. */
export interface Check {
  name: string
  value: number
  unit: string
  target: string
  pass: boolean
}

/** What a section hands back: its report lines, its checks, and its figures for the JSON file. */
export interface SectionResult {
  report: string[]
  checks: Check[]
  results: Record<string, unknown>
}

export type Machine = ReturnType<typeof machine>

function machine() {
  const nproc = Bun.spawnSync(['nproc'], { stdout: 'pipe', stderr: 'ignore' })
  const cpus = nproc.exitCode === 0 ? Number(nproc.stdout.toString().trim()) : availableParallelism()
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown'
  return { cpus, cpuModel, bun: Bun.version, platform: `${process.platform} ${process.arch}` }
}

function checkLine(check: Check): string {
  const value = `${check.value}${check.unit}`
  return `  ${check.pass ? 'PASS' : 'MISS'}  ${check.name.padEnd(34)} ${value.padStart(10)}   target ${check.target}`
}

// ---- Main -------------------------------------------------------------------------------------

function sectionsOf(all: string[]): Section[] {
  const args = all.filter((arg) => arg !== '--quick')
  for (const arg of args)
    if (!SECTIONS.includes(arg as Section))
      throw new Error(`unknown bench section "${arg}"; the sections are ${SECTIONS.join(', ')}`)
  return args.length === 0 ? [...SECTIONS] : SECTIONS.filter((section) => args.includes(section))
}

function run(section: Section, info: Machine): SectionResult | Promise<SectionResult> {
  switch (section) {
    case 'api':
      return apiSection(info)
    case 'delivery':
      return deliverySection(info)
    case 'render':
      return renderSection()
    case 'printers':
      return printersSection()
    case 'crash':
      return crashSection()
    case 'retention':
      return retentionSection()
    case 'backup':
      return backupSection()
    case 'events':
      return eventsSection()
    case 'failover':
      return failoverSection()
    case 'cloudprnt':
      return cloudprntSection()
    case 'dashboard':
      return dashboardSection()
    case 'security':
      return securitySection()
    case 'binary':
      return binarySection()
    case 'cluster':
      return clusterSection()
    case 'disk':
      return diskSection()
    case 'power':
      return powerSection()
  }
}

async function main(): Promise<void> {
  const sections = sectionsOf(process.argv.slice(2))
  const info = machine()
  console.log(
    `printhub bench (${sections.join(', ')}${QUICK ? ', quick' : ''}): ` +
      `${info.cpus} CPUs (${info.cpuModel}), bun ${info.bun}, ${info.platform}`,
  )
  console.log(`hubs and yardsticks start with the installed service's JIT options: ${SERVICE_JIT_TEXT}`)
  const done: Partial<Record<Section, SectionResult>> = {}
  const failed: Partial<Record<Section, string>> = {}
  // A section that fails is reported, and the others still run; the bench then exits 1.
  for (const section of sections) {
    try {
      // The bench's clients, sinks and yardsticks run in this process: a section does not pay for
      // collecting the garbage of the ones before it (the API section's million seeded jobs).
      Bun.gc(true)
      done[section] = await run(section, info)
    } catch (error) {
      failed[section] = error instanceof Error ? error.message : String(error)
      console.error(`bench section ${section} failed:`, error)
      await abandonChildren()
    }
  }

  const report = ['']
  for (const section of sections)
    report.push(...(done[section]?.report ?? [`${section}: FAILED: ${failed[section]}`]), '')
  for (const section of sections) report.push(...(done[section]?.checks.map(checkLine) ?? []))
  console.log([...report, ''].join('\n'))

  const file = sections.length === SECTIONS.length ? 'bench.json' : `bench-${sections.join('-')}.json`
  const out = join(ROOT, 'dist', file)
  mkdirSync(join(ROOT, 'dist'), { recursive: true })
  const at = new Date()
  const results: Record<string, unknown> = { at: at.toISOString(), machine: info, sections, quick: QUICK }
  if (done.api) Object.assign(results, done.api.results)
  if (done.delivery) results.delivery = done.delivery.results
  results.checks = sections.flatMap((section) => done[section]?.checks ?? [])
  if (Object.keys(failed).length > 0) results.failed = failed
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`)
  recordRun(at, info, Object.fromEntries(sections.map((section) => [section, done[section]?.checks ?? []])), failed)
  console.log(`results written to ${out}, added to docs/benchmarks.jsonl and summarised in docs/benchmarks.md`)
  if (Object.keys(failed).length > 0) {
    console.error(`bench sections failed: ${Object.keys(failed).join(', ')}`)
    process.exitCode = 1
  }
}

if (import.meta.main) {
  try {
    await main()
  } catch (error) {
    console.error('bench failed:', error)
    process.exitCode = 1
  } finally {
    cleanup()
  }
}
