// A printer is reached by one connection at a time from its agent: a job that comes while the idle
// status watch is asking the printer waits until that connection is closed (some printers take one
// connection at a time, and stall or refuse a second). Over the pipe, to a printer on real TCP.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { join } from 'node:path'
import { BuiltinLedger, type HeldByHub } from '../../src/agent/builtin-ledger.ts'
import type { PrintJobPayload } from '../../src/agent/ledger.ts'
import { Log } from '../../src/platform/log.ts'
import { type AgentPipe, agentOverPipe } from '../support/agent-pipe.ts'
import { firstStartedStore, printJobPayload, type TestStore } from '../support/fixtures.ts'
import { waitFor } from '../support/wait.ts'

/** How long the printer takes to answer the first status request it is asked (the watch's). */
const FIRST_ANSWER_MS = 300

/**
 * An ESC/POS printer on TCP that answers real-time status requests (online): the first connection's
 * after FIRST_ANSWER_MS, every later one's at once. It notes when each connection opened and was answered.
 */
function slowFirstAnswer() {
  const connections: { openedAt: number; answeredAt?: number; bytes: number[] }[] = []
  const server = Bun.listen<{ index: number }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.data = { index: connections.length }
        connections.push({ openedAt: performance.now(), bytes: [] })
      },
      data(socket, data) {
        const connection = connections[socket.data.index]!
        connection.bytes.push(...data)
        // DLE EOT n: one status byte each (0x12: online, no error, paper present).
        const requests = data.filter((byte) => byte === 0x04).length
        if (requests === 0) return
        const answer = () => {
          connection.answeredAt ??= performance.now()
          socket.write(new Uint8Array(requests).fill(0x12))
        }
        if (socket.data.index === 0) setTimeout(answer, FIRST_ANSWER_MS)
        else answer()
      },
    },
  })
  return { port: server.port, connections, stop: () => server.stop(true) }
}

let world: TestStore
let ledger: BuiltinLedger
let pipe: AgentPipe | undefined
let printer: ReturnType<typeof slowFirstAnswer>
const held = new Map<string, HeldByHub & { payload: PrintJobPayload }>()

beforeEach(async () => {
  world = await firstStartedStore()
  held.clear()
  printer = slowFirstAnswer()
  ledger = new BuiltinLedger(world.store.db, world.store.commits, {
    backlogEnds: () => new Map(),
    held: () => [],
    heldJob: (jobId) => held.get(jobId),
    payload: (jobId) => held.get(jobId)?.payload,
  })
})

afterEach(async () => {
  await pipe?.stop()
  pipe = undefined
  ledger.close()
  world.close()
  printer.stop()
})

test("a job that comes while the idle watch asks its printer's status reaches the printer once the watch's connection is closed", async () => {
  pipe = await agentOverPipe({
    ledger,
    keyDir: join(world.dir, 'agent-key'),
    sharesCommits: true,
    printers: [{ id: 'p', name: 'p', connection: `tcp://127.0.0.1:${printer.port}`, profile: 'generic-80mm', width: 80 }],
    log: new Log({ format: 'text', level: 'error', journal: false }, () => {}).for('agent'),
    watch: () => undefined,
  })
  // The watch asks every idle printer as the agent starts: its connection waits for the answer.
  await waitFor(() => printer.connections.length === 1 && printer.connections[0]!.bytes.length > 0)
  const payload = printJobPayload('p', { width: 80, sections: [{ type: 'text', value: 'one at a time' }] })
  held.set(payload.jobId, { jobId: payload.jobId, printerId: 'p', messageId: `m.${payload.jobId}`, receivedAt: Date.now(), order: 1, payload })
  pipe.printJob(payload)
  await waitFor(() => pipe!.heardOf(payload.jobId, 'completed') === 1, 10_000)

  // Two connections, one after the other: the watch's, then the job's, opened only once the watch
  // had its answer (it closes its connection then). Beside it, the job's would have opened within
  // milliseconds of the job, long before the answer.
  const [watch, job] = printer.connections
  expect(printer.connections).toHaveLength(2)
  expect(watch!.answeredAt).toBeNumber()
  expect(job!.openedAt).toBeGreaterThan(watch!.answeredAt!)
  // The printer reads the job's bytes in its own time after the agent wrote them.
  await waitFor(() => new TextDecoder('latin1').decode(Uint8Array.from(job!.bytes)).includes('one at a time'))
})
