// `bun run bench disk`: what the hub writes to its disk (an SD card on a Raspberry Pi) for each job,
// and while idle. The venue's pattern: one job at a time, the café's receipt to the demo printer,
// the next submitted once the last is COMPLETED (followed on the event stream, as an application
// follows its jobs). Counted by the kernel: `write_bytes` of /proc/PID/io, the bytes the hub
// process sent to storage (the page cache's pages it dirtied, 4 KB each), its log included (written
// to a file on the same disk, as a journal would). Twice: 1,000 jobs back to back (the target's
// measure), then jobs each written back to the disk (`sync`) before the next, as minutes between a
// venue's tickets have it: then a page two jobs touch (the log's last page, the write-ahead log's
// index, a file's inode) is written for each, not once for both. Where the bytes go is read from the
// database's write-ahead log over a few jobs (scripts/wal-pages.ts): commits per job, pages per
// commit, and which table or index each page belongs to. Yardsticks in the same run, both ways
// (scripts/bench-disk-floor.ts): the job as one bare row, and in the hub's own schema, inserted and
// COMPLETED, each commit flushed. The same run gives the hub's CPU time per job.
import { Database } from 'bun:sqlite'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { REDO_BATCH_MS } from '../src/sqlite/redo-batch.ts'
import { snapshotDatabase } from '../src/sqlite/database.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import { RECEIPT } from './bench-api.ts'
import {
  cpuMs,
  initDataDir,
  newDataDir,
  type Project,
  removeDataDir,
  round,
  sized,
  sleep,
  spawn,
  startHub,
} from './bench-hub.ts'
import type { SectionResult } from './bench.ts'
import { commitsSince, fileSystemPages, pageOwners, type WalCommit, walMark } from './wal-pages.ts'

const JOBS = sized(1_000, 100)
const SPACED_JOBS = sized(200, 30)
const WARM_UP_JOBS = 20
/**
 * How long jobs run back to back while the write-ahead log is read, to say which pages their batch's commit wrote:
 * after a pause, less than a batch lasts (sqlite/batched-commit.ts: committed REDO_BATCH_MS after it opened), so
 * that one batch holds them all. Its commit may start the log over (a checkpoint made after the last batch's).
 */
const BREAKDOWN_MS = (REDO_BATCH_MS * 3) / 4
const IDLE_SECONDS = sized(180, 15)
const SETTLE_SECONDS = sized(30, 5)
const TARGET_BYTES_PER_JOB = 32 * 1024
const TARGET_CPU_US_PER_JOB = 600
const JOB_TIMEOUT_MS = 10_000
/** The hand-over marks of a job (agent/hand-over-marks.ts) fall in one page of their file. */
const MARKS_PAGE = 4096

interface Io {
  writeBytes: number
  wchar: number
}

function io(pid: number): Io {
  const text = readFileSync(`/proc/${pid}/io`, 'utf8')
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)![1])
  return { writeBytes: field('write_bytes'), wchar: field('wchar') }
}

function logBytes(dir: string): number {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.log'))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0)
}

/** The project's event stream, read for its jobs' COMPLETED. */
async function followCompletions(url: string, project: Project) {
  const abort = new AbortController()
  const response = await fetch(`${url}/v1/projects/${project.projectId}/events`, {
    headers: { authorization: `Bearer ${project.apiKey}` },
    signal: abort.signal,
  })
  if (response.status !== 200 || !response.body) throw new Error(`the event stream answered ${response.status}`)
  const completed = new Set<string>()
  const waiting = new Map<string, () => void>()
  void (async () => {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of response.body!) {
        buffer += decoder.decode(chunk, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1]
          buffer = buffer.slice(end + 2)
          const event = data ? (JSON.parse(data) as { type?: string; state?: string; job?: { id: string } }) : {}
          if (event.type !== 'job.state_changed' || event.state !== 'COMPLETED' || !event.job) continue
          completed.add(event.job.id)
          waiting.get(event.job.id)?.()
        }
      }
    } catch {
      // Aborted at the end.
    }
  })()
  return {
    async completed(jobId: string): Promise<void> {
      if (completed.has(jobId)) return
      const timer = { id: undefined as Timer | undefined }
      await new Promise<void>((resolve, reject) => {
        waiting.set(jobId, resolve)
        timer.id = setTimeout(
          () => reject(new Error(`job ${jobId} not COMPLETED in ${JOB_TIMEOUT_MS} ms`)),
          JOB_TIMEOUT_MS,
        )
      }).finally(() => {
        clearTimeout(timer.id)
        waiting.delete(jobId)
      })
    },
    close: () => abort.abort(),
  }
}

