// Where the hub's SQLite time goes, statement by statement: preloaded into the hub by the bench
// (PRINTHUB_BENCH_HUB_FLAGS="--preload ./scripts/sql-times.ts" bun run bench --quick delivery),
// it times every run of every statement made through bun:sqlite (a prepared one's run, get, all
// and values; a database's run, which prepares its text each time) and adds the time up by the
// statement's text. At exit it appends the 40 largest, with their calls, the mean and the median,
// and the runs of a millisecond or more (their count and time), to SQL_TIMES_FILE (default
// /tmp/printhub-sql-times.txt), one block per process. The median says
// what a statement costs in the hub, where its pages and program are seldom in the CPU's caches: a
// few times what the same statement costs run in a loop.
import { Database } from 'bun:sqlite'
import { appendFileSync } from 'node:fs'

const SHOWN = 40
/** Runs kept per statement for its median. */
const SAMPLES = 20_000

interface Figures {
  calls: number
  ms: number
  samples: number[]
  /** Runs of a millisecond or more (a commit that checkpointed, say), and their time. */
  slow: number
  slowMs: number
}

const times = new Map<string, Figures>()

function record(sql: string, started: number): void {
  const took = performance.now() - started
  const key = sql.replace(/\s+/g, ' ').trim().slice(0, 160)
  let figures = times.get(key)
  if (!figures) times.set(key, (figures = { calls: 0, ms: 0, samples: [], slow: 0, slowMs: 0 }))
  figures.calls++
  figures.ms += took
  if (took >= 1) {
    figures.slow++
    figures.slowMs += took
  }
  if (figures.samples.length < SAMPLES) figures.samples.push(took)
}

type Method = (...args: unknown[]) => unknown
const timed = (sql: string, original: Method, self: unknown): Method =>
  function (...args: unknown[]) {
    const started = performance.now()
    try {
      return original.apply(self, args)
    } finally {
      record(sql, started)
    }
  }

const wrapped = new WeakSet<object>()
// A statement's methods are its own properties (bun:sqlite sets them per statement).
function wrapStatement<T extends object>(statement: T, sql: string): T {
  if (wrapped.has(statement)) return statement
  wrapped.add(statement)
  const methods = statement as unknown as Record<string, Method>
  for (const name of ['run', 'get', 'all', 'values']) methods[name] = timed(sql, methods[name]!, statement)
  return statement
}

const database = Database.prototype as unknown as Record<string, Method>
for (const name of ['query', 'prepare']) {
  const original = database[name]!
  database[name] = function (this: Database, sql: unknown, ...rest: unknown[]) {
    return wrapStatement(original.call(this, sql, ...rest) as object, String(sql))
  }
}
const run = database.run!
database.run = function (this: Database, sql: unknown, ...rest: unknown[]) {
  return timed(String(sql), run, this)(sql, ...rest)
}

const median = (samples: number[]) => samples.sort((a, b) => a - b)[samples.length >> 1] ?? 0

process.on('exit', () => {
  const rows = [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, SHOWN)
  const µs = (ms: number) => (ms * 1_000).toFixed(2).padStart(8)
  const lines = rows.map(
    ([sql, f]) =>
      `${f.ms.toFixed(1).padStart(9)} ms ${String(f.calls).padStart(8)} calls  ` +
      `mean ${µs(f.ms / f.calls)} µs  p50 ${µs(median(f.samples))} µs  ≥1 ms ` +
      `${String(f.slow).padStart(4)} (${f.slowMs.toFixed(1).padStart(6)} ` +
      `ms)  ${sql}`,
  )
  appendFileSync(
    process.env.SQL_TIMES_FILE ?? '/tmp/printhub-sql-times.txt',
    `--- pid ${process.pid} (${process.argv.slice(2).join(' ')})\n${lines.join('\n')}\n`,
  )
})
