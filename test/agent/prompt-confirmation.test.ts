// A job its printer confirms at once is recorded once, as printed, and told the hub in this process in one report that
// says when it was submitted too; one whose printer takes longer than PRINTING_AFTER_MS is recorded PRINTING first
// (src/agent/prompt-confirmation.ts). The built-in agent over its pipe, with two emulated network printers: one that
// confirms as it reads a job, one that takes 300 ms to print.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { BuiltinLedger } from '../../src/agent/builtin-ledger.ts'
import type { LedgerState } from '../../src/agent/ledger-transitions.ts'
import { PRINTING_AFTER_MS, promptly } from '../../src/agent/prompt-confirmation.ts'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { Log } from '../../src/platform/log.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { type AgentPipe, agentOverPipe, HUB_HOLDING_NONE } from '../support/agent-pipe.ts'
import { firstStartedStore, printJobPayload, type TestStore } from '../support/fixtures.ts'
import { waitFor } from '../support/wait.ts'

const PROFILE = 'epson-tm-t20iii'
const SLOW_PRINT_MS = 300

describe('promptly', () => {
  test("the printer's word within PRINTING_AFTER_MS, else printing; stopping ends the wait", async () => {
    expect(await promptly(Promise.resolve('printed'), new Promise(() => {}))).toBe('printed')
    const started = performance.now()
    expect(await promptly(new Promise(() => {}), new Promise(() => {}))).toBe('printing')
    expect(performance.now() - started).toBeGreaterThanOrEqual(PRINTING_AFTER_MS - 1)
    expect(await promptly(new Promise(() => {}), Promise.resolve())).toBe('stopped')
  })
})

describe('the built-in agent with printers that confirm', () => {
  let world: TestStore
  let ledger: BuiltinLedger
  let pipe: AgentPipe
  const quick = PrinterEmulator.listen({ hostname: '127.0.0.1', port: 0, profile: findProfile(PROFILE)!, width: 80 })
  const slow = PrinterEmulator.listen({
    hostname: '127.0.0.1',
    port: 0,
    profile: findProfile(PROFILE)!,
    width: 80,
    printMs: SLOW_PRINT_MS,
  })
  /** Each report as it left the agent: its kind, when, and the job's state in the ledger then. */
  const left: { jobId: string; type: string; at: number; wall: number; ledgerState: LedgerState | undefined }[] = []

  beforeAll(async () => {
    world = await firstStartedStore()
    ledger = new BuiltinLedger(world.store.db, world.store.commits, HUB_HOLDING_NONE)
    pipe = await agentOverPipe({
      ledger,
      keyDir: join(world.dir, 'agent-key'),
      sharesCommits: true,
      printers: [
        { id: 'quick', name: 'quick', connection: `tcp://127.0.0.1:${quick.port}`, profile: PROFILE, width: 80 },
        { id: 'slow', name: 'slow', connection: `tcp://127.0.0.1:${slow.port}`, profile: PROFILE, width: 80 },
      ],
      log: Log.silent().for('agent'),
      watch: (text) => {
        const frame = JSON.parse(text) as { type: string; payload?: { jobId?: string } }
        const jobId = frame.payload?.jobId
        if (jobId)
          left.push({
            jobId,
            type: frame.type,
            at: performance.now(),
            wall: Date.now(),
            ledgerState: ledger.job(jobId)?.state,
          })
        return undefined
      },
    })
  })

  afterAll(async () => {
    await pipe?.stop()
    ledger?.close()
    world?.close()
    quick.stop()
    slow.stop()
  })

  const reportsOf = (jobId: string) => left.filter((report) => report.jobId === jobId)
  /** When the hub heard the job went to the printer whole, and printed (the agent's reported moments). */
  const moments = (jobId: string) => {
    const heard = pipe.heard.filter((report) => report.jobId === jobId)
    const submitted = heard.find((report) => report.kind === 'submitted')
    const completed = heard.find((report) => report.kind === 'completed')
    if (completed?.kind !== 'completed') throw new Error('the job was not reported completed')
    const submittedAt = submitted?.kind === 'submitted' ? submitted.submittedAt : completed.submittedAt
    if (submittedAt === undefined) throw new Error('the job was not reported submitted')
    return { submittedAt, completedAt: completed.completedAt }
  }

  test(
    'a job confirmed at once is recorded once, printed, and told in one ' +
      'report that says when it was submitted too',
    async () => {
      const job = printJobPayload('quick')
      pipe.printJob(job)
      await waitFor(() => pipe.heardOf(job.jobId, 'completed') === 1, 5_000)
      // The hub in this process hears the end with the submission: one state change, not two...
      expect(pipe.heard.filter((report) => report.jobId === job.jobId).map((report) => report.kind)).toEqual([
        'received',
        'completed',
      ])
      // ...and the ledger had it completed before it left: one record, not two.
      const ends = reportsOf(job.jobId).filter((report) => report.type !== 'agent.job_received')
      expect(ends).toEqual([expect.objectContaining({ type: 'printhub.job_completed', ledgerState: 'completed' })])
      // It says when each happened: every byte out, then the printer's word.
      const { submittedAt, completedAt } = moments(job.jobId)
      expect(submittedAt).toBeLessThanOrEqual(completedAt)
      await waitFor(() => quick.quiet, 2_000)
      expect(quick.receipts.map((receipt) => receipt.preview.text.join('\n'))).toEqual([
        expect.stringContaining('a ledger job'),
      ])
    },
  )

  test('a job its printer takes longer to print is recorded PRINTING first, then printed', async () => {
    const job = printJobPayload('slow')
    pipe.printJob(job)
    await waitFor(() => pipe.heardOf(job.jobId, 'completed') === 1, 5_000)
    expect(pipe.heard.filter((report) => report.jobId === job.jobId).map((report) => report.kind)).toEqual([
      'received',
      'submitted',
      'completed',
    ])
    const [submitted, completed] = reportsOf(job.jobId).filter((report) => report.type !== 'agent.job_received')
    expect(submitted).toMatchObject({ type: 'agent.job_submitted', ledgerState: 'submitted' })
    expect(completed).toMatchObject({ type: 'printhub.job_completed', ledgerState: 'completed' })
    // PRINTING was told while the printer printed, not with its confirmation.
    expect(completed!.at - submitted!.at).toBeGreaterThan(SLOW_PRINT_MS - 2 * PRINTING_AFTER_MS)
    // And the reports say when each happened: the last byte went PRINTING_AFTER_MS before PRINTING was told.
    const { submittedAt, completedAt } = moments(job.jobId)
    expect(submitted!.wall - submittedAt).toBeGreaterThanOrEqual(PRINTING_AFTER_MS - 1)
    expect(completedAt - submittedAt).toBeGreaterThan(SLOW_PRINT_MS - 2 * PRINTING_AFTER_MS)
    // Its ticket is filed as its connection closes, a moment after the confirmation.
    await waitFor(() => slow.quiet, 2_000)
    expect(slow.receipts).toHaveLength(1)
  })
})
