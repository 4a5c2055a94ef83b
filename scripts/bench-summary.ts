// The bench's history and its summary. Every `bun run bench` adds one line to docs/benchmarks.jsonl
// (scripts/bench-log.ts): its time, commit, machine, sections and each figure against its target.
// docs/benchmarks.md is made from that file alone, by summarize() here: for each figure of each
// section, its latest full run's value, target and verdict, and its range over the last full runs.
// `bun scripts/bench-summary.ts` writes the summary again; `--check` only says whether it is current.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..')
export const HISTORY_FILE = join(ROOT, 'docs', 'benchmarks.jsonl')
export const SUMMARY_FILE = join(ROOT, 'docs', 'benchmarks.md')
/** How many full runs of a figure its range covers. */
export const RANGE_RUNS = 10

/** One figure of a run against its target, as its section reported it. */
export interface BenchFigure {
  section: string
  /** As shown, with what the section says beside it (its yardstick in the same run). */
  name: string
  value: number
  /** As shown after the value: `' ms'`, `'%'`, `'x'`, `'% of the line rate'`, or nothing. */
  unit: string
  target: string
  pass: boolean
}

/** One line of the history: one run of the bench. */
export interface BenchRun {
  /** When it ended, UTC, to the minute: `2026-11-29T15:40Z`. */
  at: string
  /** The commit it ran on (12 hex digits, or `unknown`), and whether the working tree had changes. */
  commit: string
  dirty: boolean
  /** A `--quick` run (smaller counts, for development): judged on no target. */
  quick: boolean
  machine: { cpus: number; cpuModel: string; bun: string; platform: string }
  /** The runtime options its hubs and yardsticks started with, when it says. */
  runtimeOptions?: string
  sections: string[]
  figures: BenchFigure[]
  /** Sections that failed, with why. */
  failed?: Record<string, string>
  /** Written by hand, when a run needs one. */
  note?: string
}

const RUN_KEYS = new Set([
  'at',
  'commit',
  'dirty',
  'quick',
  'machine',
  'runtimeOptions',
  'sections',
  'figures',
  'failed',
  'note',
])
const FIGURE_KEYS = ['section', 'name', 'value', 'unit', 'target', 'pass']

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string')

/** Why `value` is not a run of the history, or null when it is one. */
export function runProblem(value: unknown): string | null {
  if (!isObject(value)) return 'not an object'
  const unknown = Object.keys(value).filter((key) => !RUN_KEYS.has(key))
  if (unknown.length > 0) return `unknown fields ${unknown.join(', ')}`
  if (
    typeof value.at !== 'string' ||
    !/^\d{4}-\d\d-\d\dT\d\d:\d\dZ$/.test(value.at) ||
    Number.isNaN(Date.parse(value.at))
  )
    return 'at: not a UTC time to the minute'
  if (typeof value.commit !== 'string' || !/^([0-9a-f]{12}|unknown)$/.test(value.commit))
    return 'commit: not 12 hex digits'
  if (typeof value.dirty !== 'boolean' || typeof value.quick !== 'boolean') return 'dirty, quick: not booleans'
  const machine = value.machine
  if (
    !isObject(machine) ||
    !Number.isInteger(machine.cpus) ||
    typeof machine.cpuModel !== 'string' ||
    typeof machine.bun !== 'string' ||
    typeof machine.platform !== 'string' ||
    Object.keys(machine).length !== 4
  )
    return 'machine: not { cpus, cpuModel, bun, platform }'
  if (value.runtimeOptions !== undefined && typeof value.runtimeOptions !== 'string')
    return 'runtimeOptions: not a string'
  if (!isStringArray(value.sections) || value.sections.length === 0) return 'sections: not a list of names'
  if (!Array.isArray(value.figures)) return 'figures: not a list'
  for (const [i, figure] of value.figures.entries()) {
    const shape =
      isObject(figure) && Object.keys(figure).length === FIGURE_KEYS.length && FIGURE_KEYS.every((key) => key in figure)
    if (
      !shape ||
      typeof figure.name !== 'string' ||
      typeof figure.unit !== 'string' ||
      typeof figure.target !== 'string' ||
      typeof figure.pass !== 'boolean'
    )
      return `figures[${i}]: not { ${FIGURE_KEYS.join(', ')} }`
    if (typeof figure.value !== 'number' || !Number.isFinite(figure.value)) return `figures[${i}].value: not a number`
    if (typeof figure.section !== 'string' || !value.sections.includes(figure.section))
      return `figures[${i}].section: not one of the run's sections`
  }
  const sections = value.sections
  if (
    value.failed !== undefined &&
    (!isObject(value.failed) ||
      !Object.entries(value.failed).every(([section, why]) => sections.includes(section) && typeof why === 'string'))
  )
    return "failed: not { section: why } of the run's sections"
  if (value.note !== undefined && typeof value.note !== 'string') return 'note: not a string'
  return null
}

/** The runs of a history file, oldest first; throws naming the first line that is not a run. */
export function parseHistory(text: string): BenchRun[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines.map((line, i) => {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      throw new Error(`benchmarks.jsonl line ${i + 1}: ${error instanceof Error ? error.message : error}`)
    }
    const problem = runProblem(value)
    if (problem) throw new Error(`benchmarks.jsonl line ${i + 1}: ${problem}`)
    return value as BenchRun
  })
}

