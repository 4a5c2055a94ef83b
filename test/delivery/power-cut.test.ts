// Power cuts, not only crashes of the process: the hub's data on a file system that loses what was not flushed
// (scripts/powercut-fs.c), its power cut at random moments while tickets come in (scripts/powercut-hub.ts), and
// booted again each time. More cuts: `bun run bench power`.
import { afterAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { runPowercuts } from '../../scripts/powercut-hub.ts'
import { runUpgradeCuts } from '../../scripts/powercut-upgrade.ts'
import { PRINTHUB } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'

const CUTS = 8
const SEED = 57
const folders: string[] = []
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})
const folder = () => {
  const made = tempDir()
  folders.push(made)
  return made
}

test(
  `${CUTS} power cuts while tickets come in: the database opens sound each time, every job answered 202 is there, ` +
    'none printed twice, none COMPLETED that did not print',
  async () => {
    const report = await runPowercuts({ cuts: CUTS, seed: SEED, folder: folder(), printhub: [...PRINTHUB] })
    console.log(
      `power cuts: ${report.cuts} cuts (seed ${SEED}), ${report.accepted} jobs answered 202, ` +
        `checked ${report.checks} ` +
        `times; lost ${report.lost.length}, corrupt ${report.corrupt.length}, printed twice ` +
        `${report.printedTwice.length}, uncertain ${report.uncertain}; ${report.unflushedPages} pages not flushed at ` +
        `the cuts; slowest start ${Math.round(report.slowestStartMs)} ms; ${report.redoBoots} boots applied ` +
        `${report.redoRecords} records of the redo log`,
    )
    expect(report.cuts).toBe(CUTS)
    // The cuts came while batches were open: what was durable in the redo log only was applied at the boots after.
    expect(report.redoBoots).toBeGreaterThan(0)
    expect(report.accepted).toBeGreaterThan(CUTS * 10)
    expect(report.lost).toEqual([])
    expect(report.corrupt).toEqual([])
    expect(report.printedTwice).toEqual([])
    expect(report.completedUnprinted).toEqual([])
  },
  CUTS * 15_000 + 60_000,
)

test('power cuts during backups: the database as above, and an archive left in place restores', async () => {
  const report = await runPowercuts({
    cuts: 4,
    seed: SEED + 1,
    folder: folder(),
    printhub: [...PRINTHUB],
    backups: true,
  })
  console.log(
    `power cuts during backups: ${report.cuts} cuts, ${report.backups} backups made, ${report.restored} archives ` +
      `restored at a boot; lost ${report.lost.length}, corrupt ${report.corrupt.length}`,
  )
  expect(report.backups).toBeGreaterThan(0)
  expect(report.restored).toBeGreaterThan(0)
  expect(report.lost).toEqual([])
  expect(report.corrupt).toEqual([])
  expect(report.printedTwice).toEqual([])
}, 120_000)

test('power cuts while the retention pass prunes a day of old jobs: the database as above each time', async () => {
  const report = await runPowercuts({
    ...{ cuts: 4, seed: SEED + 2, folder: folder(), printhub: [...PRINTHUB] },
    seededJobs: 50_000,
  })
  console.log(
    `power cuts during pruning: ${report.cuts} cuts, ${report.cutsDuringPrune} while old jobs were being pruned; ` +
      `${report.jobsKept} jobs kept; lost ${report.lost.length}, corrupt ${report.corrupt.length}`,
  )
  expect(report.cutsDuringPrune).toBeGreaterThan(0)
  expect(report.lost).toEqual([])
  expect(report.corrupt).toEqual([])
  expect(report.printedTwice).toEqual([])
  expect(report.completedUnprinted).toEqual([])
}, 180_000)

test("power cuts as today's printhub first starts on the oldest schema: it migrates after, all jobs kept", async () => {
  const report = await runUpgradeCuts({ cuts: 10, seed: SEED + 3, folder: folder(), printhub: [...PRINTHUB] })
  console.log(
    `power cuts during an upgrade: ${report.cuts} cuts, ${report.duringStart} before the hub listened ` +
      `(${report.oldSchemaAfter} left the old schema, whole); ${report.jobsChecked} jobs looked for; ` +
      `lost ${report.lost.length}, corrupt ${report.corrupt.length}`,
  )
  expect(report.cuts).toBe(10)
  expect(report.duringStart).toBeGreaterThan(0)
  expect(report.lost).toEqual([])
  expect(report.corrupt).toEqual([])
}, 120_000)
