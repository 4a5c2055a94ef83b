// A printer's queue on the agent shares the process with the hub's API: jobs that end without
// waiting for anything (a printer that refuses each at once) let other work run between two of
// them, and a queue that stops on an error (its ledger cannot be written) pauses before it starts
// again instead of spinning on its first job. Both on the built-in agent's ledger, over the pipe.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { join } from 'node:path'
import { QUEUE_RESTART_MS } from '../../src/agent/agent.ts'
import { BuiltinLedger } from '../../src/agent/builtin-ledger.ts'
import type { AgentLedger, PrintJobPayload } from '../../src/agent/ledger.ts'
import { Log } from '../../src/platform/log.ts'
import { type AgentPipe, agentOverPipe } from '../support/agent-pipe.ts'
import { firstStartedStore, printJobPayload, type TestStore } from '../support/fixtures.ts'
import { waitFor } from '../support/wait.ts'

let world: TestStore
let ledger: BuiltinLedger
let pipe: AgentPipe | undefined
const sent = new Map<string, PrintJobPayload>()
const agentLog: string[] = []

beforeEach(async () => {
  world = await firstStartedStore()
  // The hub's side: it holds every job it sent (a printer's first few keep their payload in memory, the others are read from it).
  ledger = new BuiltinLedger(world.store.db, world.store.commits, { backlogEnds: () => new Map(), held: () => [], heldJob: () => undefined, payload: (jobId) => sent.get(jobId) })
  ledger.recover()
  agentLog.length = 0
})

afterEach(async () => {
  await pipe?.stop()
  pipe = undefined
  ledger.close()
  world.close()
})

async function start(agentLedger: AgentLedger, connection: string): Promise<AgentPipe> {
  pipe = await agentOverPipe({
    ledger: agentLedger,
    keyDir: join(world.dir, 'agent-key'),
    sharesCommits: true,
    printers: [{ id: 'p', name: 'p', connection, profile: 'generic-80mm', width: 80 }],
    log: new Log({ format: 'text', level: 'debug', journal: false }, (line) => agentLog.push(line)).for('agent'),
    watch: () => undefined,
  })
  return pipe
}

test('a long queue to a printer that refuses each job at once lets a timer run before it has failed them all', async () => {
  const agent = await start(ledger, 'virtual://off?mode=offline')
  const jobs = Array.from({ length: 300 }, () => printJobPayload('p'))
  for (const job of jobs) {
    sent.set(job.jobId, job)
    agent.printJob(job)
  }
  const failed = () => agent.heard.filter((report) => report.kind === 'failed').length
  // A timer due at once: it runs between two jobs, not after the queue.
  const seenByTimer = await new Promise<number>((resolve) => setTimeout(() => resolve(failed()), 0))
  await waitFor(() => failed() === jobs.length, 20_000)
  expect(seenByTimer).toBeLessThan(jobs.length)
  // Each failed once, as offline.
  expect(new Set(agent.heard.filter((report) => report.kind === 'failed').map((report) => report.jobId)).size).toBe(jobs.length)
})

test("a queue whose ledger cannot be written stops, pauses, and starts again: it does not spin on its job", async () => {
  let refusals = 2
  let claims = 0
  // The ledger's writes fail twice (a full disk), then work.
  const failing = new Proxy(ledger, {
    get(target, property) {
      if (property === 'claim')
        return (seq: number) => {
          claims++
          if (refusals > 0) throw new Error('database or disk is full')
          return target.claim(seq)
        }
      if (property === 'finish')
        return (...args: Parameters<BuiltinLedger['finish']>) => {
          if (refusals-- > 0) throw new Error('database or disk is full')
          return target.finish(...args)
        }
      const value = Reflect.get(target, property) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  const agent = await start(failing, 'virtual://p')
  const job = printJobPayload('p')
  const startedAt = performance.now()
  agent.printJob(job)
  await waitFor(() => agent.heardOf(job.jobId, 'completed') === 1, 10_000)
  // Two stops, each followed by a pause; a spinning queue would have claimed thousands of times.
  expect(claims).toBe(3)
  expect(performance.now() - startedAt).toBeGreaterThanOrEqual(2 * QUEUE_RESTART_MS - 50)
  expect(agentLog.filter((line) => line.includes("a printer's queue stopped"))).toHaveLength(2)
})