/** A figure across runs: its name without what changes from run to run (the yardstick's figure). */
export function figureKey(name: string): string {
  return name.replace(/ \(([^()]*)\)/g, (_, inside: string) => {
    const kept = inside.split('; ').filter((part) => !/^(yardstick|read anew) /.test(part))
    return kept.length > 0 ? ` (${kept.join('; ')})` : ''
  })
}

const when = (run: BenchRun) => `${run.at.slice(0, 10)} ${run.at.slice(11, 16)} UTC`
const cell = (text: string) => text.replaceAll('|', '/')

function range(figures: BenchFigure[]): string {
  const values = figures.map((figure) => figure.value)
  const [low, high] = [Math.min(...values), Math.max(...values)]
  return `${low === high ? low : `${low}-${high}`}${figures[0]!.unit}`
}

/** The summary docs/benchmarks.md holds: made from the runs alone, so the same runs give the same text. */
export function summarize(runs: readonly BenchRun[]): string {
  const full = runs.filter((run) => !run.quick)
  // Sections in the order of the newest full run with the most of them, then any others.
  const widest = full.reduce<BenchRun | undefined>(
    (best, run) => (!best || run.sections.length >= best.sections.length ? run : best),
    undefined,
  )
  const sections = [...new Set([...(widest?.sections ?? []), ...full.flatMap((run) => run.sections)])]
  const rows: string[] = []
  const latestOf = new Map<BenchRun, string[]>()
  const failures: string[] = []
  for (const section of sections) {
    const ran = full.filter((run) => run.sections.includes(section))
    const newest = ran.at(-1)!
    if (newest.failed?.[section])
      failures.push(`- ${section} failed in its newest full run, ${when(newest)}: ${newest.failed[section]}`)
    const latest = ran.filter((run) => run.figures.some((figure) => figure.section === section)).at(-1)
    if (!latest) continue
    latestOf.set(latest, [...(latestOf.get(latest) ?? []), section])
    for (const figure of latest.figures.filter((f) => f.section === section)) {
      const key = figureKey(figure.name)
      const history = full
        .flatMap((run) => run.figures.filter((f) => f.section === section && figureKey(f.name) === key))
        .slice(-RANGE_RUNS)
      const met = history.filter((f) => f.pass).length
      const verdict = figure.pass ? 'PASS' : 'MISS'
      const cells = [section, cell(figure.name), `${figure.value}${figure.unit}`, cell(figure.target), verdict]
      rows.push(`| ${[...cells, range(history), `${met} of ${history.length}`].join(' | ')} |`)
    }
  }
  const first = runs[0]
  const last = runs.at(-1)
  const span = first && last ? ` from ${first.at.slice(0, 10)} to ${last.at.slice(0, 10)}` : ''
  const runLines = [...latestOf]
    .sort(([a], [b]) => a.at.localeCompare(b.at))
    .map(([run, names]) => {
      const m = run.machine
      const options = run.runtimeOptions ? `, ${run.runtimeOptions}` : ''
      const machine = `${m.cpus} CPUs, ${m.cpuModel}, Bun ${m.bun}, ${m.platform}${options}`
      const which = names.length === sections.length ? 'every section' : names.join(', ')
      return `- ${when(run)}, ${run.commit}${run.dirty ? ' (with changes)' : ''} (${machine}): ${which}`
    })
  return [
    '# Benchmarks',
    '',
    'Generated by `bun scripts/bench-summary.ts` from [benchmarks.jsonl](benchmarks.jsonl); do not edit it',
    'by hand. Every `bun run bench` adds one line to that file, one run a line (its time in UTC, commit,',
    'machine, runtime options, sections, and each figure with its target and PASS or MISS), and writes',
    'this page again. Runs with `--quick` (smaller counts, for development) are judged on no target and',
    'left out below. How the bench works, what each section measures, how much figures move from run',
    'to run, and why a target is missed: [performance.md](performance.md).',
    '',
    `${runs.length} runs${span}, ${full.length} of them full. The latest full run of each section:`,
    '',
    ...runLines,
    ...(failures.length > 0 ? ['', ...failures] : []),
    '',
    `| section | figure (latest) | latest | target | | last ${RANGE_RUNS} full runs | met |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n')
}

/** Writes docs/benchmarks.md from docs/benchmarks.jsonl. */
export function writeSummary(): void {
  writeFileSync(SUMMARY_FILE, summarize(parseHistory(readFileSync(HISTORY_FILE, 'utf8'))))
}

if (import.meta.main) {
  if (process.argv.includes('--check')) {
    const current = readFileSync(SUMMARY_FILE, 'utf8') === summarize(parseHistory(readFileSync(HISTORY_FILE, 'utf8')))
    console.log(
      current
        ? 'docs/benchmarks.md is current'
        : 'docs/benchmarks.md is not what docs/benchmarks.jsonl gives: run bun scripts/bench-summary.ts',
    )
    process.exitCode = current ? 0 : 1
  } else {
    writeSummary()
    console.log('wrote docs/benchmarks.md from docs/benchmarks.jsonl')
  }
}
