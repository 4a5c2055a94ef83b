// The crash part of `bun run bench`: rounds of kill -9 under load. A hub (its own process) prints
// to the printer emulator over TCP (a model that answers status requests and confirms what it
// printed) while clients submit jobs as fast as it takes them; at a random moment it is killed
// with SIGKILL and started again, ROUNDS times. Then every job a client was answered 202 for must
// have ended: on the paper exactly once (COMPLETED), or FAILED `job.recovery_uncertain` when a kill
// caught it between the record of the intent and the record of the result. The figure is how many
// such uncertain jobs the kills left, and how many of them were in fact never printed (what the hub
// could have known was not yet written). Its floor is the share of the time a job is in that window
// (the printer here is never idle): timed by scripts/window-times.ts, see docs/performance.md.
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { PrinterEmulator } from '../src/emulator/emulator.ts'
import { findProfile } from '../src/profiles/catalog.ts'
import { DATABASE_FILE } from '../src/store/database.ts'
import type { SectionResult } from './bench.ts'
import {
  cli,
  type HubProcess,
  initDataDir,
  newDataDir,
  removeDataDir,
  sized,
  sleep,
  startHub,
  waitForAgentPrinters,
} from './bench-hub.ts'

const ROUNDS = sized(40, 10)
const CLIENTS = 4
/** A kill comes this long after the round's load started, at random. */
const KILL_AFTER_MS = { min: 150, max: 600 } as const
const PROFILE = 'epson-tm-t20iii'
const TARGET_UNCERTAIN = 5
const DRAIN_TIMEOUT_MS = 60_000

/** The text each job prints, to find it on the paper: fixed width, so no marker holds another. */
const marker = (n: number) => `crash job ${String(n).padStart(6, '0')}.`

interface Api {
  url: string
  projectId: string
  apiKey: string
}