interface Breakdown {
  commits: number
  frames: number
  pageSize: number
  /** The write-ahead log's bytes a job, in the 4 KB pages of the file system its frames fall in. */
  walBytes: number
  /** Frames a job, by the table or index they belong to, most first. */
  byOwner: [string, number][]
}

function breakdownOf(file: string, commits: WalCommit[], pageSize: number, jobs: number): Breakdown {
  const owner = pageOwners(file)
  const counts = new Map<string, number>()
  for (const page of commits.flatMap((commit) => commit.pages))
    counts.set(owner(page), (counts.get(owner(page)) ?? 0) + 1)
  const byOwner = [...counts].map(([name, n]) => [name, n / jobs] as [string, number])
  byOwner.sort((a, b) => b[1] - a[1])
  const frames = commits.reduce((sum, commit) => sum + commit.pages.length, 0)
  const walPages = commits.reduce((sum, commit) => sum + fileSystemPages(commit), 0)
  return {
    commits: commits.length / jobs,
    frames: frames / jobs,
    pageSize,
    walBytes: (walPages * 4096) / jobs,
    byOwner,
  }
}

interface Both {
  together: number
  spaced: number
}

async function floors(dir: string, remoteId: string): Promise<{ row: Both; schema: Both }> {
  const copy = join(dir, 'floor.db')
  snapshotDatabase(join(dir, DATABASE_FILE), copy)
  const db = new Database(copy, { readonly: true })
  const printerId = db.query<{ id: string }, [string]>('SELECT id FROM printers WHERE remote_id = ?').get(remoteId)!.id
  db.close()
  const child = spawn(['scripts/bench-disk-floor.ts', copy, printerId, String(JOBS), String(SPACED_JOBS)])
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  if (code !== 0) throw new Error(`the disk yardstick failed: ${err}`)
  return JSON.parse(out) as { row: Both; schema: Both }
}

