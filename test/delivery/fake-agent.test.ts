// Interoperability: a stock OpenPrinter v1 agent, built from the protocol reference alone
// (test/support/fake-agent.ts), against the real hub. Every frame the hub sends is checked against
// the official JSON Schema and the wire rules as it arrives; each test also asserts real outcomes
// (job states in the store and the API, close codes, disconnect codes).
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { utils } from '@noble/ed25519'
import { rmSync } from 'node:fs'
import { type AgentCredentials, FakeAgent, type Frame, isoNow, pairAgent, type PrinterDescriptor, virtualPrinter } from '../support/fake-agent.ts'
import { jobBody, startTestHub, type TestHub, tempDir } from '../support/hub.ts'
import { fixture, fixtureNames } from '../support/schema.ts'
import { waitFor } from '../support/wait.ts'

/** Short timers (the configuration's minimums or near them), so that timeouts and retries happen within a test. */
const ENV = {
  PRINTHUB_ACK_TIMEOUT_MS: '1000',
  PRINTHUB_RETRY_INITIAL_MS: '400',
  PRINTHUB_RETRY_MAX_MS: '800',
  PRINTHUB_HEARTBEAT_INTERVAL_MS: '5000',
  PRINTHUB_HEARTBEAT_TIMEOUT_MS: '6000',
}
const AUTH_FAILED = 'Gateway authentication failed.'
const PROTOCOL_ERROR = 'The connection violated the OpenPrinter protocol.'
const WIRE_ID = /^job_[0-9a-f]{32}\.a\d+$/

let t: TestHub
const events: string[] = []
/** Every connection a test opened: closed after it, and checked for frames a stock agent would refuse. */
let agents: FakeAgent[] = []

beforeAll(async () => {
  t = await startTestHub({ env: ENV, events: (line) => events.push(line) })
})
afterAll(() => t.stop())
afterEach(async () => {
  const opened = agents
  agents = []
  await Promise.all(opened.map((agent) => agent.close()))
  for (const agent of opened) expectClean(agent)
})

/** No frame broke the schema or a wire rule. */
function expectClean(agent: FakeAgent): void {
  expect(agent.schemaFailures).toEqual([])
  expect(agent.protocolFailures).toEqual([])
}

async function pair(hub: TestHub = t): Promise<AgentCredentials> {
  return pairAgent(hub.url, hub.hub.store.pairingCodes.create(300_000).code)
}

async function connect(credentials: AgentCredentials, hub: TestHub = t): Promise<FakeAgent> {
  const agent = await FakeAgent.connect(hub.url, credentials)
  agents.push(agent)
  return agent
}

async function online(credentials: AgentCredentials, printers?: PrinterDescriptor[], hub: TestHub = t): Promise<FakeAgent> {
  const agent = await FakeAgent.online(hub.url, credentials, printers)
  agents.push(agent)
  return agent
}

let printerCount = 0
/** A hub printer record for one of the agent's printers; returns its remote ID. */
function addPrinter(agentId: string, agentPrinterId = 'printer_fake_1', hub: TestHub = t): string {
  const remoteId = `fake-${++printerCount}`
  const record = hub.hub.store.printers.add({ projectId: hub.projectId, remoteId, name: null, connection: 'virtual', profile: 'generic-80mm', width: 80, agentId, agentPrinterId })
  expect(record).toBeDefined()
  return remoteId
}

async function postJob(remoteId: string, overrides: Record<string, unknown> = {}, hub: TestHub = t) {
  const response = await hub.request('POST', `/v1/projects/${hub.projectId}/jobs`, { body: jobBody({ printerId: remoteId, document: { width: 80, sections: [{ type: 'text', value: 'Hi' }, { type: 'cut' }] }, ...overrides }) })
  expect(response.status).toBe(202)
  const body = (await response.json()) as { job: { id: string; state: string; attemptCount: number } }
  return body.job
}

const job = (id: string, hub: TestHub = t) => hub.hub.store.jobs.get(id)!
const waitForState = (id: string, state: string, timeoutMs = 3_000, hub: TestHub = t) => waitFor(() => job(id, hub).state === state && job(id, hub), timeoutMs)
const printJobFor = (agent: FakeAgent, wireId: string, timeoutMs = 3_000) => agent.next('server.print_job', { where: (f) => f.payload.jobId === wireId, timeoutMs })

/**
 * A barrier: frames are handled in order, so once the hub has stored an inventory sent after some
 * frames, it has handled those frames. The new snapshot changes only fingerprints (it needs one
 * printer at least). Note that a new inventory also wakes the agent's printer queues.
 */
async function sync(agent: FakeAgent, hub: TestHub = t): Promise<void> {
  if (agent.printers.length === 0) throw new Error('sync() needs an agent with a printer')
  const revision = agent.revision + 1
  const printers = agent.printers.map((p) => ({ ...p, fingerprint: `virtual:${p.id}:r${revision}` }))
  await agent.inventory(printers, revision)
  const first = printers[0]!
  await waitFor(() => hub.hub.store.agents.printer(agent.agentId, first.id)?.descriptor.fingerprint === first.fingerprint)
}

