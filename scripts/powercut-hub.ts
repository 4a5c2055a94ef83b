// A hub under power cuts, for test/delivery/power-cut.test.ts and `bun run bench power`: `printhub
// serve` with its data on powercut-fs (scripts/powercut.ts), two emulated printers on TCP (they
// answer status and confirm each job), and a client submitting tickets as fast as the hub takes
// them. At a random (seeded) moment the hub is killed with -9 and the power cut: what was not
// flushed is partly written, partly lost. Then the machine "boots" again (a new boot ID) and the hub
// starts on what is left. At each boot: the database must pass SQLite's quick check, and every job
// answered 202 before must exist. At the end every job must have ended (COMPLETED or FAILED), none
// printed twice, none COMPLETED that did not print.
import { Database } from 'bun:sqlite'
import { randomUUID } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { PrinterEmulator } from '../src/emulator/emulator.ts'
import { JOB_STATE_SETS } from '../src/domain/job-transitions.ts'
import { MAX_OPEN_JOBS } from '../src/domain/settings.ts'
import { findProfile } from '../src/profiles/catalog.ts'
import { stateIn } from '../src/store/sql.ts'
import { seedJobs } from './bench-seed.ts'
import { inBoot, mountPowercut, type PowercutMount } from './powercut.ts'

export interface PowercutOptions {
  cuts: number
  seed: number
  /** An empty folder: the file system's backing files and its mount point go in it. */
  folder: string
  /** How printhub is run (`bun src/main.ts`, or an executable). */
  printhub: string[]
  /**
   * Backups made one after another while tickets come in (`printhub backup`, to the same disk): the power is cut
   * during one too; an archive found at a boot must restore.
   */
  backups?: boolean
  /**
   * Finished jobs of the past days seeded before the first start (one every 2 s) with a retention of one day: the
   * hub prunes the older ones in steps as it starts, and the power is cut during that too.
   */
  seededJobs?: number
}

export interface PowercutReport {
  cuts: number
  /** Jobs answered 202, each looked for at every boot after. */
  accepted: number
  checks: number
  lost: string[]
  corrupt: string[]
  printedTwice: string[]
  completedUnprinted: string[]
  /** Jobs FAILED as may-have-printed (job.recovery_uncertain): the hub could not know, so it did not print again. */
  uncertain: number
  slowestStartMs: number
  /** Pages written and not flushed when the power went, over all cuts: each written or lost at random. */
  unflushedPages: number
  /** Backups finished, and archives found at a boot that restored. */
  backups: number
  restored: number
  /** Jobs in the database at the end (seeded, pruned, and submitted). */
  jobsKept: number
  /** Cuts that came while the retention pass was pruning: some of the old jobs were gone at the boot after, not all. */
  cutsDuringPrune: number
  /** Boots that applied records of the redo log (changes a cut left on disk there only), and how many. */
  redoBoots: number
  redoRecords: number
}

/** Clients submitting at once, each as fast as the hub answers. */
const CLIENTS = 4
const START_TIMEOUT_MS = 20_000
const SETTLE_TIMEOUT_MS = 60_000

/** The same random numbers from the same seed (xorshift32), in [0, 1). */
export function random(seed: number): () => number {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
}

export interface Hub {
  url: string
  process: ReturnType<typeof Bun.spawn>
  startMs: number
  /** What it wrote to stderr, once it exited. */
  errors: Promise<string>
}

