// `bun run bench power`: the power-cut test's rounds (scripts/powercut-hub.ts), many more of them: the hub's power
// cut at random moments while tickets come in, then while backups are made, each followed by a new boot. Its figures
// are counts that must be zero (lost, corrupt, printed twice), with how many cuts and checks they rest on.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SectionResult } from './bench.ts'
import { sized } from './bench-hub.ts'
import { type PowercutReport, runPowercuts } from './powercut-hub.ts'

const TICKET_CUTS = sized(40, 6)
const BACKUP_CUTS = sized(12, 3)
const SEED = 2026

async function rounds(cuts: number, seed: number, backups: boolean): Promise<PowercutReport> {
  const folder = mkdtempSync(join(tmpdir(), 'printhub-bench-power-'))
  try {
    return await runPowercuts({ cuts, seed, folder, printhub: [process.execPath, 'src/main.ts'], backups })
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

export async function powerSection(): Promise<SectionResult> {
  const tickets = await rounds(TICKET_CUTS, SEED, false)
  const backups = await rounds(BACKUP_CUTS, SEED + 1, true)
  const all = [tickets, backups]
  const sum = (pick: (r: PowercutReport) => number) => all.reduce((total, r) => total + pick(r), 0)
  const cuts = sum((r) => r.cuts)
  const lost = sum((r) => r.lost.length)
  const corrupt = sum((r) => r.corrupt.length)
  const twice = sum((r) => r.printedTwice.length + r.completedUnprinted.length)
  const line = (name: string, r: PowercutReport) =>
    `${name.padEnd(22)} ${r.cuts} cuts, ${r.accepted} jobs answered 202 (looked for ${r.checks} times), lost ` +
    `${r.lost.length}, corrupt ${r.corrupt.length}, printed twice ${r.printedTwice.length}, uncertain ` +
    `${r.uncertain}; ${r.unflushedPages} pages not flushed at the cuts; ` +
    `slowest start ${Math.round(r.slowestStartMs)} ms`
  return {
    report: [
      `power: the hub's power cut at random moments (seed ${SEED}), on powercut-fs, each followed by a new boot`,
      line('while tickets come in', tickets),
      `${line('during backups', backups)}; ${backups.backups} backups made, ${backups.restored} restored at a boot`,
      ...[...tickets.corrupt, ...backups.corrupt, ...tickets.lost, ...backups.lost].slice(0, 10).map((s) => `  ${s}`),
    ],
    checks: [
      { name: 'power cuts: 202s lost', value: lost, unit: '', target: `0 (${cuts} cuts)`, pass: lost === 0 },
      { name: 'power cuts: database corrupt', value: corrupt, unit: '', target: '0', pass: corrupt === 0 },
      { name: 'power cuts: printed twice', value: twice, unit: '', target: '0', pass: twice === 0 },
    ],
    results: { seed: SEED, tickets, backups },
  }
}
