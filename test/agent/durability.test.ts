// The agent's durability order (OpenPrinter v1 section 7.3; style point 9): the agent reports a
// job only once the ledger change it reports is on disk. A real Agent, on a ledger file of its
// own as a remote agent keeps it, talks to a real Gateway and SessionRegistry in process over the
// in-memory pipe the built-in agent uses. The test stands between the agent and the pipe: as each
// report leaves the agent, it reads the ledger through a second connection to the file, which
// sees only committed transactions (what a restarted agent would find). With the ledger's
// synchronous=FULL in WAL mode, SQLite fsyncs a commit before other connections can see it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type { CatalogPrinter } from '../../src/agent/catalog.ts'
import { Ledger } from '../../src/agent/ledger.ts'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { Log } from '../../src/platform/log.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { type AgentPipe, agentOverPipe } from '../support/agent-pipe.ts'
import { printJobPayload } from '../support/fixtures.ts'
import { tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

/** The frames that report a ledger change, and the state the ledger records with each (any, for a receipt). */
const REPORTS = {
  'agent.job_received': undefined,
  'agent.job_submitted': undefined,
  'agent.job_failed': 'failed',
  'printhub.job_completed': 'completed',
  'printhub.job_cancelled': 'cancelled',
} as const
type ReportType = keyof typeof REPORTS
const isReport = (type: string): type is ReportType => Object.hasOwn(REPORTS, type)

interface Sent {
  type: ReportType
  jobId: string
  /** What was wrong when it left; undefined when the change it reports was committed. */
  early?: string
}

let dir: string
let ledger: Ledger
/** A second connection to the agent's ledger file: it sees what is committed, nothing else. */
let onDisk: Ledger
let pipe: AgentPipe
let emulator: PrinterEmulator
const sent: Sent[] = []
const agentLog: string[] = []
const agentLogger = new Log({ format: 'text', level: 'debug', journal: false }, (line) => agentLog.push(line)).for(
  'agent',
)

/**
 * Checks, as `text` leaves the agent, that the ledger change it reports is committed; undefined for a frame that
 * reports none.
 */
function check(text: string): Sent | undefined {
  const frame = JSON.parse(text) as { type: string; payload: { jobId?: string } }
  if (!isReport(frame.type)) return undefined
  const jobId = frame.payload.jobId!
  const stored = onDisk.job(jobId)
  const recorded = REPORTS[frame.type]
  let early: string | undefined
  if (!stored) early = 'the job is not in the ledger file'
  // A report is the job's own record, written in the transaction that changed its state.
  else if (frame.type !== 'agent.job_received' && !stored.reports.includes(text))
    early = `the report is not in the ledger file (it holds ${stored.state})`
  else if (recorded !== undefined && stored.state !== recorded) early = `the ledger file holds ${stored.state}`
  return { type: frame.type, jobId, early }
}

const PRINTERS: CatalogPrinter[] = []

beforeAll(async () => {
  dir = tempDir()
  ledger = Ledger.open(dir, { log: agentLogger })
  onDisk = Ledger.open(dir)
  // A printer that confirms it printed (the process ID response), for a job reported submitted, then completed.
  emulator = PrinterEmulator.listen({
    hostname: '127.0.0.1',
    port: 0,
    profile: findProfile('epson-tm-t20iii')!,
    width: 80,
  })
  PRINTERS.push(
    { id: 'prints', name: 'prints', connection: 'virtual://prints', profile: 'generic-80mm', width: 80 },
    { id: 'fails', name: 'fails', connection: 'virtual://fails?mode=fail', profile: 'generic-80mm', width: 80 },
    { id: 'slow', name: 'slow', connection: 'virtual://slow?delay=10000', profile: 'generic-80mm', width: 80 },
    {
      id: 'fails-later',
      name: 'fails later',
      connection: 'virtual://later?mode=fail&delay=200',
      profile: 'generic-80mm',
      width: 80,
    },
    {
      id: 'confirms',
      name: 'confirms',
      connection: `tcp://127.0.0.1:${emulator.port}`,
      profile: 'epson-tm-t20iii',
      width: 80,
    },
  )
  pipe = await agentOverPipe({
    ledger,
    keyDir: join(dir, 'key'),
    sharesCommits: false,
    // A paired agent's: its hub hears each job's submission on its own.
    hubInProcess: false,
    printers: PRINTERS,
    log: agentLogger,
    watch: (text) => {
      const report = check(text)
      // Counted once the pipe took it.
      return report && (() => void sent.push(report))
    },
  })
})

afterAll(async () => {
  await pipe?.stop()
  ledger?.close()
  onDisk?.close()
  emulator?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('the agent reports a job only once the ledger change it reports is on disk', () => {
  test('receipts, submissions, completions, failures, cancellations, and reports sent again', async () => {
    const prints = printJobPayload('prints')
    const fails = printJobPayload('fails')
    const confirms = printJobPayload('confirms')
    const slow = printJobPayload('slow')
    for (const job of [prints, fails, confirms, slow]) pipe.printJob(job)

    await waitFor(
      () =>
        pipe.heardOf(prints.jobId, 'completed') === 1 &&
        pipe.heardOf(fails.jobId, 'failed') === 1 &&
        pipe.heardOf(confirms.jobId, 'completed') === 1,
      10_000,
    )
    await waitFor(() => pipe.heardOf(slow.jobId, 'received') === 1)
    // The slow printer is still taking the ticket: stopped by the hub.
    expect(
      pipe.session().send({
        messageId: `m.cancel.${slow.jobId}`,
        sentAt: new Date().toISOString(),
        type: 'server.cancel_job',
        payload: { jobId: slow.jobId },
      }),
    ).toBe(true)
    await waitFor(() => pipe.heardOf(slow.jobId, 'cancelled') === 1)
    // The hub sends a finished job again (as after its restart): acknowledged, its reports sent again.
    pipe.printJob(prints)
    await waitFor(() => pipe.heardOf(prints.jobId, 'completed') === 2)

    expect(
      pipe.heard
        .filter((r) => r.kind === 'submitted')
        .map((r) => r.jobId)
        .sort(),
    ).toEqual([prints.jobId, prints.jobId, confirms.jobId].sort())
    // A remote hub hears OpenPrinter's submission before printhub's completion, and the completion alone says nothing
    // of the submission.
    expect(pipe.heard.filter((r) => r.jobId === confirms.jobId).map((r) => r.kind)).toEqual([
      'received',
      'submitted',
      'completed',
    ])
    expect(
      pipe.heard
        .filter((r) => r.kind === 'completed')
        .every((r) => r.kind === 'completed' && r.submittedAt === undefined),
    ).toBe(true)
    // Every kind of report went out, and each only once what it reports was on disk.
    expect([...new Set(sent.map((s): string => s.type))].sort()).toEqual(Object.keys(REPORTS).sort())
    expect(sent.filter((s) => s.early !== undefined)).toEqual([])
    expect(sent).toHaveLength(pipe.heard.length)
    expect(agentLog.filter((line) => /commit failed|unexpectedly|could not/.test(line))).toEqual([])
  })

  test(
    'after a reconnection: jobs stored and not finished are acknowledged ' +
      'again (waiting or being written), reports made meanwhile go out',
    async () => {
      const printing = printJobPayload('slow')
      const waiting = printJobPayload('slow')
      const failing = printJobPayload('fails-later')
      for (const job of [printing, waiting, failing]) pipe.printJob(job)
      await waitFor(() => [printing, waiting, failing].every((job) => pipe.heardOf(job.jobId, 'received') === 1))
      const before = sent.length
      // A job sent the moment the agent is back, before its inventory.
      const meanwhile = printJobPayload('slow')
      pipe.onNextConnection(
        (s) =>
          void s.send({
            messageId: `m.${meanwhile.jobId}`,
            sentAt: new Date().toISOString(),
            type: 'server.print_job',
            payload: meanwhile,
          }),
      )
      // The hub goes away for longer than the failing printer takes to fail.
      const old = pipe.session()
      old.disconnect('hub_restarting', 'The hub restarts.', true, 400)
      await waitFor(() => pipe.session() !== old && pipe.session().isConnected, 5_000)
      await waitFor(
        () =>
          pipe.heardOf(waiting.jobId, 'received') === 2 &&
          pipe.heardOf(printing.jobId, 'received') === 2 &&
          pipe.heardOf(failing.jobId, 'failed') === 1 &&
          pipe.heardOf(meanwhile.jobId, 'received') >= 1,
        5_000,
      )
      for (const job of [printing, waiting, meanwhile])
        expect(
          pipe.session().send({
            messageId: `m.cancel.${job.jobId}`,
            sentAt: new Date().toISOString(),
            type: 'server.cancel_job',
            payload: { jobId: job.jobId },
          }),
        ).toBe(true)
      await waitFor(
        () => [printing, waiting, meanwhile].every((job) => pipe.heardOf(job.jobId, 'cancelled') === 1),
        5_000,
      )

      expect(sent.slice(before).map((s) => [s.type, s.jobId])).toEqual(
        expect.arrayContaining([
          ['agent.job_received', waiting.jobId],
          ['agent.job_received', printing.jobId],
          ['agent.job_failed', failing.jobId],
          ['printhub.job_cancelled', printing.jobId],
          ['printhub.job_cancelled', waiting.jobId],
          ['agent.job_received', meanwhile.jobId],
          ['printhub.job_cancelled', meanwhile.jobId],
        ]),
      )
      expect(sent.filter((s) => s.early !== undefined)).toEqual([])
      expect(sent).toHaveLength(pipe.heard.length)
    },
  )
})

describe('the order of an agent’s reports', () => {
  test(
    'a job for a printer the agent does not have: job_received first, then ' + 'job_failed printer.not_found',
    async () => {
      const lost = { ...printJobPayload('prints'), printerId: 'gone' }
      const before = sent.length
      pipe.printJob(lost)
      await waitFor(() => pipe.heardOf(lost.jobId, 'failed') === 1)
      expect(
        sent
          .slice(before)
          .filter((s) => s.jobId === lost.jobId)
          .map((s) => s.type),
      ).toEqual(['agent.job_received', 'agent.job_failed'])
      expect(pipe.heard.filter((r) => r.jobId === lost.jobId)).toMatchObject([
        { kind: 'received' },
        { kind: 'failed', failure: { code: 'printer.not_found', retryable: true } },
      ])
    },
  )
})