/** `printhub serve` on `dataDir`, run under `boot`; its output kept in `log` (and `log.stderr`). */
export async function startHub(printhub: string[], dataDir: string, [boot, log]: [string[], string]): Promise<Hub> {
  const started = performance.now()
  const child = Bun.spawn([...boot, ...printhub, 'serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir], {
    stdout: 'pipe',
    stderr: Bun.file(`${log}.stderr`),
  })
  let seen = ''
  const errors = child.exited.then(() => readFileSync(`${log}.stderr`, 'utf8'))
  const reader = child.stdout.getReader()
  const decoder = new TextDecoder()
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the hub did not listen in ${START_TIMEOUT_MS} ms:\n${seen}`)),
      START_TIMEOUT_MS,
    )
    void (async () => {
      // Read for its whole life, so that its log never fills the pipe.
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        const text = decoder.decode(value, { stream: true })
        // Kept beside the file system's folders, for a look after a failure.
        appendFileSync(log, text)
        seen = (seen + text).slice(-20_000)
        const found = / listening on (http:\/\/[^\s,]+)/.exec(seen)
        if (found) {
          clearTimeout(timer)
          resolve(found[1]!)
        }
      }
      clearTimeout(timer)
      reject(new Error(`the hub exited before listening:\n${seen}\n${await errors}`))
    })()
  })
  return { url, process: child, startMs: performance.now() - started, errors }
}

/** Runs the rounds; the report says what every boot found. */
export async function runPowercuts(options: PowercutOptions): Promise<PowercutReport> {
  const next = random(options.seed)
  const report: PowercutReport = {
    ...{ cuts: 0, accepted: 0, checks: 0, lost: [], corrupt: [], printedTwice: [], completedUnprinted: [] },
    ...{ uncertain: 0, slowestStartMs: 0, unflushedPages: 0, backups: 0, restored: 0, jobsKept: 0, cutsDuringPrune: 0 },
    ...{ redoBoots: 0, redoRecords: 0 },
  }
  const backing = join(options.folder, 'backing')
  const mountpoint = join(options.folder, 'mnt')
  const dataDir = join(mountpoint, 'data')
  const archive = join(mountpoint, 'hub-backup.tar')
  const printed = new Map<string, number>()
  const profile = findProfile('epson-tm-t20iii')!
  const printers = [0, 1].map(() =>
    PrinterEmulator.listen({
      ...{ hostname: '127.0.0.1', port: 0, profile, width: 80 },
      onReceipt: (receipt) => {
        for (const key of receipt.preview.text.join(' ').match(/ticket cut-\d+-\d+/g) ?? [])
          printed.set(key.slice(7), (printed.get(key.slice(7)) ?? 0) + 1)
      },
    }),
  )
  // Set up the day before, on disk: straight in the backing folder.
  const setUp = join(backing, 'data')
  const run = (args: string[]) => {
    const result = Bun.spawnSync([...options.printhub, ...args, '--data', setUp], { stdout: 'pipe', stderr: 'pipe' })
    if (result.exitCode !== 0) throw new Error(`printhub ${args.join(' ')}: ${result.stderr.toString()}`)
    return result.stdout.toString()
  }
  const accepted = new Map<string, string>() // job ID -> idempotency key
  let hub: Hub | undefined
  let mount: PowercutMount | undefined
  /** Finished jobs older than the retention (a day) at the last boot. */
  let oldJobs = Number.POSITIVE_INFINITY
  try {
    const { projectId, apiKey } = JSON.parse(run(['init', '--json'])) as { projectId: string; apiKey: string }
    for (const [i, printer] of printers.entries())
      run([
        'printers',
        'add',
        '--project',
        projectId,
        '--id',
        `p${i}`,
        '--connection',
        `tcp://127.0.0.1:${printer.port}`,
      ])
    if (options.seededJobs) {
      seedJobs(setUp, projectId, options.seededJobs)
      run(['settings', 'set', 'retention-days', '1'])
      // A quarter of the seeded jobs are unfinished: room for the new ones beside them.
      run(['settings', 'set', 'max-open-jobs', String(MAX_OPEN_JOBS.max)])
    }
    mount = await mountPowercut(backing, mountpoint)
    const auth = { authorization: `Bearer ${apiKey}` }
    const jobs = `/v1/projects/${projectId}/jobs`
    /** Starts the hub as after a reboot and checks what it found; false when it could not start (in the report). */
    const boot = async (round: number): Promise<boolean> => {
      hub = undefined
      const log = join(options.folder, `hub-${round}.log`)
      try {
        hub = await startHub(options.printhub, dataDir, [inBoot(randomUUID(), options.folder), log])
      } catch (error) {
        report.corrupt.push(`boot ${round}: ${(error as Error).message.slice(0, 4_000)}`)
        return false
      }
      report.slowestStartMs = Math.max(report.slowestStartMs, hub.startMs)
      const applied = /(\d+) records of its redo log/.exec(readFileSync(log, 'utf8'))
      if (applied) {
        report.redoBoots++
        report.redoRecords += Number(applied[1])
      }
      const check = new Database(join(dataDir, 'printhub.db'), { readonly: true })
      const found = check.query<Record<string, string>, []>('PRAGMA quick_check').all()
      const old = check
        .query<{ n: number }, [number]>(
          `SELECT count(*) AS n FROM jobs WHERE created_at < ? AND ${stateIn(JOB_STATE_SETS.terminal)}`,
        )
        .get(Date.now() - 86_400_000)!.n
      check.close(true)
      if (round > 0 && old > 0 && old < oldJobs) report.cutsDuringPrune++
      oldJobs = old
      if (found.length !== 1 || Object.values(found[0]!)[0] !== 'ok')
        report.corrupt.push(`boot ${round}: ${JSON.stringify(found)}`)
      if (existsSync(archive)) {
        const into = join(options.folder, `restored-${round}`)
        const restored = Bun.spawnSync([...options.printhub, 'restore', archive, '--data', into], { stderr: 'pipe' })
        if (restored.exitCode !== 0) report.corrupt.push(`the backup at boot ${round}: ${restored.stderr.toString()}`)
        else report.restored++
        rmSync(into, { recursive: true, force: true })
      }
      try {
        for (const id of accepted.keys()) {
          report.checks++
          const answer = await fetch(`${hub.url}${jobs}/${id}`, { headers: auth })
          if (answer.status !== 200) report.lost.push(`${accepted.get(id)} (${id}): ${answer.status} at boot ${round}`)
        }
      } catch (error) {
        hub.process.kill('SIGKILL')
        report.corrupt.push(`boot ${round}: the hub stopped answering (${error}): ${(await hub.errors).slice(-4_000)}`)
        return false
      }
      return true
    }
    for (let round = 0; round < options.cuts; round++) {
      if (!(await boot(round))) return report
      const current = hub!
      let submitting = true
      const submitter = async (client: number) => {
        for (let i = client; submitting; i += CLIENTS) {
          const key = `cut-${round}-${i}`
          try {
            const answer = await fetch(`${current.url}${jobs}`, {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify({
                printerId: `p${i % 2}`,
                idempotencyKey: key,
                document: { width: 80, sections: [{ type: 'text', value: `ticket ${key}` }, { type: 'cut' }] },
              }),
            })
            if (answer.status === 202) accepted.set(((await answer.json()) as { job: { id: string } }).job.id, key)
          } catch {
            return // The hub is gone.
          }
        }
      }
      const submitters = Array.from({ length: CLIENTS }, (_, client) => submitter(client))
      let backup: ReturnType<typeof Bun.spawn> | undefined
      const backups = (async () => {
        while (submitting && options.backups) {
          backup = Bun.spawn([...options.printhub, 'backup', '--out', archive, '--data', dataDir], {
            stdout: 'ignore',
            stderr: 'ignore',
          })
          await backup.exited
          if (backup.exitCode === 0) report.backups++
        }
      })()
      // With old jobs seeded, late enough for the retention pass (a second after the start) to be pruning.
      await Bun.sleep(options.seededJobs ? 800 + next() * 2_500 : 200 + next() * 1_300)
      // The power goes for every program at once.
      current.process.kill('SIGKILL')
      backup?.kill('SIGKILL')
      await current.process.exited
      submitting = false
      await Promise.all([...submitters, backups])
      report.unflushedPages += mount.dirtyPages()
      mount.cut(Math.floor(next() * 2 ** 31))
      report.cuts++
      await mount.unmount()
      mount = await mountPowercut(backing, mountpoint)
    }
    if (!(await boot(options.cuts))) return report
    try {
      await settle({ url: hub!.url, jobs, auth }, { accepted, printed }, report)
    } catch (error) {
      hub!.process.kill('SIGKILL')
      report.corrupt.push(`at the end: ${error}: ${(await hub!.errors).slice(-4_000)}`)
      return report
    }
    const db = new Database(join(dataDir, 'printhub.db'), { readonly: true })
    report.jobsKept = db.query<{ n: number }, []>('SELECT count(*) AS n FROM jobs').get()!.n
    db.close()
    return report
  } finally {
    hub?.process.kill('SIGTERM')
    await hub?.process.exited
    // However the rounds ended: the report returned is this object.
    report.accepted = accepted.size
    await mount?.unmount()
    for (const printer of printers) printer.stop()
  }
}