/**
 * The hub ended the session for a protocol violation, the reference's way (4.4, 3.6). The close
 * reason is not checked: the reference SDK says `Protocol error`, the hub repeats the disconnect
 * reason, and agents ignore it.
 */
async function expectProtocolError(agent: FakeAgent): Promise<void> {
  const disconnect = await agent.next('server.disconnect')
  expect(disconnect.payload).toEqual({ code: 'protocol_error', reason: PROTOCOL_ERROR, reconnect: false })
  expect((await agent.closed()).code).toBe(4400)
}

describe('a stock agent and the hub', () => {
  test('happy path: auth, hello, inventory, and a job PENDING → DISPATCHING → DELIVERED → COMPLETED', async () => {
    const credentials = await pair()
    expect(credentials.serverId).toBe(t.hub.serverId)
    const agent = await connect(credentials)
    const challenge = agent.challenge!
    expect(challenge.challengeId).toMatch(/^challenge_/)
    expect(Date.parse(challenge.expiresAt)).toBeGreaterThan(Date.now())

    const accepted = await agent.authenticate()
    expect(accepted).toEqual({ type: 'auth.accepted', sessionId: expect.any(String), agentId: credentials.agentId, heartbeatIntervalMs: 5000 })

    const hello = await agent.hello()
    expect(hello.correlationId).toBe(agent.helloMessageId!)
    expect(hello.payload).toEqual({
      serverId: t.hub.serverId,
      serverVersion: expect.any(String),
      brand: { name: 'printhub' },
      sessionId: accepted.sessionId,
      supportedProtocolVersions: ['1'],
      selectedProtocolVersion: '1',
      heartbeatIntervalMs: 5000,
      maxMessageBytes: 2_097_152,
    })

    await agent.inventory([virtualPrinter('printer_fake_1')])
    await waitFor(() => t.hub.store.agents.printer(credentials.agentId, 'printer_fake_1'))
    expect(t.hub.store.agents.get(credentials.agentId)!.lastSeenAt).not.toBeNull()

    const remoteId = addPrinter(credentials.agentId)
    const created = await postJob(remoteId)
    expect(created.state).toBe('PENDING')
    expect(created.attemptCount).toBe(0)

    const wireId = `${created.id}.a1`
    const printJob = await printJobFor(agent, wireId)
    expect(printJob.messageId).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/)
    expect(printJob.payload).toEqual({
      jobId: wireId,
      idempotencyKey: wireId,
      printerId: 'printer_fake_1',
      createdAt: job(created.id).createdAt,
      document: { width: 80, sections: [{ type: 'text', value: 'Hi' }, { type: 'cut' }] },
    })
    expect(job(created.id)).toMatchObject({ state: 'DISPATCHING', attemptCount: 1, receivedAt: null, submittedAt: null })

    const receivedAt = isoNow()
    agent.jobReceived(printJob, receivedAt)
    expect(await waitForState(created.id, 'DELIVERED')).toMatchObject({ attemptCount: 1, receivedAt, submittedAt: null })

    const submittedAt = isoNow()
    agent.jobSubmitted(printJob, submittedAt)
    expect(await waitForState(created.id, 'COMPLETED')).toMatchObject({ attemptCount: 1, receivedAt, submittedAt, lastErrorCode: null })

    // The API tells the same story.
    const listed = (await (await t.request('GET', `/v1/projects/${t.projectId}/jobs`)).json()) as { jobs: { id: string }[] }
    expect(listed.jobs.find((j) => j.id === created.id)).toMatchObject({ state: 'COMPLETED', attemptCount: 1, receivedAt, submittedAt })

    // Every kind of frame the hub sent on this path was seen (and checked on arrival).
    const types = new Set(agent.received.map((r) => r.frame.type))
    for (const type of ['auth.challenge', 'auth.accepted', 'server.hello', 'server.heartbeat', 'server.print_job']) expect(types).toContain(type)
    expect(agent.received.length).toBeGreaterThanOrEqual(5)
    expect(agent.isOpen).toBe(true)
    expectClean(agent)
  })
})

describe('heartbeats', () => {
  test('the first server.heartbeat follows server.hello; answers keep the session, silence ends it', async () => {
    const [a, b] = await Promise.all([pair(), pair()])
    const answering = await connect(a)
    const silent = await connect(b)
    silent.answerHeartbeats = false
    for (const agent of [answering, silent]) {
      await agent.authenticate()
      await agent.hello()
      const helloIndex = agent.received.findIndex((r) => r.frame.type === 'server.hello')
      const heartbeat = await agent.next('server.heartbeat')
      expect(agent.received[helloIndex + 1]!.frame).toBe(heartbeat)
      expect(heartbeat.payload).toEqual({ timeoutMs: 6000 })
      expect(heartbeat.correlationId).toBeUndefined()
    }
    // The silent agent is dropped after the heartbeat timeout (6 s), with the reference's disconnect.
    const disconnect = await silent.next('server.disconnect', { timeoutMs: 9_000 })
    expect(disconnect.payload).toEqual({ code: 'heartbeat_timeout', reason: 'The agent did not answer protocol heartbeats in time.', reconnect: true, retryAfterMs: 5000 })
    expect((await silent.closed()).code).toBe(4400)
    // Meanwhile the answering agent got the next heartbeat (interval 5 s), answered it, and is still there.
    expect(answering.all('server.heartbeat').length).toBeGreaterThanOrEqual(2)
    expect(answering.all('server.disconnect')).toEqual([])
    expect(answering.isOpen).toBe(true)
    expect(t.hub.sessions.session(a.agentId)?.isConnected).toBe(true)
    expect(t.hub.sessions.session(b.agentId)).toBeUndefined()
  }, 20_000)

  test('a heartbeat answer to no heartbeat is a protocol error (server.disconnect, 4400)', async () => {
    const agent = await online(await pair())
    agent.send(agent.envelope('agent.heartbeat', { uptimeSeconds: 1 }, 'msg_not_a_heartbeat'))
    await expectProtocolError(agent)
  })

  test('answering the same heartbeat twice is a protocol error too', async () => {
    const agent = await online(await pair())
    const heartbeat = await agent.next('server.heartbeat')
    // The automatic answer went out already; this second one answers nothing pending.
    agent.send(agent.envelope('agent.heartbeat', { uptimeSeconds: 1 }, heartbeat.messageId))
    await expectProtocolError(agent)
  })
})

