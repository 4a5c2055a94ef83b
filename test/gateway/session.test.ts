// The gateway session (src/gateway/session.ts), end to end. Interoperability: a stock OpenPrinter v1
// agent, built from the protocol reference alone (test/support/fake-agent.ts), against the real hub
// over a real WebSocket. Every frame the hub sends is checked against the official JSON Schema and
// the wire rules as it arrives; each test also asserts real outcomes (close codes, disconnect codes,
// what the hub stored). Here: heartbeats, authentication, the session's lifetime, invalid frames,
// the expired challenge, and who may send the printhub extensions. The registry's rules (the newest
// session wins, revocation) are in registry.test.ts; what happens to jobs is in test/dispatcher.
import { beforeAll, describe, expect, test } from 'bun:test'
import { utils } from '@noble/ed25519'
import { type AgentCredentials, type FakeAgent, type Frame, isoNow, virtualPrinter } from '../support/fake-agent.ts'
import { AUTH_FAILED, expectProtocolError, useGatewayHub } from '../support/gateway-fixtures.ts'
import { fixture, fixtureNames } from '../support/schema.ts'
import { waitFor } from '../support/wait.ts'
import { MAX_WEBSOCKET_PAYLOAD } from '../../src/api/routes/gateway.ts'
import { MAX_FRAME_BYTES } from '../../src/protocol/limits.ts'

const { t, pair, connect, online, sync, clockedHub } = useGatewayHub()

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
    expect(disconnect.payload).toEqual({
      code: 'heartbeat_timeout',
      reason: 'The agent did not answer protocol heartbeats in time.',
      reconnect: true,
      retryAfterMs: 5000,
    })
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
    await expectRejected(
      agent,
      await agent.authenticate({ signed: new TextEncoder().encode('openprinter-auth-v1') }),
      'invalid_signature',
    )
  })

  test('an unknown agent: credential_not_found', async () => {
    const agent = await connect(credentials)
    await expectRejected(
      agent,
      await agent.authenticate({ agentId: 'agt_00000000000000000000000000000000' }),
      'credential_not_found',
    )
  })

  test('a known agent with another key ID: credential_not_found', async () => {
    const agent = await connect(credentials)
    await expectRejected(
      agent,
      await agent.authenticate({ keyId: 'key_00000000000000000000000000000000' }),
      'credential_not_found',
    )
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
    await expectRejected(
      second,
      await second.authenticate({ challengeId: first.challenge!.challengeId, signed }),
      'challenge_invalid',
    )
    expect((await first.authenticate()).type).toBe('auth.accepted')
  })

  test("algorithm 'RSA': unsupported_algorithm", async () => {
    const agent = await connect(credentials)
    await expectRejected(agent, await agent.authenticate({ algorithm: 'RSA' }), 'unsupported_algorithm')
  })

  test('a normal message before authentication: challenge_invalid', async () => {
    const agent = await connect(credentials)
    agent.send(
      agent.envelope('agent.hello', {
        agentId: credentials.agentId,
        agentVersion: '0.2.5',
        productId: 'oppa',
        productVersion: '0.2.5',
        supportedProtocolVersions: ['1'],
      }),
    )
    await expectRejected(agent, undefined, 'challenge_invalid')
  })

  test('a binary frame before authentication: challenge_invalid', async () => {
    const agent = await connect(credentials)
    agent.sendRaw(new TextEncoder().encode(JSON.stringify({ type: 'auth.response' })))
    await expectRejected(agent, undefined, 'challenge_invalid')
  })

  test('an auth frame above 16 KiB: challenge_invalid', async () => {
    const agent = await connect(credentials)
    agent.send({
      type: 'auth.response',
      challengeId: agent.challenge!.challengeId,
      agentId: credentials.agentId,
      keyId: credentials.keyId,
      algorithm: 'Ed25519',
      signature: 'A'.repeat(20_000),
    })
    await expectRejected(agent, undefined, 'challenge_invalid')
  })

  test('only one auth.response per socket: a second one is a protocol error before hello', async () => {
    const agent = await connect(credentials)
    expect((await agent.authenticate()).type).toBe('auth.accepted')
    agent.send({
      type: 'auth.response',
      challengeId: agent.challenge!.challengeId,
      agentId: credentials.agentId,
      keyId: credentials.keyId,
      algorithm: 'Ed25519',
      signature: 'A'.repeat(86),
    })
    // Not yet connected (no hello): the session closes without server.disconnect (reference 4.6).
    expect(await agent.closed()).toEqual({ code: 4400, reason: 'Protocol error' })
    expect(agent.all('server.disconnect')).toEqual([])
  })

  test('hello naming another agent is refused (4400) and the session never connects', async () => {
    const agent = await connect(credentials)
    await agent.authenticate()
    const other = await pair()
    agent.send(
      agent.envelope('agent.hello', {
        agentId: other.agentId,
        agentVersion: '0.2.5',
        productId: 'oppa',
        productVersion: '0.2.5',
        supportedProtocolVersions: ['1'],
      }),
    )
    expect((await agent.closed()).code).toBe(4400)
    expect(agent.all('server.hello')).toEqual([])
  })
})

