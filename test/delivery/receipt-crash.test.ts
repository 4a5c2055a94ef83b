// A remote agent killed after it stored a job and before its receipt reached the hub: the hub gave
// that attempt up (agent.disconnected) and sends the job again as a new attempt once the agent is
// back, which the agent, seeing another wire ID, takes as a new job. The restarted agent prints the
// job it stored before it is connected again, so on its reconnection the job is no longer waiting:
// it must still be acknowledged, and before any inventory (the hub dispatches once it has one), or
// the ticket prints twice, as `remote-agent.test.ts`'s kill test found once in 5-14 runs. Here the
// kill's moment is made exactly: the agent's ledger holds the job as the kill left it, and the
// restarted agent's printer holds the job's bytes while the agent connects.
import { afterEach, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { Agent } from '../../src/agent/agent.ts'
import type { Connector } from '../../src/agent/connection.ts'
import { AgentKey } from '../../src/agent/identity.ts'
import { Ledger, type PrintJobPayload } from '../../src/agent/ledger.ts'
import { type Pairing, pairAgent, pairingOf } from '../../src/agent/remote.ts'
import { websocketConnector } from '../../src/agent/websocket.ts'
import { VERSION } from '../../src/domain/version.ts'
import type { Job } from '../../src/protocol/job.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import { confinementOf } from '../../src/transports/confine.ts'
import { VirtualPrinters } from '../../src/transports/virtual.ts'
import { startTestHub, submitJob, type TestHub, tempDir } from '../support/hub.ts'
import { waitFor } from '../support/wait.ts'

/** Virtual printers whose first job's bytes are held (the job being written) until released. */
class HoldingPrinters extends VirtualPrinters {
  readonly writing = Promise.withResolvers<void>()
  readonly released = Promise.withResolvers<void>()
  private first = true

  override async submit(...args: Parameters<VirtualPrinters['submit']>): ReturnType<VirtualPrinters['submit']> {
    if (this.first) {
      this.first = false
      this.writing.resolve()
      await this.released.promise
    }
    return super.submit(...args)
  }
}

const cleanUps: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanUp of cleanUps.splice(0).reverse()) await cleanUp()
})

/** An agent on `ledger`; `catalogRead` is told each time it read its catalog. */
function agentOn({
  ledger,
  dir,
  connector,
  virtuals,
  catalogRead = () => {},
}: {
  ledger: Ledger
  dir: string
  connector: Connector
  virtuals: VirtualPrinters
  catalogRead?: () => void
}): Agent {
  const pairing = pairingOf(ledger)!
  const agent = new Agent({
    ledger,
    key: AgentKey.load(dir)!,
    credentials: { agentId: pairing.agentId, keyId: pairing.keyId },
    catalog: {
      printers: () => {
        const printers = ledger.printers()
        queueMicrotask(catalogRead)
        return printers
      },
    },
    connector,
    virtuals,
    confinement: confinementOf(dir),
    version: VERSION,
    statusPollMs: 60_000,
  })
  agent.start()
  return agent
}

async function jobOf(t: TestHub, id: string): Promise<Job> {
  return (await (await t.request('GET', `/v1/projects/${t.projectId}/jobs/${id}`)).json()).job
}

const TICKET = '<the ticket>'

interface Killed {
  t: TestHub
  dir: string
  pairing: Pairing
  /** The hub's job, and its first attempt as the agent stored it. */
  job: Job
  payload: PrintJobPayload
}

/**
 * A hub and a paired agent with a virtual printer; the agent takes the job's first attempt off the
 * wire and, as a kill left it, stores it and never acknowledges it (`submitting`: claimed too, and
 * killed before its hand-over mark). The hub has given the attempt up.
 */
async function killedBeforeReceipt(left: 'received' | 'submitting'): Promise<Killed> {
  const t = await startTestHub({ env: { PRINTHUB_RETRY_INITIAL_MS: '100', PRINTHUB_RETRY_MAX_MS: '100' } })
  cleanUps.push(() => t.stop())
  const dir = tempDir()
  cleanUps.push(() => rmSync(dir, { recursive: true, force: true }))
  const { code } = t.hub.store.pairingCodes.create(300_000)
  const pairing = await pairAgent({ server: t.url, code, name: 'kitchen-pi', dataDir: dir, version: VERSION })
  const ledger = Ledger.open(dir)
  ledger.addPrinter({
    id: 'kitchen',
    name: 'Kitchen',
    connection: 'virtual://kitchen',
    profile: 'generic-80mm',
    width: 80,
  })
  const taken = Promise.withResolvers<{ payload: PrintJobPayload; messageId: string }>()
  const swallowing: Connector = (handlers) =>
    websocketConnector(pairing.gateway)({
      message(data) {
        const frame = typeof data === 'string' && data.includes('"server.print_job"') ? JSON.parse(data) : undefined
        if (frame) taken.resolve({ payload: frame.payload, messageId: frame.messageId })
        else handlers.message(data)
      },
      closed: (code, reason) => handlers.closed(code, reason),
    })
  const agent = agentOn({ ledger, dir, connector: swallowing, virtuals: new VirtualPrinters() })
  await waitFor(() => t.hub.sessions.session(pairing.agentId)?.printers.size === 1, 5_000)
  expect(
    (
      await new HubServices(t.hub.store).printers.assign(THE_MACHINE, {
        projectId: t.projectId,
        agentId: pairing.agentId,
        agentPrinterId: 'kitchen',
      })
    ).kind,
  ).toBe('added')
  const job = await submitJob(t, {
    printerId: 'kitchen',
    document: { width: 80, sections: [{ type: 'text', value: TICKET }, { type: 'cut' }] },
  })
  const { payload, messageId } = await taken.promise
  const stored = ledger.receive(payload, messageId)
  if (stored.kind !== 'new') throw new Error(`the job was not stored: ${stored.kind}`)
  if (left === 'submitting') expect(ledger.claim(stored.job.seq)).toBe(true)
  await ledger.durable()
  await agent.stop()
  ledger.close()
  expect(
    await waitFor(async () => ((await jobOf(t, job.id)).state === 'PENDING' ? jobOf(t, job.id) : undefined), 5_000),
  ).toMatchObject({ attemptCount: 1, lastErrorCode: 'agent.disconnected' })
  return { t, dir, pairing, job, payload }
}

