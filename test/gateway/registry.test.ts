// The session registry (src/gateway/registry.ts): the newest session of each agent, and the one
// listener (the dispatcher) that hears what the sessions say. First its rules end to end, with a
// stock OpenPrinter v1 agent built from the protocol reference alone (test/support/fake-agent.ts)
// against the real hub over a real WebSocket, every frame the hub sends checked against the
// official JSON Schema and the wire rules as it arrives: the newest session wins, a revoked agent's
// live session ends (a revocation in the store is noticed by the dispatcher's sweep, since it may
// come from another process; the admin API ends the session through the registry at once). Then
// the registry on its own, with real gateway sessions over an in-memory transport that records
// what the hub sends and how it closes, and a listener that records what the registry passes on.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { getPublicKeyAsync, signAsync, utils } from '@noble/ed25519'
import { Gateway } from '../../src/gateway/gateway.ts'
import { type AgentListener, SessionRegistry } from '../../src/gateway/registry.ts'
import type { GatewaySession, GatewaySettings, JobReport } from '../../src/gateway/session.ts'
import type { PrinterDescriptor } from '../../src/protocol/frames.ts'
import { type Frame, virtualPrinter } from '../support/fake-agent.ts'
import { AUTH_FAILED, printJobFor, useGatewayHub } from '../support/gateway-fixtures.ts'
import { waitFor } from '../support/wait.ts'

const { t, pair, connect, online, addPrinter, postJob, waitForState } = useGatewayHub()

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
    expect(await again.authenticate()).toEqual({
      type: 'auth.rejected',
      code: 'credential_revoked',
      message: AUTH_FAILED,
    })
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
})

// ---- The registry on its own ----

/** An agent the gateway knows: its key, as a paired agent holds it. */
interface AgentKey {
  agentId: string
  keyId: string
  secretKey: Uint8Array
  publicKey: string
}

let keys = 0
async function agentKey(): Promise<AgentKey> {
  const secretKey = utils.randomSecretKey()
  const n = ++keys
  return {
    agentId: `agt_registry_${n}`,
    keyId: `key_registry_${n}`,
    secretKey,
    publicKey: Buffer.from(await getPublicKeyAsync(secretKey)).toString('base64url'),
  }
}

/** What the registry passed on to its listener, in order; sessions by their (random, unique) ID. */
type Heard =
  | { event: 'connected' | 'closed'; session: string }
  | { event: 'inventory'; session: string; printers: string[] }
  | { event: 'report'; session: string; report: JobReport }

class RecordingListener implements AgentListener {
  readonly heard: Heard[] = []
  connected(session: GatewaySession): void {
    this.heard.push({ event: 'connected', session: session.id })
  }
  inventory(session: GatewaySession, printers: readonly PrinterDescriptor[]): void {
    this.heard.push({ event: 'inventory', session: session.id, printers: printers.map((p) => p.id) })
  }
  report(session: GatewaySession, report: JobReport): void {
    this.heard.push({ event: 'report', session: session.id, report })
  }
  closed(session: GatewaySession): void {
    this.heard.push({ event: 'closed', session: session.id })
  }
}

/** The registry's agents and their sessions' IDs. */
const registered = (registry: SessionRegistry): [string, string][] =>
  [...registry.connected()].map(([agentId, session]) => [agentId, session.id])

/**
 * One agent connection through the gateway's real session code, as the built-in agent's pipe
 * (src/hub/in-memory-link.ts) wires one: the transport records every frame the hub sends and how it
 * closed the connection; the agent's frames go to the session as text, as from a socket.
 */
class MemoryConnection {
  readonly frames: Frame[] = []
  closed: { code: number; reason: string } | undefined
  readonly session: GatewaySession

  constructor(
    gateway: Gateway,
    readonly key: AgentKey,
  ) {
    this.session = gateway.accept({
      send: (text) => {
        if (this.closed) throw new Error('the connection is closed')
        this.frames.push(JSON.parse(text) as Frame)
      },
      close: (code, reason) => {
        this.closed = { code, reason }
      },
    })
  }

  /** Sends one agent frame, as text. */
  send(frame: Frame): void {
    this.session.receive(JSON.stringify(frame))
  }

  envelope(type: string, payload: Frame, correlationId?: string): Frame {
    return {
      protocolVersion: '1',
      messageId: `message_${crypto.randomUUID()}`,
      sentAt: new Date().toISOString(),
      ...(correlationId === undefined ? {} : { correlationId }),
      type,
      payload,
    }
  }

  /** The first frame of `type` the hub sent, once it has. */
  next(type: string): Promise<Frame> {
    return waitFor(() => this.frames.find((f) => f.type === type))
  }

