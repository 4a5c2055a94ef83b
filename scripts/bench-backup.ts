// The backup part of `bun run bench`: a hub's database with 100,000 jobs (seeded straight into
// SQLite, as the api section does), then
//   1. `printhub backup` as its own process: wall time, the database's and the archive's sizes,
//   2. `printhub restore` of that archive into a new directory: wall time,
//   3. how long this process's event loop waits while the hub's way of making a backup (a
//      `printhub backup` process of its own) runs: the longest gap between 5 ms timer ticks,
//   4. for comparison, how long the same backup would hold the event loop if made in-process.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { backupInChildProcess, thisPrinthub } from '../src/hub/backup-process.ts'
import { makeBackup } from '../src/services/backup.ts'
import { initialize } from '../src/services/init.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import { Store } from '../src/store/store.ts'
import { seedJobs } from './bench-seed.ts'
import type { SectionResult } from './bench.ts'
import { sized } from './bench-hub.ts'

const JOBS = sized(100_000, 20_000)
/** The hub's requests wait at most this long for a backup being made (the longest timer gap). */
const TARGET_LOOP_GAP_MS = 50
const TICK_MS = 5

const MB = 1_048_576
const round = (value: number, digits = 1) => Number(value.toFixed(digits))

async function timed(argv: string[]): Promise<number> {
  const started = performance.now()
  const child = Bun.spawn(argv, { stdout: 'pipe', stderr: 'pipe' })
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
  if (code !== 0) throw new Error(`${argv.slice(2).join(' ')} exited ${code}: ${stderr}`)
  return performance.now() - started
}

export async function backupSection(): Promise<SectionResult> {
  console.log(`backup: ${JOBS.toLocaleString('en')} jobs seeded, then backup and restore...`)
  const dir = mkdtempSync(join(tmpdir(), 'printhub-bench-backup-'))
  try {
    const data = join(dir, 'data')
    const store = Store.open({ dataDir: data, create: true, maxOpenJobsPerProject: JOBS })
    const { projectId } = await initialize(store, data)
    store.close()
    seedJobs(data, projectId, JOBS)
    const databaseMb = statSync(join(data, DATABASE_FILE)).size / MB
    const printhub = thisPrinthub()

    const archive = join(dir, 'bench.phbackup')
    const backupMs = await timed([...printhub, 'backup', '--data', data, '--out', archive])
    const archiveMb = statSync(archive).size / MB
    const restoreMs = await timed([...printhub, 'restore', archive, '--data', join(dir, 'restored')])

    // The hub's way: a process of its own; this event loop only waits for its answer. It stands in
    // for the hub's: the garbage of the sections before (the retention's, in this process) is
    // collected first, so that its collection is not counted as the backup's.
    Bun.gc(true)
    let last = performance.now()
    let longestGap = 0
    const ticker = setInterval(() => {
      const now = performance.now()
      longestGap = Math.max(longestGap, now - last - TICK_MS)
      last = now
    }, TICK_MS)
    const outcome = await backupInChildProcess(data, printhub)(
      join(dir, 'hub.phbackup'),
      false,
      new AbortController().signal,
    )
    clearInterval(ticker)
    if (!outcome.ok) throw new Error(`the hub's backup failed: ${outcome.message}`)

    const started = performance.now()
    const inProcess = makeBackup({ dataDir: data, out: join(dir, 'in-process.phbackup') })
    const inProcessMs = performance.now() - started
    if (!inProcess.ok) throw new Error(`the in-process backup failed: ${inProcess.message}`)

    return {
      report: [
        `backup (${JOBS.toLocaleString('en')} jobs, database ${round(databaseMb)} MB)`,
        `printhub backup: ${Math.round(backupMs)} ms wall, archive ` +
          `${round(archiveMb)} MB (${round((archiveMb / databaseMb) * 100)} % of ` +
          `the database)`,
        `printhub restore: ${Math.round(restoreMs)} ms wall`,
        `the hub's event loop while its backup process ran: longest timer gap ${round(longestGap, 1)} ms`,
        `the same backup in-process would hold the event loop ${Math.round(inProcessMs)} ms`,
      ],
      checks: [
        {
          name: 'event loop gap during a backup',
          value: round(longestGap, 1),
          unit: ' ms',
          target: `< ${TARGET_LOOP_GAP_MS} ms`,
          pass: longestGap < TARGET_LOOP_GAP_MS,
        },
      ],
      results: { jobs: JOBS, databaseMb, archiveMb, backupMs, restoreMs, longestGapMs: longestGap, inProcessMs },
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