describe('session lifetime', () => {
  test('a second agent.hello is a protocol error', async () => {
    const agent = await online(await pair())
    agent.send(
      agent.envelope('agent.hello', {
        agentId: agent.agentId,
        agentVersion: '0.2.5',
        productId: 'oppa',
        productVersion: '0.2.5',
        supportedProtocolVersions: ['1'],
      }),
    )
    await expectProtocolError(agent)
  })

  test('a binary frame after the handshake is a protocol error', async () => {
    const agent = await online(await pair())
    agent.sendRaw(
      new TextEncoder().encode(
        JSON.stringify(agent.envelope('agent.printer_inventory', { revision: 2, printers: [] })),
      ),
    )
    await expectProtocolError(agent)
  })

  test('frames a stock agent never sends are accepted: inventory deltas and diagnostics', async () => {
    const credentials = await pair()
    const agent = await online(credentials)
    agent.send(
      agent.envelope('agent.printer_inventory_changed', {
        revision: 2,
        added: [virtualPrinter('printer_fake_2')],
        updated: [],
        removedPrinterIds: ['printer_fake_1'],
      }),
    )
    agent.send(
      agent.envelope('agent.diagnostics', {
        agentId: credentials.agentId,
        collectedAt: isoNow(),
        health: 'healthy',
        queueDepth: 0,
        printersOnline: 1,
        printersTotal: 1,
        issues: [],
      }),
    )
    await waitFor(() => {
      const printers = t.hub.store.agents
        .printers()
        .filter((p) => p.agentId === credentials.agentId)
        .map((p) => p.printerId)
      return printers.length === 1 && printers[0] === 'printer_fake_2'
    })
    agent.revision = 2
    agent.printers = [virtualPrinter('printer_fake_2')]
    await sync(agent)
    expect(agent.isOpen).toBe(true)
    expect(agent.all('server.disconnect')).toEqual([])
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

  test('an oversized frame (just above the protocol limit, below the socket limit): the protocol error', async () => {
    const agent = await online(credentials)
    const frame = JSON.stringify(agent.envelope('agent.diagnostics', { pad: 'x'.repeat(MAX_FRAME_BYTES + 16_384) }))
    expect(frame.length).toBeGreaterThan(MAX_FRAME_BYTES)
    expect(frame.length).toBeLessThan(MAX_WEBSOCKET_PAYLOAD)
    agent.sendRaw(frame)
    await expectProtocolError(agent)
  })

  test('a frame far above the limit (2.5 MiB) is cut off by the socket: 1009, message too big', async () => {
    const agent = await online(credentials)
    agent.sendRaw(JSON.stringify(agent.envelope('agent.diagnostics', { pad: 'x'.repeat(2.5 * 1024 * 1024) })))
    expect((await agent.closed()).code).toBe(1009)
  })
})

describe('with a clock the test moves', () => {
  const { h, advance } = clockedHub()

  test('an expired challenge: challenge_expired', async () => {
    const agent = await connect(await pair(h), h)
    advance(31_000) // the challenge lives 30 s
    expect(await agent.authenticate()).toEqual({
      type: 'auth.rejected',
      code: 'challenge_expired',
      message: AUTH_FAILED,
    })
    expect(await agent.closed()).toEqual({ code: 4401, reason: 'challenge_expired' })
  })
})

describe('the printhub extensions', () => {
  test('a stock agent may not send them: a protocol error', async () => {
    const agent = await online(await pair())
    agent.send(
      agent.envelope(
        'printhub.job_completed',
        {
          jobId: `job_${'0'.repeat(32)}.a1`,
          idempotencyKey: 'k',
          printerId: 'p',
          completedAt: new Date().toISOString(),
        },
        'm.x',
      ),
    )
    await expectProtocolError(agent)
  })
})
