// The API differential: the same scenario against a hub started from another revision's sources and one from this
// working tree, each on a fresh data directory, with every answer of the public and admin APIs recorded, normalised
// (generated IDs, keys, tokens, times, ports and paths as placeholders) and compared. Exit 0 when no request's
// recording differs (but as a file of known differences says), 1 otherwise.
//
//   bun scripts/api-differential.ts --base REV [--out DIR] [--expect FILE] [--base-env K=V]… [--current-env K=V]…
//
// --base REV      the revision to compare with, checked out in a temporary git worktree (`.`: this working tree,
//                 to compare the working tree with itself, e.g. under two environments)
// --out DIR       where both recordings (base.json, current.json), the differences and the hubs' logs are written
//                 (default: a new temporary directory, kept)
// --expect FILE   known differences, a line each: METHOD PATH JSONPATH reason (globs with *), # for comments
// --base-env, --current-env   an environment variable for one side's processes only
// --current-store postgres    the current side as a node of a cluster, on a PostgreSQL started for the run (Debian's,
//                 as the tests start it): the same scenario against one hub on SQLite and a cluster on PostgreSQL
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { adminScenario } from './api-differential/admin-scenario.ts'
import { compare, describe, readExpectations, report } from './api-differential/compare.ts'
import { coverage } from './api-differential/coverage.ts'
import { HubSide } from './api-differential/hub.ts'
import { publicScenario } from './api-differential/public-scenario.ts'
import { Receiver, setUp } from './api-differential/setup.ts'
import { migrate } from '../src/pgstore/migrate.ts'
import { startPostgres, type TestPostgres } from '../test/support/postgres.ts'

const ROOT = resolve(import.meta.dir, '..')

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    out: { type: 'string' },
    expect: { type: 'string' },
    'base-env': { type: 'string', multiple: true },
    'current-env': { type: 'string', multiple: true },
    'current-store': { type: 'string' },
  },
})
if (!values.base) {
  console.error('usage: bun scripts/api-differential.ts --base REV [--out DIR] [--expect FILE]')
  process.exit(2)
}

function git(args: string[]): string {
  const run = Bun.spawnSync(['git', ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  if (run.exitCode !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.toString()}`)
  return run.stdout.toString().trim()
}

const envOf = (pairs: string[] = []) =>
  Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]))

/** What both sides' processes are given: the same, so that only the sources differ. */
const SHARED_ENV: Record<string, string> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/root',
  TZ: 'UTC',
  LANG: 'C.UTF-8',
}

const temp = mkdtempSync(join(tmpdir(), 'printhub-differential-'))
const out = resolve(values.out ?? mkdtempSync(join(tmpdir(), 'printhub-differential-out-')))
mkdirSync(out, { recursive: true })
const worktree = values.base === '.' ? undefined : join(temp, 'base-tree')
const sides: HubSide[] = []
const receiver = new Receiver()
let postgres: TestPostgres | undefined
if (values['current-store'] !== undefined && values['current-store'] !== 'postgres') {
  console.error('--current-store takes postgres')
  process.exit(2)
}

async function migrateStore(url: string): Promise<void> {
  const sql = new Bun.SQL(url)
  try {
    await migrate(sql)
  } finally {
    await sql.close()
  }
}

async function cleanUp(): Promise<void> {
  for (const side of sides) side.kill()
  receiver.stop()
  await postgres?.stop()
  if (worktree) {
    try {
      git(['worktree', 'remove', '--force', worktree])
    } catch (error) {
      console.error(String(error))
    }
  }
  rmSync(temp, { recursive: true, force: true })
}

process.on('SIGINT', () => void cleanUp().then(() => process.exit(130)))

/** Runs the whole scenario on one side; a failure is recorded where it happened, and the hub stopped. */
async function run(side: HubSide): Promise<void> {
  const started = Date.now()
  try {
    const context = await setUp(side, receiver)
    await publicScenario(context)
    await adminScenario(context)
  } catch (error) {
    side.record({ method: 'ERROR', path: '', status: 0, headers: {}, body: String(error) })
    console.error(`${side.options.name}: ${error instanceof Error ? error.stack : error}`)
  } finally {
    await side.stop()
  }
  console.error(
    `${side.options.name}: ${side.entries.length} entries in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  )
}

let exitCode = 1
try {
  if (worktree) {
    const revision = git(['rev-parse', '--verify', `${values.base}^{commit}`])
    git(['worktree', 'add', '--detach', worktree, revision])
    symlinkSync(join(ROOT, 'node_modules'), join(worktree, 'node_modules'))
    console.error(`base: ${revision} in ${worktree}`)
  }
  const base = new HubSide({
    name: 'base',
    tree: worktree ?? ROOT,
    dataDir: join(temp, 'base', 'data'),
    env: { ...SHARED_ENV, ...envOf(values['base-env']) },
  })
  postgres = values['current-store'] ? await startPostgres() : undefined
  const store = postgres && (await postgres.database('differential'))
  const current = new HubSide({
    name: 'current',
    tree: ROOT,
    dataDir: join(temp, 'current', 'data'),
    env: { ...SHARED_ENV, ...envOf(values['current-env']) },
    ...(store ? { store } : {}),
  })
  // The cluster's schema, applied as a technician does, not recorded (a hub has no such step).
  if (store) await migrateStore(store)
  sides.push(base, current)
  for (const side of sides) {
    mkdirSync(join(side.options.dataDir, '..'), { recursive: true })
    await run(side)
    writeFileSync(join(out, `${side.options.name}.json`), `${JSON.stringify(side.entries, null, 2)}\n`)
    writeFileSync(join(out, `${side.options.name}.log`), side.log)
  }
  const expectations = values.expect ? readExpectations(values.expect) : []
  const found = compare(base.entries, current.entries, expectations)
  writeFileSync(join(out, 'differences.txt'), `${found.map(describe).join('\n')}\n`)
  console.log(`recordings in ${out}`)
  for (const line of coverage([base.entries, current.entries])) console.log(line)
  exitCode = report(found, Math.max(base.entries.length, current.entries.length)) === 0 ? 0 : 1
} catch (error) {
  console.error(error instanceof Error ? error.stack : error)
} finally {
  await cleanUp()
}
process.exit(exitCode)