describe('authentication', () => {
  let credentials: AgentCredentials
  beforeAll(async () => {
    credentials = await pair()
  })

  async function expectRejected(agent: FakeAgent, outcome: Frame | undefined, code: string): Promise<void> {
    const rejected = outcome ?? (await agent.next('auth.rejected'))
    expect(rejected).toEqual({ type: 'auth.rejected', code, message: AUTH_FAILED })
    expect(await agent.closed()).toEqual({ code: 4401, reason: code })
    // Nothing follows a rejection.
    expect(agent.received.at(-1)!.frame).toBe(rejected)
  }

  test('the right key is accepted', async () => {
    const agent = await connect(credentials)
    expect((await agent.authenticate()).type).toBe('auth.accepted')
  })

  test('a wrong signature: invalid_signature, 4401', async () => {
    const agent = await connect(credentials)
    await expectRejected(agent, await agent.authenticate({ secretKey: utils.randomSecretKey() }), 'invalid_signature')
  })

  test('a signature of other bytes: invalid_signature', async () => {
    const agent = await connect(credentials)
    await expectRejected(agent, await agent.authenticate({ signed: new TextEncoder().encode('openprinter-auth-v1') }), 'invalid_signature')
  })

  test('an unknown agent: credential_not_found', async () => {
    const agent = await connect(credentials)
    await expectRejected(agent, await agent.authenticate({ agentId: 'agt_00000000000000000000000000000000' }), 'credential_not_found')
  })

  test('a known agent with another key ID: credential_not_found', async () => {
    const agent = await connect(credentials)
    await expectRejected(agent, await agent.authenticate({ keyId: 'key_00000000000000000000000000000000' }), 'credential_not_found')
  })

  test('a revoked agent: credential_revoked', async () => {
    const revoked = await pair()
    expect(t.hub.store.agents.revoke(revoked.agentId)).toBe(true)
    const agent = await connect(revoked)
    await expectRejected(agent, await agent.authenticate(), 'credential_revoked')
  })

  test("another socket's challenge: challenge_invalid, and that socket can still authenticate", async () => {
    const first = await connect(credentials)
    const second = await connect(credentials)
    expect(second.challenge!.challengeId).not.toBe(first.challenge!.challengeId)
    // Signed correctly, for the other socket.
    const signed = new Uint8Array(Buffer.from(first.challenge!.payload, 'base64url'))
    await expectRejected(second, await second.authenticate({ challengeId: first.challenge!.challengeId, signed }), 'challenge_invalid')
    expect((await first.authenticate()).type).toBe('auth.accepted')
  })

  test("algorithm 'RSA': unsupported_algorithm", async () => {
    const agent = await connect(credentials)
    await expectRejected(agent, await agent.authenticate({ algorithm: 'RSA' }), 'unsupported_algorithm')
  })

  test('a normal message before authentication: challenge_invalid', async () => {
    const agent = await connect(credentials)
    agent.send(agent.envelope('agent.hello', { agentId: credentials.agentId, agentVersion: '0.2.5', productId: 'oppa', productVersion: '0.2.5', supportedProtocolVersions: ['1'] }))
    await expectRejected(agent, undefined, 'challenge_invalid')
  })

  test('a binary frame before authentication: challenge_invalid', async () => {
    const agent = await connect(credentials)
    agent.sendRaw(new TextEncoder().encode(JSON.stringify({ type: 'auth.response' })))
    await expectRejected(agent, undefined, 'challenge_invalid')
  })

  test('an auth frame above 16 KiB: challenge_invalid', async () => {
    const agent = await connect(credentials)
    agent.send({ type: 'auth.response', challengeId: agent.challenge!.challengeId, agentId: credentials.agentId, keyId: credentials.keyId, algorithm: 'Ed25519', signature: 'A'.repeat(20_000) })
    await expectRejected(agent, undefined, 'challenge_invalid')
  })

  test('only one auth.response per socket: a second one is a protocol error before hello', async () => {
    const agent = await connect(credentials)
    expect((await agent.authenticate()).type).toBe('auth.accepted')
    agent.send({ type: 'auth.response', challengeId: agent.challenge!.challengeId, agentId: credentials.agentId, keyId: credentials.keyId, algorithm: 'Ed25519', signature: 'A'.repeat(86) })
    // Not yet connected (no hello): the session closes without server.disconnect (reference 4.6).
    expect(await agent.closed()).toEqual({ code: 4400, reason: 'Protocol error' })
    expect(agent.all('server.disconnect')).toEqual([])
  })

  test('hello naming another agent is refused (4400) and the session never connects', async () => {
    const agent = await connect(credentials)
    await agent.authenticate()
    const other = await pair()
    agent.send(agent.envelope('agent.hello', { agentId: other.agentId, agentVersion: '0.2.5', productId: 'oppa', productVersion: '0.2.5', supportedProtocolVersions: ['1'] }))
    expect((await agent.closed()).code).toBe(4400)
    expect(agent.all('server.hello')).toEqual([])
  })
})

