// A printer's queue on the agent shares the process with the hub's API: jobs that end without
// waiting for anything (a printer that refuses each at once) let other work run between two of
// them, and a queue that stops on an error (its ledger cannot be written) pauses before it starts
// again instead of spinning on its first job. Both on the built-in agent's ledger, over the pipe.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { join } from 'node:path'
import { QUEUE_RESTART_MS } from '../../src/agent/agent.ts'
import { BuiltinLedger, type HeldByHub } from '../../src/agent/builtin-ledger.ts'
import type { AgentLedger, PrintJobPayload } from '../../src/agent/ledger.ts'
import { Log } from '../../src/platform/log.ts'
import { type AgentPipe, agentOverPipe } from '../support/agent-pipe.ts'
import { firstStartedStore, printJobPayload, type TestStore } from '../support/fixtures.ts'
import { waitFor } from '../support/wait.ts'

let world: TestStore
let ledger: BuiltinLedger
let pipe: AgentPipe | undefined
/** The hub's side: the jobs it holds with the agent, in the order sent. */
const held = new Map<string, HeldByHub & { payload: PrintJobPayload }>()
const agentLog: string[] = []

function hold(count: number): PrintJobPayload[] {
  return Array.from({ length: count }, () => {
    const payload = printJobPayload('p')
    held.set(payload.jobId, {
      jobId: payload.jobId,
      printerId: 'p',
      messageId: `m.${payload.jobId}`,
      receivedAt: Date.now(),
      order: held.size + 1,
      payload,
    })
    return payload
  })
}

beforeEach(async () => {
  world = await firstStartedStore()
  held.clear()
  agentLog.length = 0
})

/** The ledger as the hub's start makes it, its backlog read from `held` (the agent's start recovers it). */
function openLedger(): BuiltinLedger {
  const all = () => [...held.values()]
  ledger = new BuiltinLedger(world.store.db, world.store.commits, {
    backlogEnds: () => new Map(all().map((job) => [job.printerId, job.order])),
    held: (printerId, after, upTo, limit) =>
      all()
        .filter((job) => job.printerId === printerId && job.order > after && job.order <= upTo)
        .slice(0, limit),
    heldJob: (jobId) => held.get(jobId),
    payload: (jobId) => held.get(jobId)?.payload,
  })
  return ledger
}

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

test(
  'a hub that starts holding a long queue for a printer that refuses each ' +
    'job at once runs its timers while the queue fails them',
  async () => {
    const jobs = hold(300)
    openLedger()
    const finished = () => jobs.filter((job) => ledger.job(job.jobId)?.state === 'failed').length
    // A timer that notes how many jobs had ended each time it ran: it must run in the middle of the queue, not only
    // before and after.
    const seen = new Set<number>()
    const timer = setInterval(() => seen.add(finished()), 0)
    const agent = await start(ledger, 'virtual://off?mode=offline')
    await waitFor(() => finished() === jobs.length, 20_000)
    clearInterval(timer)
    expect([...seen].filter((n) => n > 0 && n < jobs.length).length).toBeGreaterThan(0)
    // Each failed once, as offline, and told to the hub.
    await waitFor(() => agent.heard.filter((report) => report.kind === 'failed').length === jobs.length, 20_000)
    expect(new Set(agent.heard.filter((report) => report.kind === 'failed').map((report) => report.jobId)).size).toBe(
      jobs.length,
    )
  },
)

test(
  'a queue whose ledger cannot be written stops, pauses, and starts again: ' + 'it does not spin on its job',
  async () => {
    let refusals = 2
    let claims = 0
    // The ledger's writes fail twice (a full disk), then work.
    const failing = new Proxy(openLedger(), {
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
    const [job] = hold(1) as [PrintJobPayload]
    const startedAt = performance.now()
    agent.printJob(job)
    await waitFor(() => agent.heardOf(job.jobId, 'completed') === 1, 10_000)
    // Two stops, each followed by a pause; a spinning queue would have claimed thousands of times.
    expect(claims).toBe(3)
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(2 * QUEUE_RESTART_MS - 50)
    expect(agentLog.filter((line) => line.includes("a printer's queue stopped"))).toHaveLength(2)
  },
)