/** Submits jobs from CLIENTS clients until the hub goes away; the numbers answered 202. */
async function loadUntilKilled(api: Api, next: { n: number }, stopAt: number): Promise<number[]> {
  const accepted: number[] = []
  const client = async () => {
    while (performance.now() < stopAt + 1_000) {
      const n = next.n++
      try {
        const response = await fetch(`${api.url}/v1/projects/${api.projectId}/jobs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            printerId: 'crash',
            idempotencyKey: `crash-${n}`,
            document: { width: 80, sections: [{ type: 'text', value: marker(n) }, { type: 'cut' }] },
          }),
        })
        if (response.status === 202) accepted.push(n)
        await response.arrayBuffer()
      } catch {
        return // the hub was killed
      }
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, client))
  return accepted
}

interface StoredJob {
  key: string
  state: string
  code: string | null
  message: string | null
}

/** Every job as the hub's database holds it (read beside the running hub, as WAL allows). */
function storedJobs(dir: string): StoredJob[] {
  const db = new Database(join(dir, DATABASE_FILE), { readonly: true })
  try {
    return db
      .query<StoredJob, []>(
        'SELECT idempotency_key AS key, state, last_error_code AS code, last_error_message AS message FROM jobs',
      )
      .all()
  } finally {
    db.close()
  }
}

const FINISHED = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'])

export async function crashSection(): Promise<SectionResult> {
  console.log(
    `crash: ${ROUNDS} rounds of kill -9 while ${CLIENTS} clients submit to a ` +
      `hub printing to the emulator (${PROFILE})...`,
  )
  // It keeps every receipt here: the paper is what is counted.
  const emulator = PrinterEmulator.listen({
    hostname: '127.0.0.1',
    port: 0,
    profile: findProfile(PROFILE)!,
    width: 80,
    keep: { receipts: Number.MAX_SAFE_INTEGER, bytes: Number.MAX_SAFE_INTEGER },
  })
  const dir = newDataDir()
  const project = await initDataDir(dir)
  const api: Api = { url: '', ...project }
  const stdout = await cli([
    'printers',
    'add',
    '--project',
    project.projectId,
    '--id',
    'crash',
    '--connection',
    `tcp://127.0.0.1:${emulator.port}`,
    '--profile',
    PROFILE,
    '--data',
    dir,
    '--json',
  ])
  const record = (JSON.parse(stdout) as { id: string }).id
  const next = { n: 0 }
  const accepted: number[] = []
  let hub: HubProcess | undefined
  try {
    for (let round = 0; round < ROUNDS; round++) {
      hub = await startHub(dir)
      api.url = hub.url
      if (round === 0) await waitForAgentPrinters(dir, [record])
      const killAt = performance.now() + KILL_AFTER_MS.min + Math.random() * (KILL_AFTER_MS.max - KILL_AFTER_MS.min)
      const load = loadUntilKilled(api, next, killAt)
      await sleep(Math.max(0, killAt - performance.now()))
      await hub.kill()
      accepted.push(...(await load))
    }
    hub = await startHub(dir)
    api.url = hub.url
    const drainStarted = performance.now()
    while (storedJobs(dir).some((job) => !FINISHED.has(job.state))) {
      if (performance.now() - drainStarted > DRAIN_TIMEOUT_MS)
        throw new Error('jobs were still unfinished a minute after the last restart')
      await sleep(200)
    }
    const jobs = storedJobs(dir)
    const byKey = new Map(jobs.map((job) => [job.key, job]))
    const printed = new Map<string, number>()
    const text = emulator.receipts.map((receipt) => new TextDecoder('latin1').decode(receipt.bytes))
    for (const receipt of text)
      for (const match of receipt.matchAll(/crash job (\d{6})\./g))
        printed.set(match[1]!, (printed.get(match[1]!) ?? 0) + 1)
    const timesPrinted = (n: number) => printed.get(String(n).padStart(6, '0')) ?? 0
    const lost = accepted.filter((n) => !byKey.has(`crash-${n}`))
    const all = jobs.map((job) => Number(job.key.slice('crash-'.length)))
    const twice = all.filter((n) => timesPrinted(n) > 1)
    const uncertainJobs = jobs.filter((job) => job.state === 'FAILED' && job.code === 'job.recovery_uncertain')
    const uncertain = uncertainJobs.map((job) => Number(job.key.slice('crash-'.length)))
    // Where the kill caught them: before PRINTING was recorded (being written, or its confirmation
    // due within PRINTING_AFTER_MS, src/agent/prompt-confirmation.ts), or while PRINTING.
    const whileSending = uncertainJobs.filter((job) => job.message?.includes('while sending')).length
    const uncertainUnprinted = uncertain.filter((n) => timesPrinted(n) === 0)
    const completedUnprinted = jobs.filter(
      (job) => job.state === 'COMPLETED' && timesPrinted(Number(job.key.slice('crash-'.length))) === 0,
    )
    const other = jobs.filter(
      (job) => job.state !== 'COMPLETED' && !(job.state === 'FAILED' && job.code === 'job.recovery_uncertain'),
    )
    const otherExamples = other.length
      ? ` (${other
          .map((job) => `${job.state} ${job.code}`)
          .slice(0, 5)
          .join(', ')})`
      : ''
    return {
      report: [
        `crash (${ROUNDS} kill -9 rounds, ${CLIENTS} clients, the emulator as the printer)`,
        `jobs answered 202: ${accepted.length}; in the hub: ${jobs.length}; ` +
          `printed: ${[...printed.values()].reduce((a, b) => a + b, 0)}`,
        `FAILED job.recovery_uncertain: ${uncertain.length} in ${ROUNDS} kills (${whileSending} before PRINTING ` +
          `was recorded: being written or answered at once, ${uncertain.length - whileSending} while PRINTING, ` +
          `awaiting the printer's confirmation; ${uncertainUnprinted.length} of them never printed); ` +
          `other outcomes: ${other.length}${otherExamples}`,
        `lost: ${lost.length}; printed twice: ${twice.length}; COMPLETED but not ` +
          `on the paper: ${completedUnprinted.length}`,
      ],
      checks: [
        {
          name: `jobs uncertain after ${ROUNDS} kill -9`,
          value: uncertain.length,
          unit: '',
          target: `<= ${Math.ceil((TARGET_UNCERTAIN * ROUNDS) / 40)}`,
          pass: uncertain.length <= Math.ceil((TARGET_UNCERTAIN * ROUNDS) / 40),
        },
        {
          name: 'uncertain but never printed',
          value: uncertainUnprinted.length,
          unit: '',
          target: '0 wanted',
          pass: uncertainUnprinted.length === 0,
        },
        {
          name: 'kill -9: lost, twice, COMPLETED unprinted',
          value: lost.length + twice.length + completedUnprinted.length,
          unit: '',
          target: '0',
          pass: lost.length + twice.length + completedUnprinted.length === 0,
        },
      ],
      results: {
        rounds: ROUNDS,
        accepted: accepted.length,
        jobs: jobs.length,
        uncertain: uncertain.length,
        uncertainWhileSending: whileSending,
        uncertainUnprinted: uncertainUnprinted.length,
        lost: lost.length,
        printedTwice: twice.length,
        completedUnprinted: completedUnprinted.length,
        other: other.length,
      },
    }
  } finally {
    await hub?.stop()
    emulator.stop()
    removeDataDir(dir)
  }
}