describe('session lifetime', () => {
  test('revoking a connected agent ends its live session within a second', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    await agent.next('server.heartbeat')
    const revokedAt = performance.now()
    expect(t.hub.store.agents.revoke(credentials.agentId)).toBe(true)
    const disconnect = await agent.next('server.disconnect', { timeoutMs: 1_500 })
    expect(performance.now() - revokedAt).toBeLessThan(1_500)
    expect(disconnect.payload).toMatchObject({ code: 'credential_revoked', reconnect: false })
    expect((await agent.closed()).code).toBe(4400)
    expect(t.hub.sessions.session(credentials.agentId)).toBeUndefined()
    // And it cannot come back.
    const again = await connect(credentials)
    expect(await again.authenticate()).toEqual({ type: 'auth.rejected', code: 'credential_revoked', message: AUTH_FAILED })
    expect(await again.closed()).toEqual({ code: 4401, reason: 'credential_revoked' })
  })

  test('the newest session of an agent wins: the older one gets session_replaced', async () => {
    const credentials = await pair()
    const older = await online(credentials)
    const remoteId = addPrinter(credentials.agentId)
    const newer = await online(credentials)
    const disconnect = await older.next('server.disconnect')
    expect(disconnect.payload).toEqual({ code: 'session_replaced', reason: expect.any(String), reconnect: false })
    expect((await older.closed()).code).toBe(4400)
    // The newer session takes the jobs.
    const created = await postJob(remoteId)
    const printJob = await printJobFor(newer, `${created.id}.a1`)
    newer.jobReceived(printJob)
    newer.jobSubmitted(printJob)
    await waitForState(created.id, 'COMPLETED')
    expect(older.all('server.print_job')).toEqual([])
    expect(newer.isOpen).toBe(true)
  })

  test('a second agent.hello is a protocol error', async () => {
    const agent = await online(await pair())
    agent.send(agent.envelope('agent.hello', { agentId: agent.agentId, agentVersion: '0.2.5', productId: 'oppa', productVersion: '0.2.5', supportedProtocolVersions: ['1'] }))
    await expectProtocolError(agent)
  })

  test('a binary frame after the handshake is a protocol error', async () => {
    const agent = await online(await pair())
    agent.sendRaw(new TextEncoder().encode(JSON.stringify(agent.envelope('agent.printer_inventory', { revision: 2, printers: [] }))))
    await expectProtocolError(agent)
  })

  test('frames a stock agent never sends are accepted: inventory deltas and diagnostics', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    agent.send(agent.envelope('agent.printer_inventory_changed', { revision: 2, added: [virtualPrinter('printer_fake_2')], updated: [], removedPrinterIds: ['printer_fake_1'] }))
    agent.send(
      agent.envelope('agent.diagnostics', { agentId: credentials.agentId, collectedAt: isoNow(), health: 'healthy', queueDepth: 0, printersOnline: 1, printersTotal: 1, issues: [] }),
    )
    await waitFor(() => {
      const printers = t.hub.store.agents.printers().filter((p) => p.agentId === credentials.agentId).map((p) => p.printerId)
      return printers.length === 1 && printers[0] === 'printer_fake_2'
    })
    agent.revision = 2
    agent.printers = [virtualPrinter('printer_fake_2')]
    await sync(agent)
    expect(agent.isOpen).toBe(true)
    expect(agent.all('server.disconnect')).toEqual([])
  })
})

describe('durability before delivery', () => {
  test('a job reaches an agent outside the hub only once its creation is on disk', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const remoteId = addPrinter(credentials.agentId)
    await sync(agent)
    const session = t.hub.sessions.session(credentials.agentId)!
    // Watches what the hub hands to this agent's connection, and whether it was committed by then.
    const uncommittedWhenSent: boolean[] = []
    const send = session.send.bind(session)
    session.send = (frame) => {
      if (frame.type === 'server.print_job') uncommittedWhenSent.push(t.hub.store.jobs.isUncommitted((frame.payload as { jobId: string }).jobId.replace(/\.a\d+$/, '')))
      return send(frame)
    }
    // The printer's queue is looked at before the job's commit in the same turn of the event loop:
    // with nothing open now, the look is scheduled ahead of the commit.
    const printerId = t.hub.store.printers.resolve(t.projectId, remoteId)!.id
    await t.hub.store.commits.durable()
    t.hub.dispatcher.scheduleDispatch(printerId)
    const outcome = t.hub.store.jobs.create({
      projectId: t.projectId,
      printerId: remoteId,
      idempotencyKey: `durable-first-${printerCount}`,
      document: { width: 80, sections: [{ type: 'text', value: 'Hi' }] },
      metadata: null,
      expiresInMs: 60_000,
      maxAttempts: 3,
    })
    if (outcome.kind !== 'created') throw new Error(outcome.kind)
    await printJobFor(agent, `${outcome.job.id}.a1`)
    expect(uncommittedWhenSent).toEqual([false])
  })
})