  all(type: string): Frame[] {
    return this.frames.filter((f) => f.type === type)
  }

  /** Answers the challenge with the agent's key; resolves with auth.accepted. */
  async authenticate(): Promise<Frame> {
    const challenge = await this.next('auth.challenge')
    const signature = await signAsync(new Uint8Array(Buffer.from(challenge.payload, 'base64url')), this.key.secretKey)
    this.send({
      type: 'auth.response',
      challengeId: challenge.challengeId,
      agentId: this.key.agentId,
      keyId: this.key.keyId,
      algorithm: 'Ed25519',
      signature: Buffer.from(signature).toString('base64url'),
    })
    return this.next('auth.accepted')
  }

  /** Says hello; resolves once the session is connected (server.hello sent). */
  async hello(): Promise<void> {
    this.send(
      this.envelope('agent.hello', {
        agentId: this.key.agentId,
        agentVersion: '0.2.5',
        productId: 'oppa',
        productVersion: '0.2.5',
        supportedProtocolVersions: ['1'],
      }),
    )
    await this.next('server.hello')
  }

  inventory(revision: number, printers: string[]): void {
    this.send(
      this.envelope('agent.printer_inventory', { revision, printers: printers.map((id) => virtualPrinter(id)) }),
    )
  }
}

describe('SessionRegistry, with real sessions over an in-memory transport', () => {
  let registry: SessionRegistry
  let listener: RecordingListener
  let gateway: Gateway
  const credentials = new Map<string, AgentKey>()
  let connections: MemoryConnection[] = []

  beforeEach(() => {
    registry = new SessionRegistry()
    listener = new RecordingListener()
    registry.listen(listener)
    // Timers well beyond a test: no heartbeat or deadline interferes.
    const settings: GatewaySettings = {
      serverId: 'srv_registry_test',
      serverName: () => 'printhub',
      serverVersion: 'printhub/0.0.0-test',
      challengeTtlMs: 30_000,
      authenticationTimeoutMs: 30_000,
      handshakeTimeoutMs: 30_000,
      heartbeatIntervalMs: 60_000,
      heartbeatTimeoutMs: 120_000,
      now: Date.now,
      credential: (agentId, keyId) => {
        const key = credentials.get(agentId)
        return key?.keyId === keyId ? { publicKey: key.publicKey, revoked: false } : undefined
      },
    }
    gateway = new Gateway(settings, registry)
  })
  afterEach(() => {
    // Whatever a test left open goes away, with its timers.
    for (const connection of connections) connection.session.transportClosed()
    connections = []
  })

  function open(key: AgentKey): MemoryConnection {
    credentials.set(key.agentId, key)
    const connection = new MemoryConnection(gateway, key)
    connections.push(connection)
    return connection
  }

  /** A connection that authenticated and said hello. */
  async function connected(key: AgentKey): Promise<MemoryConnection> {
    const connection = open(key)
    await connection.authenticate()
    await connection.hello()
    return connection
  }

  test('a session is registered once its handshake is done, not before, and the listener hears of it', async () => {
    const key = await agentKey()
    const connection = open(key)
    expect((await connection.authenticate()).agentId).toBe(key.agentId)
    // Authenticated, but no hello yet.
    expect(registry.isConnected(key.agentId)).toBe(false)
    expect(registry.session(key.agentId)).toBeUndefined()
    expect(listener.heard).toEqual([])

    await connection.hello()
    expect(registry.isConnected(key.agentId)).toBe(true)
    expect(registry.session(key.agentId)).toBe(connection.session)
    expect(registered(registry)).toEqual([[key.agentId, connection.session.id]])
    expect(listener.heard).toEqual([{ event: 'connected', session: connection.session.id }])
  })

  test(
    'the newest session of an agent wins: the older one is told ' +
      'session_replaced, and its close leaves the newer registered',
    async () => {
      const key = await agentKey()
      const older = await connected(key)
      const newer = await connected(key)

      // Told once, as the last thing it heard.
      expect(older.all('server.disconnect').map((f) => f.payload)).toEqual([
        { code: 'session_replaced', reason: 'A newer connection of this agent replaced this one.', reconnect: false },
      ])
      expect(older.frames.at(-1)!.type).toBe('server.disconnect')
      expect(older.closed).toEqual({ code: 4400, reason: 'A newer connection of this agent replaced this one.' })
      expect(older.session.isConnected).toBe(false)
      expect(registry.session(key.agentId)).toBe(newer.session)
      expect(newer.session.isConnected).toBe(true)
      expect(newer.all('server.disconnect')).toEqual([])
      expect(newer.closed).toBeUndefined()
      // The older session's close is passed on (the dispatcher fails what was out on it) before the newer one is
      // announced.
      expect(listener.heard).toEqual([
        { event: 'connected', session: older.session.id },
        { event: 'closed', session: older.session.id },
        { event: 'connected', session: newer.session.id },
      ])
    },
  )

  test("the inventory of a replaced session is not passed on; the current session's is", async () => {
    const key = await agentKey()
    const older = await connected(key)
    older.inventory(1, ['printer_a'])
    await waitFor(() => listener.heard.some((h) => h.event === 'inventory'))
    const newer = await connected(key)
    listener.heard.length = 0

    // A replaced session stops reading frames, so what it might still say is told to the registry
    // directly, the way a session tells it.
    registry.sessionInventory(older.session, [virtualPrinter('printer_stale')])
    expect(listener.heard).toEqual([])

    newer.inventory(1, ['printer_b'])
    await waitFor(() => listener.heard.length > 0)
    expect(listener.heard).toEqual([{ event: 'inventory', session: newer.session.id, printers: ['printer_b'] }])
  })

  test('reports are passed on with the session they came from', async () => {
    const connection = await connected(await agentKey())
    const receivedAt = new Date().toISOString()
    const jobId = `job_${'1'.repeat(32)}.a1`
    connection.send(
      connection.envelope(
        'agent.job_received',
        { jobId, idempotencyKey: jobId, status: 'received', receivedAt },
        `m.${jobId}`,
      ),
    )
    await waitFor(() => listener.heard.some((h) => h.event === 'report'))
    expect(listener.heard.at(-1)).toEqual({
      event: 'report',
      session: connection.session.id,
      report: { kind: 'received', jobId, receivedAt: Date.parse(receivedAt) },
    })
  })

  test('a session whose connection closes is unregistered, and the listener hears of it', async () => {
    const key = await agentKey()
    const connection = await connected(key)
    // The agent hung up (the transport reports it, as the WebSocket route and the in-memory pipe do).
    connection.session.transportClosed()
    expect(registry.isConnected(key.agentId)).toBe(false)
    expect(registry.session(key.agentId)).toBeUndefined()
    expect(registered(registry)).toEqual([])
    expect(listener.heard.at(-1)).toEqual({ event: 'closed', session: connection.session.id })
  })

  test(
    "disconnect ends one agent's session for good; other agents stay, and an " + 'unknown agent is no error',
    async () => {
      const [a, b] = await Promise.all([agentKey(), agentKey()])
      const first = await connected(a)
      const second = await connected(b)

      registry.disconnect(a.agentId, 'credential_revoked', 'This agent was revoked.')
      expect(first.all('server.disconnect').map((f) => f.payload)).toEqual([
        { code: 'credential_revoked', reason: 'This agent was revoked.', reconnect: false },
      ])
      expect(first.frames.at(-1)!.type).toBe('server.disconnect')
      expect(first.closed).toEqual({ code: 4400, reason: 'This agent was revoked.' })
      expect(registry.isConnected(a.agentId)).toBe(false)
      expect(listener.heard.at(-1)).toEqual({ event: 'closed', session: first.session.id })

      registry.disconnect('agt_never_connected', 'credential_revoked', 'This agent was revoked.')
      expect(registry.session(b.agentId)).toBe(second.session)
      expect(second.all('server.disconnect')).toEqual([])
      expect(second.closed).toBeUndefined()
    },
  )

  test('disconnectAll ends every session, asking each agent to come back later', async () => {
    const keys = await Promise.all([agentKey(), agentKey(), agentKey()])
    const sessions = await Promise.all(keys.map((key) => connected(key)))
    expect(registered(registry).length).toBe(3)
    listener.heard.length = 0

    registry.disconnectAll('server_shutdown', 'The hub is shutting down.', 1_000)
    for (const connection of sessions) {
      expect(connection.all('server.disconnect').map((f) => f.payload)).toEqual([
        { code: 'server_shutdown', reason: 'The hub is shutting down.', reconnect: true, retryAfterMs: 1_000 },
      ])
      expect(connection.closed).toEqual({ code: 4400, reason: 'The hub is shutting down.' })
    }
    expect(registered(registry)).toEqual([])
    for (const key of keys) expect(registry.isConnected(key.agentId)).toBe(false)
    // Each close passed on once (in no particular order: the sessions connected concurrently).
    const byId = (x: Heard, y: Heard) => x.session.localeCompare(y.session)
    expect([...listener.heard].sort(byId)).toEqual(
      sessions.map((connection): Heard => ({ event: 'closed', session: connection.session.id })).sort(byId),
    )
  })
})
