// The bench's record: every run adds one line to docs/benchmarks.jsonl with the date, the machine,
// the commit and each figure against its target, so a regression is seen in the run that made it,
// not months later; docs/benchmarks.md, its summary, is then written again from that file
// (scripts/bench-summary.ts).
import { appendFileSync } from 'node:fs'
import type { Check, Machine } from './bench.ts'
import { QUICK, ROOT, SERVICE_JIT_TEXT } from './bench-hub.ts'
import { type BenchRun, HISTORY_FILE, runProblem, writeSummary } from './bench-summary.ts'

/** The commit the bench ran on, and whether the working tree had changes. */
function commit(): { commit: string; dirty: boolean } {
  const head = Bun.spawnSync(['git', 'rev-parse', '--short=12', 'HEAD'], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'ignore',
  })
  if (head.exitCode !== 0) return { commit: 'unknown', dirty: false }
  const status = Bun.spawnSync(['git', 'status', '--porcelain', '--untracked-files=no'], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'ignore',
  })
  return { commit: head.stdout.toString().trim(), dirty: status.stdout.toString().trim() !== '' }
}

/** Adds one run (its sections, each section's checks, the sections that failed) and writes the summary again. */
export function recordRun(
  at: Date,
  machine: Machine,
  checks: Readonly<Record<string, readonly Check[]>>,
  failed: Readonly<Record<string, string>>,
): void {
  const sections = Object.keys(checks)
  const run: BenchRun = {
    at: `${at.toISOString().slice(0, 16)}Z`,
    ...commit(),
    quick: QUICK,
    machine: { cpus: machine.cpus, cpuModel: machine.cpuModel, bun: machine.bun, platform: machine.platform },
    runtimeOptions: SERVICE_JIT_TEXT,
    sections,
    figures: sections.flatMap((section) =>
      checks[section]!.map(({ name, value, unit, target, pass }) => ({ section, name, value, unit, target, pass })),
    ),
    ...(Object.keys(failed).length > 0 ? { failed: { ...failed } } : {}),
  }
  const problem = runProblem(run)
  if (problem) throw new Error(`the bench's run does not fit docs/benchmarks.jsonl: ${problem}`)
  appendFileSync(HISTORY_FILE, `${JSON.stringify(run)}\n`)
  writeSummary()
}
