// `bun run bench power`: the power-cut test's rounds (scripts/powercut-hub.ts), many more of them: the hub's power
// cut at random moments while tickets come in, then while backups are made, each followed by a new boot. Its figures
// are counts that must be zero (lost, corrupt, printed twice), with how many cuts and checks they rest on.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SectionResult } from './bench.ts'
import { sized } from './bench-hub.ts'
import { type PowercutOptions, type PowercutReport, runPowercuts } from './powercut-hub.ts'
import { runUpgradeCuts, type UpgradeCutReport } from './powercut-upgrade.ts'

const TICKET_CUTS = sized(40, 6)
const BACKUP_CUTS = sized(12, 3)
const PRUNE_CUTS = sized(10, 3)
const UPGRADE_CUTS = sized(40, 8)
/** Old finished jobs seeded for the pruning's cuts: a day and a few hours of them, one every 2 s. */
const PRUNE_SEEDED = 50_000
const SEED = 2026
const PRINTHUB = [process.execPath, 'src/main.ts']

async function inFolder<T>(run: (folder: string) => Promise<T>): Promise<T> {
  const folder = mkdtempSync(join(tmpdir(), 'printhub-bench-power-'))
  try {
    return await run(folder)
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

const rounds = (options: Omit<PowercutOptions, 'folder' | 'printhub'>): Promise<PowercutReport> =>
  inFolder((folder) => runPowercuts({ ...options, folder, printhub: PRINTHUB }))

export async function powerSection(): Promise<SectionResult> {
  const tickets = await rounds({ cuts: TICKET_CUTS, seed: SEED })
  const backups = await rounds({ cuts: BACKUP_CUTS, seed: SEED + 1, backups: true })
  const pruning = await rounds({ cuts: PRUNE_CUTS, seed: SEED + 2, seededJobs: PRUNE_SEEDED })
  const upgrade: UpgradeCutReport = await inFolder((folder) =>
    runUpgradeCuts({ cuts: UPGRADE_CUTS, seed: SEED + 3, folder, printhub: PRINTHUB }),
  )
  const all = [tickets, backups, pruning]
  const sum = (pick: (r: PowercutReport) => number) => all.reduce((total, r) => total + pick(r), 0)
  const cuts = sum((r) => r.cuts) + upgrade.cuts
  const lost = sum((r) => r.lost.length) + upgrade.lost.length
  const corrupt = sum((r) => r.corrupt.length) + upgrade.corrupt.length
  const twice = sum((r) => r.printedTwice.length + r.completedUnprinted.length)
  const line = (name: string, r: PowercutReport) =>
    `${name.padEnd(22)} ${r.cuts} cuts, ${r.accepted} jobs answered 202 (looked for ${r.checks} times), lost ` +
    `${r.lost.length}, corrupt ${r.corrupt.length}, printed twice ${r.printedTwice.length}, uncertain ` +
    `${r.uncertain}; ${r.unflushedPages} pages not flushed at the cuts; ` +
    `slowest start ${Math.round(r.slowestStartMs)} ms; ${r.redoBoots} boots applied ${r.redoRecords} records ` +
    'of the redo log'
  return {
    report: [
      `power: the hub's power cut at random moments (seed ${SEED}), on powercut-fs, each followed by a new boot`,
      line('while tickets come in', tickets),
      `${line('during backups', backups)}; ${backups.backups} backups made, ${backups.restored} restored at a boot`,
      `${line('while pruning', pruning)}; ${pruning.cutsDuringPrune} cuts while old jobs were being pruned`,
      `${'during an upgrade'.padEnd(22)} ${upgrade.cuts} cuts of the oldest schema's first start, ` +
        `${upgrade.duringStart} before it listened (${upgrade.oldSchemaAfter} left the old schema whole); ` +
        `${upgrade.jobsChecked} jobs looked for, lost ${upgrade.lost.length}, corrupt ${upgrade.corrupt.length}`,
      ...[...all.flatMap((r) => [...r.corrupt, ...r.lost]), ...upgrade.corrupt, ...upgrade.lost]
        .slice(0, 10)
        .map((s) => `  ${s}`),
    ],
    checks: [
      { name: 'power cuts: 202s lost', value: lost, unit: '', target: `0 (${cuts} cuts)`, pass: lost === 0 },
      { name: 'power cuts: database corrupt', value: corrupt, unit: '', target: '0', pass: corrupt === 0 },
      { name: 'power cuts: printed twice', value: twice, unit: '', target: '0', pass: twice === 0 },
    ],
    results: { seed: SEED, tickets, backups, pruning, upgrade },
  }
}
