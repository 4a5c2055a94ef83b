// On the built-in agent's pipe (hub/in-memory-link.ts) both ends are this program, and each checks
// every frame it reads: a frame is checked once, by its reader, not also on its way out
// (protocol/codec.ts). Shown with a frame that breaks the protocol: the hub's side lets it go, and
// the agent that reads it refuses it and ends the connection, as it would over a WebSocket.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { BuiltinLedger } from '../../src/agent/builtin-ledger.ts'
import { Log } from '../../src/platform/log.ts'
import { type AgentPipe, agentOverPipe, HUB_HOLDING_NONE } from '../support/agent-pipe.ts'
import { firstStartedStore, printJobPayload, type TestStore } from '../support/fixtures.ts'
import { waitFor } from '../support/wait.ts'

let world: TestStore
let ledger: BuiltinLedger
let pipe: AgentPipe
const agentLog: string[] = []
const sent: string[] = []

beforeAll(async () => {
  world = await firstStartedStore()
  ledger = new BuiltinLedger(world.store.db, world.store.commits, HUB_HOLDING_NONE)
  pipe = await agentOverPipe({
    ledger,
    keyDir: join(world.dir, 'agent-key'),
    sharesCommits: true,
    printers: [{ id: 'prints', name: 'prints', connection: 'virtual://prints', profile: 'generic-80mm', width: 80 }],
    log: new Log({ format: 'text', level: 'debug', journal: false }, (line) => agentLog.push(line)).for('agent'),
    watch: (text) => void sent.push(text),
  })
})

afterAll(async () => {
  await pipe?.stop()
  ledger?.close()
  world?.close()
})

test("the agent's reports cross the pipe and the hub takes them", async () => {
  const job = printJobPayload('prints')
  pipe.printJob(job)
  await waitFor(() => pipe.heardOf(job.jobId, 'completed') === 1, 5_000)
  expect(sent.some((text) => text.includes('"printhub.job_completed"'))).toBe(true)
})

test('a frame that breaks the protocol leaves the hub and is refused by the agent that reads it', async () => {
  const first = pipe.session()
  let next: unknown
  pipe.onNextConnection((session) => void (next = session))
  // No idempotency key, no document: outside the protocol.
  const broken = {
    messageId: 'm.broken',
    sentAt: new Date().toISOString(),
    type: 'server.print_job',
    payload: { jobId: 'job_broken', printerId: 'prints' },
  }
  expect(first.send(broken as never)).toBe(true)
  await waitFor(() => agentLog.some((line) => line.includes('the hub sent a frame outside the protocol')), 5_000)
  // The agent connects again, and the broken job never reached its ledger.
  await waitFor(() => next !== undefined, 10_000)
  expect(pipe.heardOf('job_broken', 'received')).toBe(0)
})
