// Shared set-up of the tests that put a stock OpenPrinter v1 agent (test/support/fake-agent.ts)
// against the real hub: the gateway session, the session registry and the dispatcher. A stock
// agent, built from the protocol reference alone, is the honest interoperability check: every
// frame the hub sends it is checked against the official JSON Schema and the wire rules as it
// arrives, and after each test every connection is closed and must have seen no bad frame.
import { afterAll, afterEach, beforeAll, expect } from 'bun:test'
import type { Job } from '../../src/protocol/job.ts'
import { type AgentCredentials, FakeAgent, type Frame, pairAgent, type PrinterDescriptor } from './fake-agent.ts'
import { jobBody, startTestHub, type TestHub, type TestHubOptions } from './hub.ts'
import { waitFor } from './wait.ts'

/** Short timers (the configuration's minimums or near them), so that timeouts and retries happen within a test. */
export const ENV = {
  PRINTHUB_ACK_TIMEOUT_MS: '1000',
  PRINTHUB_RETRY_INITIAL_MS: '400',
  PRINTHUB_RETRY_MAX_MS: '800',
  PRINTHUB_HEARTBEAT_INTERVAL_MS: '5000',
  PRINTHUB_HEARTBEAT_TIMEOUT_MS: '6000',
}
export const AUTH_FAILED = 'Gateway authentication failed.'
export const PROTOCOL_ERROR = 'The connection violated the OpenPrinter protocol.'
export const WIRE_ID = /^job_[0-9a-f]{32}\.a\d+$/

/** No frame broke the schema or a wire rule. */
export function expectClean(agent: FakeAgent): void {
  expect(agent.schemaFailures).toEqual([])
  expect(agent.protocolFailures).toEqual([])
}

/**
 * The hub ended the session for a protocol violation, the reference's way (4.4, 3.6). The close
 * reason is not checked: the reference SDK says `Protocol error`, the hub repeats the disconnect
 * reason, and agents ignore it.
 */
export async function expectProtocolError(agent: FakeAgent): Promise<void> {
  const disconnect = await agent.next('server.disconnect')
  expect(disconnect.payload).toEqual({ code: 'protocol_error', reason: PROTOCOL_ERROR, reconnect: false })
  expect((await agent.closed()).code).toBe(4400)
}

/** The server.print_job of one attempt (its wire ID). */
export const printJobFor = (agent: FakeAgent, wireId: string, timeoutMs = 3_000): Promise<Frame> =>
  agent.next('server.print_job', { where: (f) => f.payload.jobId === wireId, timeoutMs })

export interface GatewayHub {
  /** The file's hub (started before its first test, stopped after its last); use it inside tests only. */
  t: TestHub
  /** Every event line of every hub this file started. */
  events: string[]
  /** Every connection the current test opened: closed after it, and checked for frames a stock agent would refuse. */
  agents: FakeAgent[]
  /** Another hub with the same short timers and event log (a moved clock, a restart); the test stops it. */
  startHub(options?: Omit<TestHubOptions, 'env' | 'events'>): Promise<TestHub>
  /** Call in a describe block: a hub of its own for the block, whose clock `advance` moves forward. */
  clockedHub(): { h: TestHub; advance(ms: number): void }
  pair(hub?: TestHub): Promise<AgentCredentials>
  /** A connection that has its challenge, nothing more. */
  connect(credentials: AgentCredentials, hub?: TestHub): Promise<FakeAgent>
  /** A connection that authenticated, said hello and reported `printers` (one online printer unless given). */
  online(credentials: AgentCredentials, printers?: PrinterDescriptor[], hub?: TestHub): Promise<FakeAgent>
  /** A hub printer record for one of the agent's printers; returns its remote ID. */
  addPrinter(agentId: string, agentPrinterId?: string, hub?: TestHub): string
  postJob(
    remoteId: string,
    overrides?: Record<string, unknown>,
    hub?: TestHub,
  ): Promise<{ id: string; state: string; attemptCount: number }>
  /** The job as stored now. */
  job(id: string, hub?: TestHub): Job
  /** The job, once it is in `state`. */
  waitForState(id: string, state: string, timeoutMs?: number, hub?: TestHub): Promise<Job>
  /**
   * A barrier: frames are handled in order, so once the hub has stored an inventory sent after some
   * frames, it has handled those frames. The new snapshot changes only fingerprints (it needs one
   * printer at least). Note that a new inventory also wakes the agent's printer queues.
   */
  sync(agent: FakeAgent, hub?: TestHub): Promise<void>
}