describe('retries', () => {
  test('an unacknowledged attempt times out and is retried under a new wire identity, otherwise identical', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId), { metadata: { table: '4' } })
    const first = await printJobFor(agent, `${created.id}.a1`)
    // No acknowledgement: after the ack timeout (1 s) the attempt fails and the job waits its backoff.
    await waitFor(() => job(created.id).lastErrorCode === 'agent.ack_timeout', 3_000)
    const second = await printJobFor(agent, `${created.id}.a2`, 3_000)
    expect(second.payload).toEqual({ ...first.payload, jobId: `${created.id}.a2`, idempotencyKey: `${created.id}.a2` })
    expect(second.payload.createdAt).toBe(first.payload.createdAt)
    expect(JSON.stringify(second.payload.document)).toBe(JSON.stringify(first.payload.document))
    expect(second.messageId).not.toBe(first.messageId)
    expect(job(created.id)).toMatchObject({ state: 'DISPATCHING', attemptCount: 2, lastErrorCode: 'agent.ack_timeout' })

    agent.jobReceived(second)
    agent.jobSubmitted(second)
    expect(await waitForState(created.id, 'COMPLETED')).toMatchObject({ attemptCount: 2, receivedAt: expect.any(String), submittedAt: expect.any(String) })
  })

  test('a retryable failure goes back to PENDING, then the next attempt comes after the backoff', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId))
    const first = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(first)
    await waitForState(created.id, 'DELIVERED')
    const failedAt = performance.now()
    agent.jobFailed(first, { code: 'spooler.failed', message: 'The printer did not answer.', retryable: true })
    expect(await waitForState(created.id, 'PENDING')).toMatchObject({ attemptCount: 1, lastErrorCode: 'spooler.failed', lastErrorMessage: 'The printer did not answer.' })
    await printJobFor(agent, `${created.id}.a2`)
    // The backoff is 400 ms ± 20 %: the hub may not send earlier.
    expect(agent.received.find((r) => r.frame.payload?.jobId === `${created.id}.a2`)!.at - failedAt).toBeGreaterThanOrEqual(300)
    expect(job(created.id)).toMatchObject({ state: 'DISPATCHING', attemptCount: 2 })
  })

  test('with maxAttempts 2, two retryable failures end FAILED with attemptCount 2', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId), { maxAttempts: 2 })
    const first = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(first)
    agent.jobFailed(first, { code: 'spooler.failed', message: 'Paper out.', retryable: true })
    const second = await printJobFor(agent, `${created.id}.a2`)
    agent.jobReceived(second)
    agent.jobFailed(second, { code: 'printer.disabled', message: 'The printer is disabled.', retryable: true })
    expect(await waitForState(created.id, 'FAILED')).toMatchObject({ attemptCount: 2, maxAttempts: 2, lastErrorCode: 'printer.disabled' })
    await sync(agent)
    expect(agent.all('server.print_job').filter((f) => f.payload.jobId.startsWith(created.id)).length).toBe(2)
  })

  test('a non-retryable failure ends FAILED at once and forfeits the remaining attempts', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId), { maxAttempts: 4 })
    const first = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(first)
    agent.jobFailed(first, { code: 'render.failed', message: 'The image cannot be decoded.', retryable: false })
    expect(await waitForState(created.id, 'FAILED')).toMatchObject({ attemptCount: 4, maxAttempts: 4, lastErrorCode: 'render.failed' })
    await sync(agent)
    expect(agent.all('server.print_job').filter((f) => f.payload.jobId.startsWith(created.id)).length).toBe(1)
  })

  test('a late submission of attempt 1 while attempt 2 is out completes the job and cancels attempt 2', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId))
    const first = await printJobFor(agent, `${created.id}.a1`)
    const second = await printJobFor(agent, `${created.id}.a2`, 4_000)
    agent.jobSubmitted(first)
    expect(await waitForState(created.id, 'COMPLETED')).toMatchObject({ attemptCount: 2 })
    const cancel = await agent.next('server.cancel_job')
    expect(cancel.payload).toEqual({ jobId: second.payload.jobId, reason: expect.any(String) })
  })
  test('an agent that drops the connection before acknowledging gets the job again, as a new attempt', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId))
    await printJobFor(agent, `${created.id}.a1`)
    await agent.close()
    // The hub cannot know whether the agent stored it: the attempt failed, retryably.
    expect(await waitFor(() => job(created.id).lastErrorCode === 'agent.disconnected' && job(created.id))).toMatchObject({ state: 'PENDING', attemptCount: 1 })
    const again = await online(credentials)
    const second = await printJobFor(again, `${created.id}.a2`)
    again.jobReceived(second)
    again.jobSubmitted(second)
    expect(await waitForState(created.id, 'COMPLETED')).toMatchObject({ attemptCount: 2 })
  })

  test('jobs of one printer go out in creation order, the next once the agent has received the previous', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const remoteId = addPrinter(credentials.agentId)
    const first = await postJob(remoteId)
    const second = await postJob(remoteId)
    const firstJob = await printJobFor(agent, `${first.id}.a1`)
    await sync(agent)
    expect(job(second.id)).toMatchObject({ state: 'PENDING', attemptCount: 0 })
    expect(agent.all('server.print_job').length).toBe(1)
    agent.jobReceived(firstJob)
    const secondJob = await printJobFor(agent, `${second.id}.a1`)
    agent.jobReceived(secondJob)
    agent.jobSubmitted(firstJob)
    agent.jobSubmitted(secondJob)
    await waitForState(first.id, 'COMPLETED')
    await waitForState(second.id, 'COMPLETED')
  })

  // A late failure of attempt 1, while attempt 2 is out, must leave attempt 2's ack timeout armed:
  // otherwise an unanswered attempt 2 would hold its printer's queue for good.
  test('a late failure of an earlier attempt does not disarm the ack timeout of the current one', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId))
    const first = await printJobFor(agent, `${created.id}.a1`)
    // OPPA stored attempt 1 but was slow to say so (it works one job at a time); the hub tried again.
    await printJobFor(agent, `${created.id}.a2`, 4_000)
    agent.jobFailed(first, { code: 'spooler.failed', message: 'The printer did not answer.', retryable: true })
    // Attempt 2 is never acknowledged either: after the ack timeout (1 s) and the backoff, attempt 3
    // must come. (No inventory barrier here: a new inventory wakes the queue and hides the bug.)
    await printJobFor(agent, `${created.id}.a3`, 4_000)
  }, 10_000)
})

