// The built-in agent's ledger is in the hub's database and commits with the hub's changes
// (docs/delivery.md): it tells the hub of a job's receipt and of its reports at once, in the turn
// it writes them, without waiting for the disk. The hub writes what it hears in the same
// transaction or a later one, so the hub's record never reaches the disk before the ledger's.
// A remote agent's ledger waits for its own flush instead (durability.test.ts). Shown here the
// same way: as each report leaves the agent, a second connection reads the hub's database, which
// holds only what is committed. Waiting for the disk before telling the hub cost the one-printer
// burst about a fifth of its rate (docs/performance.md); this test fails if that wait comes back.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { BuiltinLedger } from '../../src/agent/builtin-ledger.ts'
import { Log } from '../../src/platform/log.ts'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { type AgentPipe, agentOverPipe, HUB_HOLDING_NONE } from '../support/agent-pipe.ts'
import { firstStartedStore, printJobPayload, type TestStore } from '../support/fixtures.ts'
import { waitFor } from '../support/wait.ts'

const REPORTS = new Set(['agent.job_received', 'agent.job_submitted', 'printhub.job_completed', 'agent.job_failed'])

interface Sent {
  type: string
  jobId: string
  /**
   * The job's state in the ledger on disk as the report left: null when the ledger had not committed the job at all.
   */
  onDisk: string | null
}

let world: TestStore
let ledger: BuiltinLedger
let onDisk: Database
let pipe: AgentPipe
const sent: Sent[] = []
const agentLog: string[] = []

beforeAll(async () => {
  world = await firstStartedStore()
  ledger = new BuiltinLedger(world.store.db, world.store.commits, HUB_HOLDING_NONE)
  onDisk = new Database(join(world.dir, DATABASE_FILE), { readonly: true })
  const committedState = onDisk.query<{ state: string }, [string]>('SELECT state FROM ledger_intents WHERE job_id = ?')
  pipe = await agentOverPipe({
    ledger,
    keyDir: join(world.dir, 'agent-key'),
    sharesCommits: true,
    printers: [
      { id: 'prints', name: 'prints', connection: 'virtual://prints', profile: 'generic-80mm', width: 80 },
      { id: 'fails', name: 'fails', connection: 'virtual://fails?mode=fail', profile: 'generic-80mm', width: 80 },
    ],
    log: new Log({ format: 'text', level: 'debug', journal: false }, (line) => agentLog.push(line)).for('agent'),
    watch: (text) => {
      const frame = JSON.parse(text) as { type: string; payload: { jobId?: string } }
      if (!REPORTS.has(frame.type)) return undefined
      const report = {
        type: frame.type,
        jobId: frame.payload.jobId!,
        onDisk: committedState.get(frame.payload.jobId!)?.state ?? null,
      }
      return () => void sent.push(report)
    },
  })
})

afterAll(async () => {
  await pipe?.stop()
  ledger?.close()
  onDisk?.close()
  world?.close()
})

test('the built-in agent acknowledges a job and reports on it before its ledger commits them, in order', async () => {
  const jobs = [printJobPayload('prints'), printJobPayload('prints'), printJobPayload('fails')]
  for (const job of jobs) pipe.printJob(job)
  await waitFor(
    () =>
      pipe.heardOf(jobs[0]!.jobId, 'completed') === 1 &&
      pipe.heardOf(jobs[1]!.jobId, 'completed') === 1 &&
      pipe.heardOf(jobs[2]!.jobId, 'failed') === 1,
    10_000,
  )

  // Each receipt left while the job was not yet in the database on disk: no wait for the flush.
  for (const job of jobs)
    expect(sent.find((s) => s.jobId === job.jobId && s.type === 'agent.job_received')).toEqual({
      type: 'agent.job_received',
      jobId: job.jobId,
      onDisk: null,
    })
  // Each end was told before the ledger's record of it was committed.
  const ends = sent.filter((s) => s.type === 'printhub.job_completed' || s.type === 'agent.job_failed')
  expect(ends).toHaveLength(3)
  for (const end of ends) expect(['completed', 'failed']).not.toContain(end.onDisk)
  // The order a hub relies on: received, then how it ended (for a printed job, with when it was submitted).
  for (const job of jobs.slice(0, 2))
    expect(pipe.heard.filter((r) => r.jobId === job.jobId).map((r) => r.kind)).toEqual(['received', 'completed'])
  expect(pipe.heard.filter((r) => r.jobId === jobs[2]!.jobId).map((r) => r.kind)).toEqual(['received', 'failed'])
  // And what was told early is committed all the same.
  world.store.commits.commit()
  expect(jobs.map((job) => ledger.job(job.jobId)?.state)).toEqual(['completed', 'completed', 'failed'])
  // The second connection does see what is committed: its nulls and earlier states above were the disk's, not a blind
  // look.
  expect(
    jobs.map(
      (job) =>
        onDisk.query<{ state: string }, [string]>('SELECT state FROM ledger_intents WHERE job_id = ?').get(job.jobId)
          ?.state,
    ),
  ).toEqual(['completed', 'completed', 'failed'])
  expect(agentLog.filter((line) => /commit failed|unexpectedly|could not/.test(line))).toEqual([])
})
