// What the agent tests over the pipe to a printer on real TCP share: an ESC/POS printer that
// answers real-time status requests, its first connection's in its own time, and the built-in
// agent's ledger on a test store with the hub's side played by a map of the jobs it holds, and
// that agent over the pipe with the printer as its one printer, `p`.
import { join } from 'node:path'
import { BuiltinLedger, type HeldByHub } from '../../src/agent/builtin-ledger.ts'
import type { PrintJobPayload } from '../../src/agent/ledger.ts'
import type { Render } from '../../src/agent/render-ahead.ts'
import { Log } from '../../src/platform/log.ts'
import { type AgentPipe, agentOverPipe } from './agent-pipe.ts'
import type { TestStore } from './fixtures.ts'

export interface PrinterConnection {
  openedAt: number
  /** When its first status request was answered. */
  answeredAt?: number
  closed: boolean
  bytes: number[]
}

/**
 * An ESC/POS printer on TCP that answers each status request (DLE EOT n) with online: the first
 * connection's once `firstAnswer()` settles (asked at each of its requests), every later one's at
 * once. It notes each connection's times and bytes.
 */
export function statusPrinter(firstAnswer: () => Promise<unknown>) {
  const connections: PrinterConnection[] = []
  const server = Bun.listen<{ index: number }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.data = { index: connections.length }
        connections.push({ openedAt: performance.now(), closed: false, bytes: [] })
      },
      data(socket, data) {
        const connection = connections[socket.data.index]!
        connection.bytes.push(...data)
        // One status byte each (0x12: online, no error, paper present).
        const requests = data.filter((byte) => byte === 0x04).length
        if (requests === 0) return
        const answer = () => {
          connection.answeredAt ??= performance.now()
          socket.write(new Uint8Array(requests).fill(0x12))
        }
        if (socket.data.index === 0) void firstAnswer().then(answer)
        else answer()
      },
      close(socket) {
        connections[socket.data.index]!.closed = true
      },
    },
  })
  const texts = () =>
    connections.map((connection) => new TextDecoder('latin1').decode(Uint8Array.from(connection.bytes)))
  return { port: server.port, connections, texts, stop: () => server.stop(true) }
}

/** The built-in agent's ledger on the test store; `hold` makes a job one the hub holds with the agent (as sent). */
export function heldJobsLedger(world: TestStore) {
  const held = new Map<string, HeldByHub & { payload: PrintJobPayload }>()
  const ledger = new BuiltinLedger(world.store.db, world.store.commits, {
    backlogEnds: () => new Map(),
    held: () => [],
    heldJob: (jobId) => held.get(jobId),
    payload: (jobId) => held.get(jobId)?.payload,
  })
  const hold = (payload: PrintJobPayload, order: number) =>
    void held.set(payload.jobId, {
      jobId: payload.jobId,
      printerId: payload.printerId,
      messageId: `m.${payload.jobId}`,
      receivedAt: Date.now(),
      order,
      payload,
    })
  return { ledger, hold }
}

/** The built-in agent over the pipe, its one printer `p` the TCP printer at `port`. */
export function agentWithPrinter(
  world: TestStore,
  ledger: BuiltinLedger,
  port: number,
  render?: Render,
): Promise<AgentPipe> {
  return agentOverPipe({
    ledger,
    keyDir: join(world.dir, 'agent-key'),
    sharesCommits: true,
    printers: [{ id: 'p', name: 'p', connection: `tcp://127.0.0.1:${port}`, profile: 'generic-80mm', width: 80 }],
    log: new Log({ format: 'text', level: 'error', journal: false }, () => {}).for('agent'),
    watch: () => undefined,
    render,
  })
}