describe('duplicates and replays', () => {
  test('repeated and late reports leave a COMPLETED job unchanged', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    const created = await postJob(addPrinter(credentials.agentId))
    const printJob = await printJobFor(agent, `${created.id}.a1`)
    const receivedAt = isoNow()
    agent.jobReceived(printJob, receivedAt)
    agent.jobReceived(printJob, receivedAt)
    await waitForState(created.id, 'DELIVERED')
    const submittedAt = isoNow()
    agent.jobSubmitted(printJob, submittedAt)
    const completed = await waitForState(created.id, 'COMPLETED')
    expect(completed).toMatchObject({ attemptCount: 1, receivedAt, submittedAt })

    await Bun.sleep(2) // so that any write would show in updatedAt
    // OPPA re-sends job_received on redelivery and recovery, even after submission; terminal reports may repeat.
    agent.jobSubmitted(printJob, isoNow())
    agent.jobReceived(printJob, isoNow())
    agent.jobReceived(printJob, receivedAt)
    agent.jobFailed(printJob, { code: 'spooler.failed', message: 'Late.', retryable: true })
    await sync(agent)
    expect(job(created.id)).toEqual(completed)
    expect(agent.all('server.print_job').filter((f) => f.payload.jobId.startsWith(created.id)).length).toBe(1)
    expect(agent.all('server.disconnect')).toEqual([])
    expect(agent.isOpen).toBe(true)
  })

  test('reports for jobs the hub never sent are ignored, and the session stays', async () => {
    const agent = await online(await pair())
    const fake = { messageId: 'msg_none', payload: { jobId: 'job_invoice_123_v1', idempotencyKey: 'invoice_123_v1', printerId: 'printer_fake_1' } }
    agent.jobReceived(fake)
    agent.jobSubmitted(fake)
    agent.jobFailed({ ...fake, payload: { ...fake.payload, jobId: `job_${'0'.repeat(32)}.a1` } }, { code: 'x', message: 'y', retryable: false })
    await sync(agent)
    expect(agent.isOpen).toBe(true)
    expect(events).toContain('dispatcher: a report for job_invoice_123_v1, which this hub did not send')
  })

  // Reference 7.2: the host must make sure a report comes from the agent the job was sent to.
  test('an agent cannot complete a job that was sent to another agent', async () => {
    const owner = await pair()
    const ownerAgent = await online(owner)
    const intruder = await online(await pair(), [])
    const created = await postJob(addPrinter(owner.agentId))
    const printJob = await printJobFor(ownerAgent, `${created.id}.a1`)
    // The intruder guesses or learns the wire ID (it is only the job ID plus the attempt).
    intruder.jobSubmitted(printJob)
    await sync(ownerAgent)
    await Bun.sleep(50)
    expect(job(created.id).state).toBe('DISPATCHING')
  })
})