let printerCount = 0

/** A hub object that stands for the one `current` gives when used (tests name it before it started). */
function standIn(current: () => TestHub): TestHub {
  return {
    get hub() {
      return current().hub
    },
    get url() {
      return current().url
    },
    get dataDir() {
      return current().dataDir
    },
    get projectId() {
      return current().projectId
    },
    get apiKey() {
      return current().apiKey
    },
    get printerId() {
      return current().printerId
    },
    get logs() {
      return current().logs
    },
    request: (...args) => current().request(...args),
    stop: () => current().stop(),
  }
}

/**
 * Call once at the top of a test file: starts the file's hub (short timers, events recorded) in
 * beforeAll, stops it in afterAll, and after each test closes the connections it opened and checks
 * that none of them saw a frame a stock agent would refuse. The helpers work on the file's hub
 * unless given another.
 */
export function useGatewayHub(): GatewayHub {
  let current: TestHub | undefined
  const hub = (): TestHub => {
    if (!current) throw new Error('the hub starts in beforeAll: use it inside tests')
    return current
  }
  // Stands for the file's hub, so that tests can name it before it has started.
  const t = standIn(hub)
  const events: string[] = []
  const agents: FakeAgent[] = []

  const startHub: GatewayHub['startHub'] = (options = {}) =>
    startTestHub({ ...options, env: ENV, events: (line) => events.push(line) })

  beforeAll(async () => {
    current = await startHub()
  })
  afterAll(() => current?.stop())
  afterEach(async () => {
    // Emptied in place: the array is the one every test file holds.
    const opened = agents.splice(0)
    await Promise.all(opened.map((agent) => agent.close()))
    for (const agent of opened) expectClean(agent)
  })

  const job = (id: string, on: TestHub = t): Job => on.hub.store.jobs.get(id)!

  return {
    t,
    events,
    agents,
    startHub,
    clockedHub() {
      let clocked: TestHub | undefined
      let offset = 0
      beforeAll(async () => {
        clocked = await startHub({ now: () => Date.now() + offset })
      })
      afterAll(() => clocked?.stop())
      return {
        h: standIn(() => {
          if (!clocked) throw new Error('the hub starts in beforeAll: use it inside tests')
          return clocked
        }),
        advance: (ms) => void (offset += ms),
      }
    },
    pair: (on = t) => pairAgent(on.url, on.hub.store.pairingCodes.create(300_000).code),
    async connect(credentials, on = t) {
      const agent = await FakeAgent.connect(on.url, credentials)
      agents.push(agent)
      return agent
    },
    async online(credentials, printers, on = t) {
      const agent = await FakeAgent.online(on.url, credentials, printers)
      agents.push(agent)
      return agent
    },
    addPrinter(agentId, agentPrinterId = 'printer_fake_1', on = t) {
      const remoteId = `fake-${++printerCount}`
      const record = on.hub.store.printers.add({
        projectId: on.projectId,
        remoteId,
        name: null,
        connection: 'virtual',
        profile: 'generic-80mm',
        width: 80,
        agentId,
        agentPrinterId,
      })
      expect(record).toBeDefined()
      return remoteId
    },
    async postJob(remoteId, overrides = {}, on = t) {
      const response = await on.request('POST', `/v1/projects/${on.projectId}/jobs`, {
        body: jobBody({
          printerId: remoteId,
          document: { width: 80, sections: [{ type: 'text', value: 'Hi' }, { type: 'cut' }] },
          ...overrides,
        }),
      })
      expect(response.status).toBe(202)
      const body = (await response.json()) as { job: { id: string; state: string; attemptCount: number } }
      return body.job
    },
    job,
    waitForState: (id, state, timeoutMs = 3_000, on = t) =>
      waitFor(() => job(id, on).state === state && job(id, on), timeoutMs),
    async sync(agent, on = t) {
      if (agent.printers.length === 0) throw new Error('sync() needs an agent with a printer')
      const revision = agent.revision + 1
      const printers = agent.printers.map((p) => ({ ...p, fingerprint: `virtual:${p.id}:r${revision}` }))
      await agent.inventory(printers, revision)
      const first = printers[0]!
      // An agent's inventories are stored at most once a second (dispatcher/inventory-writes.ts).
      await waitFor(
        () => on.hub.store.agents.printer(agent.agentId, first.id)?.descriptor.fingerprint === first.fingerprint,
        5_000,
      )
    },
  }
}
