// A printed job's record may wait for its printer's next intent and be made during that intent's
// flush (src/agent/held-records.ts): once, never lost, in the printer's order. First the holder
// alone, then the built-in agent over its pipe with a second connection reading the database on
// disk: when a job's end leaves the agent, the next job's intent is already committed.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { BuiltinLedger } from '../../src/agent/builtin-ledger.ts'
import { HeldRecords, HOLD_MS } from '../../src/agent/held-records.ts'
import { Log } from '../../src/platform/log.ts'
import { DATABASE_FILE } from '../../src/store/database.ts'
import { type AgentPipe, agentOverPipe, HUB_HOLDING_NONE } from '../support/agent-pipe.ts'
import { firstStartedStore, printJobPayload, type TestStore } from '../support/fixtures.ts'
import { waitFor } from '../support/wait.ts'

describe('the holder', () => {
  test('a held record is made once: when taken for the next intent, or when another is held first', () => {
    const made: string[] = []
    const held = new HeldRecords((error) => made.push(`error ${String(error)}`))
    held.hold('p', 1, () => made.push('one'))
    const record = held.take('p')!
    expect(made).toEqual([])
    record()
    record()
    expect(made).toEqual(['one'])
    expect(held.take('p')).toBeUndefined()
    held.hold('p', 2, () => made.push('two'))
    held.hold('p', 3, () => made.push('three'))
    expect(made).toEqual(['one', 'two'])
    // The end of job 3 itself does not make its own record; the end of another job does.
    held.make('p', 3)
    expect(made).toEqual(['one', 'two'])
    held.make('p', 4)
    expect(made).toEqual(['one', 'two', 'three'])
    held.make('p')
    expect(made).toEqual(['one', 'two', 'three'])
  })

  test('a record nobody takes is made after HOLD_MS; the agent stopping makes all at once', async () => {
    const made: string[] = []
    const held = new HeldRecords(() => {})
    const heldAt = performance.now()
    let madeAt = 0
    held.hold('p', 1, () => {
      made.push('p')
      madeAt = performance.now()
    })
    expect(made).toEqual([])
    await waitFor(() => made.length === 1, 1_000)
    expect(madeAt - heldAt).toBeGreaterThanOrEqual(HOLD_MS - 1)
    held.hold('a', 1, () => made.push('a'))
    held.hold('b', 1, () => made.push('b'))
    held.makeAll()
    expect(made).toEqual(['p', 'a', 'b'])
    expect(held.take('a')).toBeUndefined()
  })

  test('a record that throws is told, and the holder goes on', () => {
    const failures: unknown[] = []
    const made: string[] = []
    const held = new HeldRecords((error) => failures.push(error))
    held.hold('p', 1, () => {
      throw new Error('disk full')
    })
    held.hold('p', 2, () => made.push('two'))
    held.make('p')
    expect(failures.map((error) => (error as Error).message)).toEqual(['disk full'])
    expect(made).toEqual(['two'])
  })
})

describe('the built-in agent', () => {
  let world: TestStore
  let ledger: BuiltinLedger
  let onDisk: Database
  let pipe: AgentPipe
  /** Each job's end as it left the agent, with the next job's intent as the disk held it then. */
  const ends: { jobId: string; nextOnDisk: string | null }[] = []
  let jobIds: string[] = []

  beforeAll(async () => {
    world = await firstStartedStore()
    ledger = new BuiltinLedger(world.store.db, world.store.commits, HUB_HOLDING_NONE)
    onDisk = new Database(join(world.dir, DATABASE_FILE), { readonly: true })
    const committedState = onDisk.query<{ state: string }, [string]>(
      'SELECT state FROM ledger_intents WHERE job_id = ?',
    )
    pipe = await agentOverPipe({
      ledger,
      keyDir: join(world.dir, 'agent-key'),
      sharesCommits: true,
      printers: [{ id: 'prints', name: 'prints', connection: 'virtual://prints', profile: 'generic-80mm', width: 80 }],
      log: Log.silent().for('agent'),
      watch: (text) => {
        const frame = JSON.parse(text) as { type: string; payload: { jobId: string } }
        if (frame.type !== 'printhub.job_completed') return undefined
        const next = jobIds[jobIds.indexOf(frame.payload.jobId) + 1]
        ends.push({ jobId: frame.payload.jobId, nextOnDisk: next ? (committedState.get(next)?.state ?? null) : null })
        return undefined
      },
    })
  })

  afterAll(async () => {
    await pipe?.stop()
    ledger?.close()
    onDisk?.close()
    world?.close()
  })

  test(
    "a printed job's end is told during its printer's next intent, in order, " + "and the last one's at once",
    async () => {
      const jobs = [printJobPayload('prints'), printJobPayload('prints'), printJobPayload('prints')]
      jobIds = jobs.map((job) => job.jobId)
      for (const job of jobs) pipe.printJob(job)
      await waitFor(() => jobs.every((job) => pipe.heardOf(job.jobId, 'completed') === 1), 5_000)
      // In the printer's order; the first two while the next job's intent was committed (and being flushed).
      expect(ends).toEqual([
        { jobId: jobIds[0]!, nextOnDisk: 'submitting' },
        { jobId: jobIds[1]!, nextOnDisk: 'submitting' },
        { jobId: jobIds[2]!, nextOnDisk: null },
      ])
      // A printer that takes the bytes and has no word to give: each job's end, with its submission, in one report.
      for (const job of jobs)
        expect(pipe.heard.filter((report) => report.jobId === job.jobId).map((report) => report.kind)).toEqual([
          'received',
          'completed',
        ])
      for (const job of jobs)
        expect(pipe.heard.find((report) => report.jobId === job.jobId && report.kind === 'completed')).toMatchObject({
          submittedAt: expect.any(Number),
        })
      world.store.commits.commit()
      expect(jobs.map((job) => ledger.job(job.jobId)?.state)).toEqual(['completed', 'completed', 'completed'])
    },
  )
})