describe('invalid frames end the session', () => {
  let credentials: AgentCredentials
  beforeAll(async () => {
    credentials = await pair()
  })

  for (const name of fixtureNames('invalid')) {
    test(`fixtures/invalid/${name}`, async () => {
      const agent = await online(credentials)
      agent.sendRaw(JSON.stringify(fixture(`invalid/${name}`)))
      await expectProtocolError(agent)
    })
  }

  test('an inventory whose revision regresses', async () => {
    const agent = await online(credentials)
    await agent.inventory(agent.printers, 2)
    await agent.inventory(agent.printers, 1)
    await expectProtocolError(agent)
  })

  test('an inventory that changes without a new revision', async () => {
    const agent = await online(credentials)
    await agent.inventory([virtualPrinter('printer_fake_1', { name: 'Renamed' })], agent.revision)
    await expectProtocolError(agent)
  })

  test('an oversized frame (2.5 MiB: above the protocol limit, below the socket limit)', async () => {
    const agent = await online(credentials)
    const frame = JSON.stringify(agent.envelope('agent.diagnostics', { pad: 'x'.repeat(2.5 * 1024 * 1024) }))
    expect(frame.length).toBeGreaterThan(2 * 1024 * 1024)
    expect(frame.length).toBeLessThan(4 * 1024 * 1024)
    agent.sendRaw(frame)
    await expectProtocolError(agent)
  })
})

describe('availability', () => {
  test('jobs for an online printer complete while an offline printer keeps its jobs PENDING', async () => {
    const credentials = await pair()
    const printers = [virtualPrinter('printer_on'), virtualPrinter('printer_off', { availability: 'offline' }), virtualPrinter('printer_disabled', { enabled: false })]
    const agent = await online(credentials, printers)
    await waitFor(() => t.hub.store.agents.printers().filter((p) => p.agentId === credentials.agentId).length === 3)
    const offRemote = addPrinter(credentials.agentId, 'printer_off')
    const disabledRemote = addPrinter(credentials.agentId, 'printer_disabled')
    const onRemote = addPrinter(credentials.agentId, 'printer_on')
    // The held jobs are older, so they were looked at before the online one was.
    const held = await postJob(offRemote)
    const heldDisabled = await postJob(disabledRemote)
    const onJobs = [await postJob(onRemote), await postJob(onRemote)]
    for (const created of onJobs) {
      const printJob = await printJobFor(agent, `${created.id}.a1`)
      expect(printJob.payload.printerId).toBe('printer_on')
      agent.jobReceived(printJob)
      agent.jobSubmitted(printJob)
      await waitForState(created.id, 'COMPLETED')
    }
    await sync(agent)
    expect(job(held.id)).toMatchObject({ state: 'PENDING', attemptCount: 0 })
    expect(job(heldDisabled.id)).toMatchObject({ state: 'PENDING', attemptCount: 0 })
    expect(agent.all('server.print_job').map((f) => f.payload.printerId)).toEqual(['printer_on', 'printer_on'])

    // The printer comes online (a new snapshot): its job goes out.
    await agent.inventory([printers[0]!, virtualPrinter('printer_off'), printers[2]!])
    const printJob = await printJobFor(agent, `${held.id}.a1`)
    expect(printJob.payload.printerId).toBe('printer_off')
    agent.jobReceived(printJob)
    agent.jobSubmitted(printJob)
    await waitForState(held.id, 'COMPLETED')
    expect(job(heldDisabled.id).state).toBe('PENDING')
  })

  test('the jobs of a printer not in the inventory wait for it', async () => {
    const credentials = await pair()
    const agent = await online(credentials, [virtualPrinter('printer_other')])
    const created = await postJob(addPrinter(credentials.agentId, 'printer_later'))
    await sync(agent)
    expect(job(created.id)).toMatchObject({ state: 'PENDING', attemptCount: 0 })
    await agent.inventory([virtualPrinter('printer_other'), virtualPrinter('printer_later')])
    const printJob = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(printJob)
    agent.jobSubmitted(printJob)
    await waitForState(created.id, 'COMPLETED')
  })
})

