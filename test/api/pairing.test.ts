// POST /printservice/pair: the rules of OpenPrinter v1 section 2.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { pairingRequest } from '../support/agent-key.ts'
import { storedAgentRow, storedPairingCodes } from '../support/fixtures.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'
import { rawRequest } from '../support/raw-http.ts'
import { schemaErrors, validators } from '../support/schema.ts'

let t: TestHub
let clock = Date.now()
beforeAll(async () => {
  t = await startTestHub({ now: () => clock })
})
afterAll(() => t.stop())
beforeEach(() => {
  // Each test starts with a fresh rate-limit window.
  clock += 10 * 60_000
})

/** All requests come from 127.0.0.1, so the tests share one rate-limit window, renewed before each test. */
function pair(body: unknown) {
  return t.request('POST', '/printservice/pair', { key: null, body })
}

async function expectPairingError(response: Response, code: string) {
  expect(response.status).toBe(400)
  const body = await response.json()
  expect(body).toEqual({ error: { code, message: expect.any(String) } })
  expect(schemaErrors(validators.errorEnvelope, body)).toEqual([])
  expect(response.headers.get('x-request-id')).toMatch(/^req_/)
}

const agentCount = () => t.hub.store.agents.list().length

describe('pairing', () => {
  test('a fresh code pairs an agent: 200 with identifiers only, and the agent is stored', async () => {
    const { code, expiresAt } = t.hub.store.pairingCodes.create(300_000)
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/)
    expect(Date.parse(expiresAt) - clock).toBe(300_000)
    const request = await pairingRequest(code)
    const response = await pair(request)
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(Object.keys(body).sort()).toEqual(['agentId', 'keyId', 'pairedAt', 'serverId'])
    expect(schemaErrors(validators.pairingResponse, body)).toEqual([])
    expect(body.serverId).toBe(t.hub.serverId)
    expect(body.agentId).toMatch(/^agt_[0-9a-f]{32}$/)
    expect(body.keyId).toMatch(/^key_[0-9a-f]{32}$/)
    expect(body.pairedAt).toBe(new Date(clock).toISOString())
    const stored = storedAgentRow(t.hub.store, body.agentId)
    expect(stored).toMatchObject({
      key_id: body.keyId,
      name: 'Kitchen Pi',
      platform: 'linux',
      installation_id: 'installation_0001',
      public_key: request.credential.publicKey.x,
      revoked_at: null,
    })
  })

  test('codes are case- and hyphen-insensitive', async () => {
    for (const variant of [
      (c: string) => c.toLowerCase(),
      (c: string) => c.replace('-', ''),
      (c: string) => c.replace('-', '').toLowerCase(),
    ]) {
      const { code } = t.hub.store.pairingCodes.create(300_000)
      expect((await pair(await pairingRequest(variant(code)))).status).toBe(200)
    }
  })

  test('a code is single use', async () => {
    const { code } = t.hub.store.pairingCodes.create(300_000)
    expect((await pair(await pairingRequest(code))).status).toBe(200)
    await expectPairingError(await pair(await pairingRequest(code)), 'pairing_code_consumed')
  })

  test('exactly one of two simultaneous redemptions wins', async () => {
    for (let round = 0; round < 5; round++) {
      const { code } = t.hub.store.pairingCodes.create(300_000)
      const before = agentCount()
      const responses = await Promise.all([pair(await pairingRequest(code)), pair(await pairingRequest(code))])
      expect(responses.map((r) => r.status).sort()).toEqual([200, 400])
      const loser = responses.find((r) => r.status === 400)!
      await expectPairingError(loser, 'pairing_code_consumed')
      expect(agentCount()).toBe(before + 1)
    }
  })

  test('an expired code is refused, then reported as used', async () => {
    const { code } = t.hub.store.pairingCodes.create(10_000)
    clock += 10_000
    const before = agentCount()
    await expectPairingError(await pair(await pairingRequest(code)), 'pairing_code_expired')
    await expectPairingError(await pair(await pairingRequest(code)), 'pairing_code_consumed')
    expect(agentCount()).toBe(before)
  })

  test('a code still valid a moment before expiry works', async () => {
    const { code } = t.hub.store.pairingCodes.create(10_000)
    clock += 9_999
    expect((await pair(await pairingRequest(code))).status).toBe(200)
  })

  test('an unknown or malformed code is pairing_code_invalid', async () => {
    await expectPairingError(await pair(await pairingRequest('ABCD-EFGH')), 'pairing_code_invalid')
    await expectPairingError(await pair(await pairingRequest('ABCD-EFG')), 'pairing_code_invalid')
    await expectPairingError(await pair(await pairingRequest('ab')), 'pairing_code_invalid')
    await expectPairingError(await pair(await pairingRequest('ABCD EFGH')), 'pairing_code_invalid')
    await expectPairingError(await pair(await pairingRequest('IIII-OOOO')), 'pairing_code_invalid')
  })

  test('public keys must be canonical base64url of 32 bytes and a usable curve point', async () => {
    const { code } = t.hub.store.pairingCodes.create(3_600_000)
    const good = await pairingRequest(code)
    const x = good.credential.publicKey.x
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const badKeys = [
      // The last character's lowest bit is unused; setting it makes the text non-canonical.
      x.slice(0, 42) + alphabet[alphabet.indexOf(x[42]!) ^ 1],
      x.slice(0, 42),
      `${x}A`,
      `${x.slice(0, 42)}=`,
      // The standard base64 alphabet instead of base64url.
      `+${x.slice(1)}`,
      `${x.slice(0, 41)}/${x[42]}`,
      // Not a point on the curve.
      '11qYAYKxCrfVS_7TyWfd0GEQYBxPjS_8Z_xBiwx6QmY',
      // A point of small order (the identity), which would accept forged signatures.
      'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]
    for (const bad of badKeys) {
      await expectPairingError(
        await pair({
          ...good,
          credential: { ...good.credential, publicKey: { ...good.credential.publicKey, x: bad } },
        }),
        'invalid_public_key',
      )
    }
    await expectPairingError(
      await pair({ ...good, credential: { ...good.credential, algorithm: 'RSA' } }),
      'invalid_public_key',
    )
    await expectPairingError(
      await pair({
        ...good,
        credential: { ...good.credential, publicKey: { ...good.credential.publicKey, crv: 'X25519' } },
      }),
      'invalid_public_key',
    )
    // None of that used the code up (a new window first: those were more failures than the limit allows).
    clock += 5 * 60_000
    expect((await pair(good)).status).toBe(200)
  })

  test('other invalid requests are invalid_public_key, and leave the code usable', async () => {
    const { code } = t.hub.store.pairingCodes.create(300_000)
    const good = await pairingRequest(code)
    const bad: unknown[] = [
      { ...good, extra: true },
      { ...good, agent: { ...good.agent, name: '' } },
      { ...good, agent: { ...good.agent, installationId: 'has space' } },
      { ...good, agent: undefined },
      { ...good, credential: { ...good.credential, publicKey: { ...good.credential.publicKey, d: 'secret' } } },
      [],
    ]
    for (const body of bad) await expectPairingError(await pair(body), 'invalid_public_key')
    expect((await pair(good)).status).toBe(200)
  })

  test('an unsupported protocol version is unsupported_protocol_version', async () => {
    const { code } = t.hub.store.pairingCodes.create(300_000)
    for (const version of ['2', 1, null, true]) {
      await expectPairingError(
        await pair(await pairingRequest(code, { protocolVersion: version })),
        'unsupported_protocol_version',
      )
    }
    expect((await pair(await pairingRequest(code))).status).toBe(200)
  })

  test('bodies are JSON of at most 16 KiB', async () => {
    const oversized = await pair({ ...(await pairingRequest('ABCD-EFGH')), padding: 'x'.repeat(16_384) })
    expect(oversized.status).toBe(413)
    expect((await oversized.json()).error.code).toBe('payload_too_large')
    const notJson = await t.request('POST', '/printservice/pair', {
      key: null,
      body: 'code=ABCD-EFGH',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(notJson.status).toBe(415)
    const broken = await t.request('POST', '/printservice/pair', { key: null, body: '{"code":' })
    expect(broken.status).toBe(400)
    expect((await broken.json()).error.code).toBe('invalid_json')
  })

  test(
    'one code tried again and again from one address stops after 5 failures; ' +
      'the next, good code from there still pairs',
    async () => {
      for (let i = 0; i < 5; i++)
        await expectPairingError(await pair(await pairingRequest('ZZZZ-ZZZZ')), 'pairing_code_invalid')
      // The same code again, however it is written, is refused before it is looked at.
      const limited = await pair(await pairingRequest('zzzz-zzzz'))
      await expectPairingError(limited, 'pairing_rate_limited')
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(300)
      const { code } = t.hub.store.pairingCodes.create(300_000)
      expect((await pair(await pairingRequest(code))).status).toBe(200)
    },
  )

  test(
    'more than 30 failures from one address in 5 minutes stop it, even with a ' +
      'good code (not used up); the limit ends by itself',
    async () => {
      const { code } = t.hub.store.pairingCodes.create(3_600_000)
      for (let i = 0; i < 30; i++)
        await expectPairingError(
          await pair(
            await pairingRequest(`ZZZZ-ZZ${String(i).padStart(2, '0').replace(/0/g, 'A').replace(/1/g, 'B')}`),
          ),
          'pairing_code_invalid',
        )
      const limited = await pair(await pairingRequest(code))
      await expectPairingError(limited, 'pairing_rate_limited')
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(300)
      clock += 5 * 60_000
      expect((await pair(await pairingRequest(code))).status).toBe(200)
    },
  )

  test('the limit holds for attempts that are all in flight at once', async () => {
    // Every request sends its headers first; the bodies follow only when all are waiting.
    const body = JSON.stringify(await pairingRequest('ZZZZ-ZZZZ'))
    const head =
      `POST /printservice/pair HTTP/1.1\r\nHost: x\r\nContent-Type: ` +
      `application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`
    const exchanges = Array.from({ length: 30 }, () => rawRequest(t.hub.port, head))
    await Promise.all(exchanges.map((e) => new Promise((resolve) => e.socket.once('connect', resolve))))
    for (const exchange of exchanges) exchange.socket.write(body)
    const answers = await Promise.all(exchanges.map((e) => e.response))
    const codes = answers.map((answer) => /"code":"(\w+)"/.exec(answer)?.[1])
    // One code from one address: five are looked at, the rest refused.
    expect(codes.filter((code) => code === 'pairing_code_invalid')).toHaveLength(5)
    expect(codes.filter((code) => code === 'pairing_rate_limited')).toHaveLength(25)
  })

  test('successful pairings do not count towards the limit', async () => {
    for (let i = 0; i < 12; i++) {
      const { code } = t.hub.store.pairingCodes.create(300_000)
      expect((await pair(await pairingRequest(code))).status).toBe(200)
    }
  })

  test('codes, keys and signatures never reach the log or the database in clear', async () => {
    const { code } = t.hub.store.pairingCodes.create(300_000)
    await pair(await pairingRequest(code))
    const log = t.logs.join('\n')
    expect(log).not.toContain(code)
    expect(log).not.toContain(code.replace('-', ''))
    const codes = storedPairingCodes(t.hub.store)
    expect(JSON.stringify(codes)).not.toContain(code.replace('-', ''))
  })
})
