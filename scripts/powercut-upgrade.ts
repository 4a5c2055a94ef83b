// Power cuts during an upgrade: a data folder as an old printhub left it (test/fixtures/schemas/store-v1, the oldest
// schema, so that every migration runs, and the one-time compaction of a file made before its pages could be given
// back) is started by today's printhub on powercut-fs (scripts/powercut.ts), and the power is cut at a random
// (seeded) moment of that start. The next boot must open the database sound, migrate it to the newest schema and keep
// every job the old one had. For test/delivery/power-cut.test.ts and `bun run bench power`.
import { Database } from 'bun:sqlite'
import { randomUUID } from 'node:crypto'
import { appendFileSync, cpSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { DATABASE_FILE } from '../src/store/database.ts'
import { MIGRATIONS } from '../src/store/migrations.ts'
import { type Hub, random, startHub } from './powercut-hub.ts'
import { inBoot, mountPowercut } from './powercut.ts'

export const OLDEST_FIXTURE = join(import.meta.dir, '..', 'test', 'fixtures', 'schemas', 'store-v1')

export interface UpgradeCutOptions {
  cuts: number
  seed: number
  /** An empty folder: the file system's backing files, its mount point and the hubs' logs go in it. */
  folder: string
  /** How printhub is run (`bun src/main.ts`, or an executable). */
  printhub: string[]
  /** The old data folder (holding `data/` and `manifest.json`). */
  fixture?: string
}

export interface UpgradeCutReport {
  cuts: number
  /** Cuts that came before the hub listened: while it migrated, compacted or started. */
  duringStart: number
  /** Of those, cuts after which the next boot still found the old schema (the migration's work lost, as a whole). */
  oldSchemaAfter: number
  /** The old database's jobs, looked for after every cut. */
  jobsChecked: number
  lost: string[]
  corrupt: string[]
}

/** How long after its spawn the hub is cut: up to about its start-up time, so that most cuts fall within it. */
const CUT_WITHIN_MS = 900

/** The newest schema version in the database at `file`, and which of `ids` are jobs there. */
function inspect(file: string, ids: string[]): { version: number; found: Set<string> } {
  const db = new Database(file, { readonly: true })
  try {
    const version = db.query<{ v: number }, []>('SELECT max(version) AS v FROM schema_migrations').get()?.v ?? 0
    const found = db
      .query<{ id: string }, string[]>(`SELECT id FROM jobs WHERE id IN (${ids.map(() => '?').join(', ')})`)
      .all(...ids)
    return { version, found: new Set(found.map((row) => row.id)) }
  } finally {
    db.close(true)
  }
}

export async function runUpgradeCuts(options: UpgradeCutOptions): Promise<UpgradeCutReport> {
  const fixture = options.fixture ?? OLDEST_FIXTURE
  const next = random(options.seed)
  const report: UpgradeCutReport = { cuts: 0, duringStart: 0, oldSchemaAfter: 0, jobsChecked: 0, lost: [], corrupt: [] }
  const manifest = JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')) as { jobs: Record<string, string> }
  const newest = MIGRATIONS.at(-1)!.version
  for (let round = 0; round < options.cuts; round++) {
    const folder = join(options.folder, `round-${round}`)
    const backing = join(folder, 'backing')
    const mountpoint = join(folder, 'mnt')
    cpSync(join(fixture, 'data'), join(backing, 'data'), { recursive: true })
    const ids = [...inspect(join(backing, 'data', DATABASE_FILE), Object.values(manifest.jobs)).found]
    const dataDir = join(mountpoint, 'data')
    let mount = await mountPowercut(backing, mountpoint)
    const problems = report.lost.length + report.corrupt.length
    try {
      const log = join(folder, 'hub-upgrade.log')
      const upgrade = Bun.spawn(
        [
          ...inBoot(randomUUID(), folder),
          ...options.printhub,
          ...['serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir],
        ],
        { stdout: 'pipe', stderr: Bun.file(`${log}.stderr`) },
      )
      let listening = false
      void (async () => {
        const decoder = new TextDecoder()
        for await (const chunk of upgrade.stdout) {
          const text = decoder.decode(chunk, { stream: true })
          appendFileSync(log, text)
          if (text.includes(' listening on ')) listening = true
        }
      })()
      await Bun.sleep(next() * CUT_WITHIN_MS)
      upgrade.kill('SIGKILL')
      await upgrade.exited
      if (!listening) report.duringStart++
      mount.cut(Math.floor(next() * 2 ** 31))
      report.cuts++
      await mount.unmount()
      mount = await mountPowercut(backing, mountpoint)
      const before = inspect(join(dataDir, DATABASE_FILE), ids)
      if (!listening && before.version < newest) report.oldSchemaAfter++
      let hub: Hub
      try {
        hub = await startHub(options.printhub, dataDir, [inBoot(randomUUID(), folder), join(folder, 'hub-after.log')])
      } catch (error) {
        report.corrupt.push(`round ${round}: ${(error as Error).message.slice(0, 4_000)}`)
        continue
      }
      hub.process.kill('SIGTERM')
      await hub.process.exited
      const check = new Database(join(dataDir, DATABASE_FILE), { readonly: true })
      const found = check.query<Record<string, string>, []>('PRAGMA quick_check').all()
      check.close(true)
      if (found.length !== 1 || Object.values(found[0]!)[0] !== 'ok')
        report.corrupt.push(`round ${round}: ${JSON.stringify(found)}`)
      const after = inspect(join(dataDir, DATABASE_FILE), ids)
      if (after.version !== newest) report.corrupt.push(`round ${round}: schema ${after.version}, not ${newest}`)
      report.jobsChecked += ids.length
      for (const id of ids) if (!after.found.has(id)) report.lost.push(`round ${round}: ${id}`)
    } finally {
      await mount.unmount()
      // Kept for a look when this round found something.
      if (report.lost.length + report.corrupt.length === problems) rmSync(folder, { recursive: true, force: true })
    }
  }
  return report
}
