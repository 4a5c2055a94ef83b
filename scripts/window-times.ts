// How long each job is uncertain in the hub, the window a crash can catch: preloaded into the hub
// by the bench (PRINTHUB_BENCH_HUB_FLAGS="--preload ./scripts/window-times.ts" bun run bench crash),
// it times each job from its hand-over mark (just before its first byte) to its printed mark (the
// printer's confirmation read), and the time from the first mark to the last printed mark. A kill
// at a random moment of that time finds a job in the window with the share of the time the windows
// cover: 40 kills find about 40 times that many. The crash bench kills the hub, so no exit hook
// runs: every 50 ms the figures so far are written to WINDOW_TIMES_DIR (default
// /tmp/printhub-window-times), one file per process; `bun scripts/window-times.ts` sums the files
// there, then removes them. Times are performance.timeOrigin + performance.now() (milliseconds on
// the wall clock, to the microsecond), comparable with another process's taken the same way.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { MarksRun } from '../src/agent/marks-run.ts'

const DIR = process.env.WINDOW_TIMES_DIR ?? '/tmp/printhub-window-times'
/** Windows kept per process for the percentiles. */
const SAMPLES = 50_000

interface Figures {
  /** Each window's length in ms (the first SAMPLES). */
  windows: number[]
  count: number
  totalMs: number
  firstMark: number
  lastPrinted: number
}

const now = () => performance.timeOrigin + performance.now()

function preload(): void {
  mkdirSync(DIR, { recursive: true })
  const file = join(DIR, `${process.pid}.json`)
  const figures: Figures = { windows: [], count: 0, totalMs: 0, firstMark: 0, lastPrinted: 0 }
  const marked = new Map<string, number>()
  const prototype = MarksRun.prototype
  const { handingOver, printed } = prototype
  prototype.handingOver = function (this: MarksRun, printerId: string, seq: number) {
    const at = now()
    figures.firstMark ||= at
    marked.set(`${printerId} ${seq}`, at)
    return handingOver.call(this, printerId, seq)
  }
  prototype.printed = function (this: MarksRun, printerId: string, seq: number) {
    const at = now()
    const since = marked.get(`${printerId} ${seq}`)
    if (since !== undefined) {
      marked.delete(`${printerId} ${seq}`)
      const ms = at - since
      if (figures.windows.length < SAMPLES) figures.windows.push(ms)
      figures.count++
      figures.totalMs += ms
      figures.lastPrinted = at
    }
    return printed.call(this, printerId, seq)
  }
  let written = 0
  setInterval(() => {
    if (figures.count === written) return
    written = figures.count
    writeFileSync(file, JSON.stringify(figures))
  }, 50).unref()
}

const nothing = () => console.log(`no windows in ${DIR}: run the crash bench with this file preloaded first`)

function summarize(): void {
  if (!existsSync(DIR)) return nothing()
  const runs = readdirSync(DIR)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(DIR, name), 'utf8')) as Figures)
  const windows = runs.flatMap((run) => run.windows).sort((a, b) => a - b)
  const count = runs.reduce((sum, run) => sum + run.count, 0)
  const covered = runs.reduce((sum, run) => sum + run.totalMs, 0)
  const spanned = runs.reduce((sum, run) => sum + (run.lastPrinted - run.firstMark), 0)
  if (count === 0) return nothing()
  const at = (q: number) => windows[Math.floor(q * (windows.length - 1))]!.toFixed(3)
  console.log(
    `${runs.length} hub processes, ${count} jobs: window mean ` +
      `${(covered / count).toFixed(3)} ms, p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ` +
      `${at(0.99)}; a job's turn ${(spanned / count).toFixed(3)} ms`,
  )
  console.log(
    `share of the time a job is in its window: ` +
      `${((100 * covered) / spanned).toFixed(1)} % (about ` +
      `${((40 * covered) / spanned).toFixed(1)} uncertain in 40 kills)`,
  )
  rmSync(DIR, { recursive: true, force: true })
}

if (import.meta.main) summarize()
else preload()
