// A printer is reached by one connection at a time from its agent: a job that comes while the idle
// status watch is asking the printer waits until that connection is closed (some printers take one
// connection at a time, and stall or refuse a second). Over the pipe, to a printer on real TCP.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import type { BuiltinLedger } from '../../src/agent/builtin-ledger.ts'
import type { AgentPipe } from '../support/agent-pipe.ts'
import { firstStartedStore, printJobPayload, type TestStore } from '../support/fixtures.ts'
import { agentWithPrinter, heldJobsLedger, statusPrinter } from '../support/status-printer.ts'
import { waitFor } from '../support/wait.ts'

/** How long the printer takes to answer the first status request it is asked (the watch's). */
const FIRST_ANSWER_MS = 300

let world: TestStore
let ledger: BuiltinLedger
let hold: ReturnType<typeof heldJobsLedger>['hold']
let pipe: AgentPipe | undefined
let printer: ReturnType<typeof statusPrinter>

beforeEach(async () => {
  world = await firstStartedStore()
  printer = statusPrinter(() => Bun.sleep(FIRST_ANSWER_MS))
  ;({ ledger, hold } = heldJobsLedger(world))
})

afterEach(async () => {
  await pipe?.stop()
  pipe = undefined
  ledger.close()
  world.close()
  printer.stop()
})

test(
  "a job that comes while the idle watch asks its printer's status reaches " +
    "the printer once the watch's connection is closed",
  async () => {
    pipe = await agentWithPrinter(world, ledger, printer.port)
    // The watch asks every idle printer as the agent starts: its connection waits for the answer.
    await waitFor(() => printer.connections.length === 1 && printer.connections[0]!.bytes.length > 0)
    const payload = printJobPayload('p', { width: 80, sections: [{ type: 'text', value: 'one at a time' }] })
    hold(payload, 1)
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
  },
)