export async function diskSection(): Promise<SectionResult> {
  const dir = newDataDir()
  const project = await initDataDir(dir)
  const hub = await startHub(dir)
  const file = join(dir, DATABASE_FILE)
  const wal = `${file}-wal`
  const stream = await followCompletions(hub.url, project)
  let next = 0
  const printOne = async (spaced = false) => {
    const response = await fetch(`${hub.url}/v1/projects/${project.projectId}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ printerId: 'demo', idempotencyKey: `disk-${next++}`, document: RECEIPT }),
    })
    if (response.status !== 202) throw new Error(`a submission answered ${response.status}`)
    await stream.completed(((await response.json()) as { job: { id: string } }).job.id)
    if (!spaced) return
    // Minutes apart, each job's batch is committed alone before the next (REDO_BATCH_MS after it opened), and what
    // it wrote is written back before the next job: as a venue's tickets come.
    await sleep(REDO_BATCH_MS + 300)
    if (Bun.spawnSync(['sync']).exitCode !== 0) throw new Error('sync failed')
  }
  try {
    for (let i = 0; i < WARM_UP_JOBS; i++) await printOne()
    const before = io(hub.pid)
    const cpuBefore = cpuMs(hub.pid)
    const logBefore = logBytes(dir)
    for (let i = 0; i < JOBS; i++) await printOne()
    const after = io(hub.pid)
    const cpuUsPerJob = ((cpuMs(hub.pid) - cpuBefore) * 1000) / JOBS
    const perJob = (after.writeBytes - before.writeBytes) / JOBS
    const logPerJob = (logBytes(dir) - logBefore) / JOBS
    const spacedBefore = io(hub.pid)
    for (let i = 0; i < SPACED_JOBS; i++) await printOne(true)
    const spacedPerJob = (io(hub.pid).writeBytes - spacedBefore.writeBytes) / SPACED_JOBS

    // More jobs, in one batch, read from the log once it is committed; again if the log started over otherwise.
    let window: ReturnType<typeof commitsSince>
    let breakdownJobs = 0
    for (let tries = 0; tries < 10 && !window; tries++) {
      await sleep(REDO_BATCH_MS + 300)
      const mark = walMark(wal)
      const until = performance.now() + BREAKDOWN_MS
      for (breakdownJobs = 0; performance.now() < until; breakdownJobs++) await printOne()
      await sleep(REDO_BATCH_MS + 300)
      window = commitsSince(wal, mark, { restartedByFirst: true })
    }
    if (!window) throw new Error('the write-ahead log started over during every breakdown window')
    const breakdown = breakdownOf(file, window.commits, window.pageSize, breakdownJobs)

    // Idle: once what the last jobs left (a checkpoint, a retention step) is done; the window holds the hub's
    // periodic work (retention every minute, the agent's heartbeats).
    await sleep(SETTLE_SECONDS * 1000)
    const idleBefore = io(hub.pid)
    await sleep(IDLE_SECONDS * 1000)
    const idlePerHour = ((io(hub.pid).writeBytes - idleBefore.writeBytes) * 3600) / IDLE_SECONDS
    const floor = await floors(dir, project.printerId)
    const wcharPerJob = (after.wchar - before.wchar) / JOBS
    return report({ perJob, spacedPerJob, wcharPerJob, logPerJob, cpuUsPerJob }, breakdown, {
      idlePerHour,
      floor,
    })
  } finally {
    stream.close()
    await hub.stop()
    removeDataDir(dir)
  }
}

const kb = (bytes: number) => `${round(bytes / 1024, 1)} KB`

function report(
  measured: { perJob: number; spacedPerJob: number; wcharPerJob: number; logPerJob: number; cpuUsPerJob: number },
  breakdown: Breakdown,
  { idlePerHour, floor }: { idlePerHour: number; floor: { row: Both; schema: Both } },
): SectionResult {
  const jobBytes = JSON.stringify(RECEIPT).length
  // Spaced, each job's log lines start a page the last job's were written back from (one more where they cross into
  // the next), and its hand-over marks (16 bytes) fall in one page of their file.
  const logPages = (1 + measured.logPerJob / 4096) * 4096
  return {
    report: [
      `disk: jobs one at a time to the demo printer (a ${jobBytes}-byte receipt), write_bytes of the hub process`,
      `written a job, ${JOBS.toLocaleString('en')} back to back   ${kb(measured.perJob)} ` +
        `(write calls' bytes ${kb(measured.wcharPerJob)}; yardsticks: bare row ${kb(floor.row.together)}, ` +
        `the hub's jobs table and document ${kb(floor.schema.together)})`,
      `  the write-ahead log          ${kb(breakdown.walBytes)}: ${round(breakdown.commits, 3)} batch commits, ` +
        `${round(breakdown.frames, 1)} pages of ${breakdown.pageSize} bytes, in the file system's 4 KB pages`,
      `  the log's lines              ${kb(measured.logPerJob)}`,
      `  the rest                     ${kb(measured.perJob - breakdown.walBytes - measured.logPerJob)} ` +
        "(the redo log's records, a page or two of 4 KB each; checkpoints; the log's index -shm; the hand-over marks)",
      `written a job, ${SPACED_JOBS} written back after each   ${kb(measured.spacedPerJob)} ` +
        `(yardsticks: bare row ${kb(floor.row.spaced)}, the hub's jobs table and document ` +
        `${kb(floor.schema.spaced)}); of it the log ${kb(logPages)}, the hand-over marks ${kb(MARKS_PAGE)}`,
      `pages a job in the batches' commits, by table or index (over ${BREAKDOWN_MS / 1000} s of jobs):`,
      ...breakdown.byOwner.map(([name, n]) => `  ${name.padEnd(32)} ${round(n, 1)}`),
      `written an idle hour           ${kb(idlePerHour)} ` +
        `(over ${IDLE_SECONDS} s, ${SETTLE_SECONDS} s after the last job)`,
      `hub CPU a job, one at a time   ${Math.round(measured.cpuUsPerJob)} µs`,
    ],
    checks: [
      {
        name: 'bytes written a job',
        value: round(measured.perJob / 1024, 1),
        unit: ' KB',
        target: `<= ${TARGET_BYTES_PER_JOB / 1024} KB (bare row ${kb(floor.row.together)})`,
        pass: measured.perJob <= TARGET_BYTES_PER_JOB,
      },
      {
        name: 'bytes a job, written back after each',
        value: round(measured.spacedPerJob / 1024, 1),
        unit: ' KB',
        target: `measured (bare row ${kb(floor.row.spaced)})`,
        pass: true,
      },
      {
        name: 'hub CPU a job, one at a time',
        value: Math.round(measured.cpuUsPerJob),
        unit: ' µs',
        target: `< ${TARGET_CPU_US_PER_JOB} µs`,
        pass: measured.cpuUsPerJob < TARGET_CPU_US_PER_JOB,
      },
    ],
    results: { jobs: JOBS, spacedJobs: SPACED_JOBS, jobBytes, ...measured, breakdown, idlePerHour, floor },
  }
}