/** Waits until every accepted job has ended; then counts what printed twice, or COMPLETED without printing. */
async function settle(
  { url, jobs, auth }: { url: string; jobs: string; auth: Record<string, string> },
  { accepted, printed }: { accepted: Map<string, string>; printed: Map<string, number> },
  report: PowercutReport,
): Promise<void> {
  const deadline = performance.now() + SETTLE_TIMEOUT_MS
  const states = new Map<string, { state: string; lastErrorCode: string | null }>()
  for (const id of accepted.keys()) {
    for (;;) {
      const answer = await fetch(`${url}${jobs}/${id}`, { headers: auth })
      // Lost: said at the boot that found it missing.
      if (answer.status === 404) break
      const job =
        answer.status === 200
          ? ((await answer.json()) as { job: { state: string; lastErrorCode: string | null } }).job
          : undefined
      if (job && ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'].includes(job.state)) {
        states.set(id, job)
        break
      }
      if (performance.now() > deadline) throw new Error(`job ${id} (${accepted.get(id)}) did not end: ${job?.state}`)
      await Bun.sleep(50)
    }
  }
  // A printer files a ticket when its connection closes, a moment after it confirmed it.
  await Bun.sleep(500)
  for (const [id, key] of accepted) {
    const times = printed.get(key) ?? 0
    if (!states.has(id)) continue
    const { state, lastErrorCode } = states.get(id)!
    if (times > 1) report.printedTwice.push(`${key} (${id}): ${times} times`)
    if (state === 'COMPLETED' && times === 0) report.completedUnprinted.push(`${key} (${id})`)
    if (state === 'FAILED' && lastErrorCode === 'job.recovery_uncertain') report.uncertain++
  }
}
