// The bench's record: every run appends its figures to docs/benchmarks.md with the date, the
// machine and the commit, so a regression is seen in the run that made it, not months later.
import { appendFileSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Check, Machine } from './bench.ts'
import { QUICK, ROOT, SERVICE_JIT_TEXT } from './bench-hub.ts'

export const BENCHMARKS_FILE = join(ROOT, 'docs', 'benchmarks.md')

const HEADER = `# Benchmarks

Every \`bun run bench\` appends its figures here: the date, the machine, the commit, and each
figure against its target (PASS or MISS), its yardstick measured in the same run. A run with
\`--quick\` (smaller counts, for development) is marked quick: the targets are judged on full runs.
Figures on a shared VM move by about a fifth between runs; compare runs of the same machine.
`

/** The commit the bench ran on, marked when the working tree had changes. */
function commit(): string {
  const head = Bun.spawnSync(['git', 'rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, stdout: 'pipe', stderr: 'ignore' })
  if (head.exitCode !== 0) return 'unknown'
  const status = Bun.spawnSync(['git', 'status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, stdout: 'pipe', stderr: 'ignore' })
  return `${head.stdout.toString().trim()}${status.stdout.toString().trim() ? ' (with changes)' : ''}`
}

/** Appends one run: its sections, checks and failed sections. */
export function recordRun(at: Date, machine: Machine, sections: readonly string[], checks: readonly Check[], failed: Readonly<Record<string, string>>): void {
  if (!existsSync(BENCHMARKS_FILE)) writeFileSync(BENCHMARKS_FILE, HEADER)
  const lines = [
    '',
    `## ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC · ${commit()} · ${QUICK ? 'quick' : 'full'}`,
    '',
    `${machine.cpus} CPUs (${machine.cpuModel}), Bun ${machine.bun}, ${machine.platform}; sections: ${sections.join(', ')}; hubs and yardsticks with ${SERVICE_JIT_TEXT}`,
    '',
    '| figure | value | target | |',
    '| --- | --- | --- | --- |',
    ...checks.map((check) => `| ${check.name} | ${check.value}${check.unit} | ${check.target.replaceAll('|', '/')} | ${check.pass ? 'PASS' : 'MISS'} |`),
    ...Object.entries(failed).map(([section, reason]) => `| ${section} | failed: ${reason.replaceAll('|', '/').replaceAll('\n', ' ')} | | |`),
  ]
  appendFileSync(BENCHMARKS_FILE, `${lines.join('\n')}\n`)
}