describe('with a clock the test moves', () => {
  let h: TestHub
  let offset = 0
  beforeAll(async () => {
    h = await startTestHub({ env: ENV, now: () => Date.now() + offset, events: (line) => events.push(line) })
  })
  afterAll(() => h.stop())

  test('cancelling a dispatched job: server.cancel_job with the wire ID, then CANCELLED after the grace period', async () => {
    const credentials = await pair(h)
    const agent = await online(credentials, undefined, h)
    const created = await postJob(addPrinter(credentials.agentId, 'printer_fake_1', h), {}, h)
    const wireId = `${created.id}.a1`
    const printJob = await printJobFor(agent, wireId)
    agent.jobReceived(printJob)
    await waitForState(created.id, 'DELIVERED', 3_000, h)

    expect(h.hub.store.jobStates.cancel(created.id)).toMatchObject({ kind: 'requested' })
    const cancel = await agent.next('server.cancel_job', { timeoutMs: 2_000 })
    expect(cancel.payload).toEqual({ jobId: wireId, reason: 'Cancelled by an operator.' })
    expect(cancel.payload.jobId).toMatch(WIRE_ID)
    // A stock agent never answers; until the grace period (30 s) is over, the job stays as it was.
    expect(job(created.id, h).state).toBe('DELIVERED')
    offset += 31_000
    const cancelled = await waitForState(created.id, 'CANCELLED', 2_000, h)
    expect(cancelled.attemptCount).toBe(1)
    // Asked once.
    expect(agent.all('server.cancel_job').length).toBe(1)
  })

  test('a submission that beats the cancellation wins: COMPLETED', async () => {
    const credentials = await pair(h)
    const agent = await online(credentials, undefined, h)
    const created = await postJob(addPrinter(credentials.agentId, 'printer_fake_1', h), {}, h)
    const printJob = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(printJob)
    await waitForState(created.id, 'DELIVERED', 3_000, h)
    expect(h.hub.store.jobStates.cancel(created.id)).toMatchObject({ kind: 'requested' })
    await agent.next('server.cancel_job', { timeoutMs: 2_000 })
    agent.jobSubmitted(printJob)
    await waitForState(created.id, 'COMPLETED', 3_000, h)
    offset += 31_000
    await sync(agent, h)
    await Bun.sleep(600) // one sweep: the grace period must not turn it into CANCELLED
    expect(job(created.id, h).state).toBe('COMPLETED')
  })

  test('a job that expires while dispatched: EXPIRED, and the agent is asked to cancel it', async () => {
    const credentials = await pair(h)
    const agent = await online(credentials, undefined, h)
    const created = await postJob(addPrinter(credentials.agentId, 'printer_fake_1', h), { expiresInMs: 10_000 }, h)
    const wireId = `${created.id}.a1`
    const printJob = await printJobFor(agent, wireId)
    offset += 11_000
    const cancel = await agent.next('server.cancel_job', { timeoutMs: 2_000 })
    expect(cancel.payload).toEqual({ jobId: wireId, reason: 'The job expired.' })
    expect(job(created.id, h)).toMatchObject({ state: 'EXPIRED', lastErrorCode: 'job.expired', attemptCount: 1 })
    // Reports that come after are too late to change it.
    agent.jobReceived(printJob)
    await sync(agent, h)
    expect(job(created.id, h).state).toBe('EXPIRED')
  })

  test('an expired challenge: challenge_expired', async () => {
    const agent = await connect(await pair(h), h)
    offset += 31_000 // the challenge lives 30 s
    expect(await agent.authenticate()).toEqual({ type: 'auth.rejected', code: 'challenge_expired', message: AUTH_FAILED })
    expect(await agent.closed()).toEqual({ code: 4401, reason: 'challenge_expired' })
  })
})

describe('a hub restart', () => {
  test('an attempt out when the hub stopped is sent again byte for byte, and completes', async () => {
    const dataDir = tempDir()
    const first = await startTestHub({ env: ENV, dataDir, events: (line) => events.push(line) })
    let firstRunning = true
    let second: TestHub | undefined
    try {
      const credentials = await pair(first)
      const agent = await online(credentials, undefined, first)
      const created = await postJob(addPrinter(credentials.agentId, 'printer_fake_1', first), {}, first)
      const before = await printJobFor(agent, `${created.id}.a1`)
      const beforeText = agent.received.find((r) => r.frame === before)!.text
      await first.hub.stop()
      firstRunning = false
      const shutdown = await agent.next('server.disconnect')
      expect(shutdown.payload).toEqual({ code: 'server_shutdown', reason: expect.any(String), reconnect: true, retryAfterMs: 1000 })
      expect((await agent.closed()).code).toBe(4400)

      second = await startTestHub({ env: ENV, dataDir, events: (line) => events.push(line) })
      const again = await online(credentials, undefined, second)
      const after = await printJobFor(again, `${created.id}.a1`)
      expect(again.received.find((r) => r.frame === after)!.text).toBe(beforeText)
      again.jobReceived(after)
      again.jobSubmitted(after)
      expect(await waitForState(created.id, 'COMPLETED', 3_000, second)).toMatchObject({ attemptCount: 1 })
    } finally {
      await Promise.all(agents.map((a) => a.close()))
      if (firstRunning) await first.stop()
      else if (second) await second.stop()
      else rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

describe('the printhub extensions', () => {
  test('an agent that names itself printhub: job_submitted means PRINTING, printhub.job_completed COMPLETED', async () => {
    const credentials = await pair()
    const agent = await connect(credentials)
    await agent.authenticate()
    const hello = await agent.hello({ productId: 'printhub' })
    expect(hello.payload.serverVersion).toMatch(/^printhub\//)
    await agent.inventory([virtualPrinter('printer_fake_1')])
    const created = await postJob(addPrinter(credentials.agentId))
    const frame = await printJobFor(agent, `${created.id}.a1`)
    agent.jobReceived(frame)
    agent.jobSubmitted(frame)
    const printing = await waitForState(created.id, 'PRINTING')
    expect(printing.submittedAt).not.toBeNull()
    const { jobId, idempotencyKey, printerId } = frame.payload
    agent.send(agent.envelope('printhub.job_completed', { jobId, idempotencyKey, printerId, completedAt: new Date().toISOString() }, frame.messageId))
    await waitForState(created.id, 'COMPLETED')
    expectClean(agent)
  })

  test('a stock agent may not send them: a protocol error', async () => {
    const agent = await online(await pair())
    agent.send(agent.envelope('printhub.job_completed', { jobId: `job_${'0'.repeat(32)}.a1`, idempotencyKey: 'k', printerId: 'p', completedAt: new Date().toISOString() }, 'm.x'))
    await expectProtocolError(agent)
  })
})