/** The restarted agent, on the ledger as the kill left it. */
function restart({ dir }: Killed, connector: Connector, printers: HoldingPrinters, catalogRead?: () => void): Ledger {
  const ledger = Ledger.open(dir)
  const agent = agentOn({ ledger, dir, connector, virtuals: printers, catalogRead })
  cleanUps.push(async () => {
    printers.released.resolve()
    await agent.stop()
    ledger.close()
  })
  return ledger
}

/**
 * Once the job ended on the hub and every attempt the agent took ended there too: the job, and how often its ticket
 * printed.
 */
async function outcome(
  { t, job }: Killed,
  ledger: Ledger,
  printers: VirtualPrinters,
): Promise<{ job: Job; copies: number }> {
  const done = await waitFor(async () => {
    const now = await jobOf(t, job.id)
    const attempts = Array.from({ length: now.attemptCount }, (_, i) => ledger.job(`${job.id}.a${i + 1}`))
    return now.state === 'COMPLETED' &&
      attempts.every((attempt) => !attempt || ['completed', 'failed', 'cancelled'].includes(attempt.state))
      ? now
      : undefined
  }, 5_000)
  return {
    job: done,
    copies: printers
      .printed('kitchen')
      .filter((output) => Buffer.from(output.bytes).toString('latin1').includes(TICKET)).length,
  }
}

test.each(['received', 'submitting'] as const)(
  'a job stored and left %s by a kill before its receipt reached the hub, ' +
    'printed before the agent is back: acknowledged again, it prints once',
  async (left) => {
    const killed = await killedBeforeReceipt(left)
    const printers = new HoldingPrinters()
    // The agent gets through to the hub while its printer takes the job's bytes.
    const ledger = restart(
      killed,
      async (handlers) => {
        await printers.writing.promise
        return websocketConnector(killed.pairing.gateway)(handlers)
      },
      printers,
    )
    await printers.writing.promise
    expect(ledger.job(killed.payload.jobId)).toMatchObject({ state: 'submitting' })
    // The hub knows the agent holds the job (DELIVERED), or it sent it again (a second attempt).
    await waitFor(async () => {
      const now = await jobOf(killed.t, killed.job.id)
      return now.state === 'DELIVERED' || now.attemptCount > 1
    }, 5_000)
    printers.released.resolve()
    const { job, copies } = await outcome(killed, ledger, printers)
    expect({ attemptCount: job.attemptCount, copies }).toEqual({ attemptCount: 1, copies: 1 })
  },
)

test(
  'an inventory due while the agent is resuming (a printer added to it ' + 'meanwhile) waits for the acknowledgements',
  async () => {
    const killed = await killedBeforeReceipt('received')
    const printers = new HoldingPrinters()
    const sent: string[] = []
    // Once connected, the ledger's flushes wait (a slow disk) until released: the agent is resuming.
    const flushes = Promise.withResolvers<void>()
    let connected = false
    let flushesWaiting = 0
    let catalogReads = 0
    const ledger = restart(
      killed,
      async (handlers) => {
        await printers.writing.promise
        const transport = await websocketConnector(killed.pairing.gateway)(handlers)
        connected = true
        return {
          send(text) {
            const frame = JSON.parse(text) as { type: string; payload?: { jobId?: string } }
            sent.push(frame.payload?.jobId ? `${frame.type} ${frame.payload.jobId}` : frame.type)
            transport.send(text)
          },
          close: (code, reason) => transport.close(code, reason),
        }
      },
      printers,
      () => catalogReads++,
    )
    const durable = ledger.durable.bind(ledger)
    ledger.durable = () => {
      if (!connected) return durable()
      flushesWaiting++
      return flushes.promise.then(durable)
    }
    await waitFor(() => flushesWaiting > 0, 5_000)
    // A printer added while the agent resumes: its inventory changes when it reads its catalog next.
    ledger.addPrinter({ id: 'bar', name: 'Bar', connection: 'virtual://bar', profile: 'generic-80mm', width: 80 })
    const reads = catalogReads
    await waitFor(() => catalogReads > reads, 5_000)
    // An inventory sent then has the hub send the job again, as its second attempt.
    if (sent.includes('agent.printer_inventory'))
      await waitFor(async () => (await jobOf(killed.t, killed.job.id)).attemptCount > 1, 5_000)
    printers.released.resolve()
    flushes.resolve()
    const { job, copies } = await outcome(killed, ledger, printers)
    expect({ attemptCount: job.attemptCount, copies }).toEqual({ attemptCount: 1, copies: 1 })
    expect(sent.indexOf(`agent.job_received ${killed.payload.jobId}`)).toBeGreaterThanOrEqual(0)
    expect(sent.indexOf(`agent.job_received ${killed.payload.jobId}`)).toBeLessThan(
      sent.indexOf('agent.printer_inventory'),
    )
    // The inventory that went names the printer added.
    expect(killed.t.hub.sessions.session(killed.pairing.agentId)?.printers.size).toBe(2)
  },
)
