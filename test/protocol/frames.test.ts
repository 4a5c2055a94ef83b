// The frame rules and codec against the OpenPrinter fixtures and the JSON Schema: what the schema
// accepts, the decoder accepts, and what it refuses, the decoder refuses.
import { describe, expect, test } from 'bun:test'
import { decodeFrame, encodeFrame, FrameEncodingError } from '../../src/protocol/codec.ts'
import {
  agentMessageRule,
  authAcceptedRule,
  authChallengeRule,
  authRejectedRule,
  authResponseRule,
  serverMessageRule,
} from '../../src/protocol/frames.ts'
import { printhubAgentMessageRule } from '../../src/protocol/extensions.ts'
import { MAX_AUTH_FRAME_BYTES, MAX_FRAME_BYTES, PROTOCOL_VERSION } from '../../src/protocol/limits.ts'
import type { Rule } from '../../src/protocol/rules.ts'
import { fixture, fixtureNames, validators } from '../support/schema.ts'

const decode = (rule: Rule<unknown>, value: unknown, max = MAX_FRAME_BYTES) =>
  decodeFrame(rule, typeof value === 'string' ? value : JSON.stringify(value), max)

const AUTH: [string, Rule<unknown>, (typeof validators)[keyof typeof validators]][] = [
  ['auth-challenge.json', authChallengeRule, validators.authChallenge],
  ['auth-response.json', authResponseRule, validators.authResponse],
  ['auth-accepted.json', authAcceptedRule, validators.authAccepted],
  ['auth-rejected.json', authRejectedRule, validators.authRejected],
]

/** Every variation of one change at one place: a key removed, null, a number, a string, an extra key. */
function* mutations(value: unknown, path: string[] = []): Generator<[string, unknown]> {
  if (typeof value !== 'object' || value === null) return
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)
  const at = (change: (copy: any) => void) => {
    const copy = structuredClone(value) as any
    change(copy)
    return copy
  }
  for (const [key, child] of entries) {
    const here = [...path, key].join('.')
    for (const [name, replacement] of [
      ['null', null],
      ['number', 12345],
      ['string', 'x'],
      ['object', {}],
    ] as const) {
      yield [`${here} = ${name}`, at((copy) => (copy[key] = replacement))]
    }
    if (!Array.isArray(value)) yield [`${here} removed`, at((copy) => delete copy[key])]
    for (const [deeper, mutated] of mutations(child, [...path, key]))
      yield [deeper, at((copy) => (copy[key] = mutated))]
  }
  if (!Array.isArray(value)) yield [`${[...path, 'extra'].join('.')} added`, at((copy) => (copy.extra = 1))]
}

describe('frame rules against the schema', () => {
  for (const [folder, rule, validator] of [
    ['agent', agentMessageRule, validators.agentMessage],
    ['server', serverMessageRule, validators.serverMessage],
  ] as const) {
    for (const name of fixtureNames(folder)) {
      test(`${folder}/${name} is accepted, and every mutation of it is judged as the schema judges it`, () => {
        const frame = fixture(`${folder}/${name}`)
        expect(validator(frame)).toBe(true)
        expect(decode(rule, frame)).toEqual({ ok: true, message: frame })
        let checked = 0
        for (const [mutation, mutated] of mutations(frame)) {
          const schemaSays = validator(mutated) as boolean
          const decoded = decode(rule, mutated)
          if (decoded.ok !== schemaSays)
            throw new Error(`${mutation}: schema says ${schemaSays}, decoder says ${decoded.ok}`)
          checked++
        }
        expect(checked).toBeGreaterThan(20)
      })
    }
  }

  for (const [name, rule, validator] of AUTH) {
    test(`auth/${name} is accepted, and every mutation of it is judged as the schema judges it`, () => {
      const frame = fixture(`auth/${name}`)
      expect(decode(rule, frame, MAX_AUTH_FRAME_BYTES)).toEqual({ ok: true, message: frame })
      for (const [mutation, mutated] of mutations(frame)) {
        const decoded = decode(rule, mutated, MAX_AUTH_FRAME_BYTES)
        if (decoded.ok !== validator(mutated))
          throw new Error(`${mutation}: schema says ${validator(mutated)}, decoder says ${decoded.ok}`)
      }
    })
  }
})

describe('invalid fixtures are rejected', () => {
  test('a malformed message is invalid_message, naming its problems', () => {
    const decoded = decode(serverMessageRule, fixture('invalid/malformed-message.json'))
    expect(decoded.ok).toBe(false)
    if (!decoded.ok) {
      expect(decoded.code).toBe('invalid_message')
      const paths = decoded.issues.map((issue) => issue.path)
      expect(paths).toContain('messageId')
      expect(paths).toContain('sentAt')
    }
  })

  test('an unsupported version is unsupported_protocol_version, before the shape is checked', () => {
    const decoded = decode(serverMessageRule, fixture('invalid/unsupported-version.json'))
    expect(decoded).toMatchObject({
      ok: false,
      code: 'unsupported_protocol_version',
      reason: 'Unsupported protocol version "99"; supported versions: 1',
    })
    const hello = fixture('agent/agent-hello.json')
    expect(decode(agentMessageRule, { ...hello, protocolVersion: 1 })).toMatchObject({
      ok: false,
      code: 'unsupported_protocol_version',
    })
    expect(decode(agentMessageRule, { ...hello, protocolVersion: null })).toMatchObject({
      ok: false,
      code: 'unsupported_protocol_version',
    })
    expect(decode(agentMessageRule, { ...hello, protocolVersion: ['1'] })).toMatchObject({
      ok: false,
      code: 'invalid_message',
    })
  })

  for (const name of fixtureNames('invalid').filter((n) => n.startsWith('server-hello-brand-'))) {
    test(`${name} is invalid_message`, () => {
      const decoded = decode(serverMessageRule, fixture(`invalid/${name}`))
      expect(decoded).toMatchObject({ ok: false, code: 'invalid_message', issues: [{ path: 'payload.brand.name' }] })
    })
  }
})

describe('the codec', () => {
  const heartbeat = fixture('agent/heartbeat.json')

  test('frames over the limit are refused before they are parsed', () => {
    const big = JSON.stringify({ ...heartbeat, padding: 'x'.repeat(MAX_AUTH_FRAME_BYTES) })
    expect(decodeFrame(agentMessageRule, big, MAX_AUTH_FRAME_BYTES)).toMatchObject({
      ok: false,
      code: 'message_too_large',
    })
    // Counted in UTF-8 bytes: 6,000 euro signs are 18,000 bytes.
    expect(decodeFrame(agentMessageRule, `"${'€'.repeat(6_000)}"`, MAX_AUTH_FRAME_BYTES)).toMatchObject({
      ok: false,
      code: 'message_too_large',
    })
    expect(decodeFrame(agentMessageRule, new Uint8Array(MAX_AUTH_FRAME_BYTES + 1), MAX_AUTH_FRAME_BYTES)).toMatchObject(
      { ok: false, code: 'message_too_large' },
    )
  })

  test('invalid UTF-8 and invalid JSON are invalid_json', () => {
    expect(decodeFrame(agentMessageRule, new Uint8Array([0x7b, 0xff, 0x7d]), MAX_FRAME_BYTES)).toMatchObject({
      ok: false,
      code: 'invalid_json',
    })
    expect(decodeFrame(agentMessageRule, '{"type":', MAX_FRAME_BYTES)).toMatchObject({
      ok: false,
      code: 'invalid_json',
    })
    expect(decodeFrame(agentMessageRule, new TextEncoder().encode(JSON.stringify(heartbeat)), MAX_FRAME_BYTES)).toEqual(
      { ok: true, message: heartbeat },
    )
  })

  test('correlation rules per type', () => {
    const { correlationId: _, ...uncorrelated } = heartbeat
    expect(decode(agentMessageRule, uncorrelated)).toMatchObject({
      ok: false,
      issues: [{ path: 'correlationId', message: 'is required' }],
    })
    const hello = fixture('agent/agent-hello.json')
    expect(decode(agentMessageRule, { ...hello, correlationId: 'msg_1' })).toMatchObject({
      ok: false,
      issues: [{ path: 'correlationId', message: 'is not an allowed field' }],
    })
    const inventory = fixture('agent/printer-inventory.json')
    const { correlationId: __, ...unsolicited } = inventory
    expect(decode(agentMessageRule, unsolicited).ok).toBe(true)
  })

  test('the wire document takes what the schema takes, even images the renderer cannot read', () => {
    const job = fixture('server/print-job.json')
    expect(
      job.payload.document.sections.some(
        (s: { type: string; data?: string }) => s.type === 'image' && s.data === 'iVBORw==',
      ),
    ).toBe(true)
    expect(decode(serverMessageRule, job).ok).toBe(true)
  })

  test('encoding checks the frame and its size, and what it writes is valid for the schema', () => {
    for (const name of fixtureNames('server')) {
      const frame = fixture(`server/${name}`)
      const text = encodeFrame(serverMessageRule, frame, MAX_FRAME_BYTES)
      expect(validators.serverMessage(JSON.parse(text))).toBe(true)
    }
    const hello = fixture('server/server-hello.json')
    expect(() => encodeFrame(serverMessageRule, { ...hello, extra: true }, MAX_FRAME_BYTES)).toThrow(FrameEncodingError)
    expect(() => encodeFrame(serverMessageRule, hello, 100)).toThrow(/larger than 100 bytes/)
  })

  test('for a reader in this process, encoding leaves the check to the reader but still bounds the size', () => {
    const hello = fixture('server/server-hello.json')
    const broken = { ...hello, extra: true }
    // The reader (the built-in agent, or the hub for its agent) decodes it and refuses it there.
    expect(decode(serverMessageRule, encodeFrame(serverMessageRule, broken, MAX_FRAME_BYTES, true)).ok).toBe(false)
    expect(JSON.parse(encodeFrame(serverMessageRule, hello, MAX_FRAME_BYTES, true))).toEqual(hello)
    expect(() => encodeFrame(serverMessageRule, hello, 100, true)).toThrow(/larger than 100 bytes/)
  })
})

describe("printhub's completion report", () => {
  const completed = (payload: Record<string, unknown>) => ({
    protocolVersion: PROTOCOL_VERSION,
    messageId: 'm.done',
    sentAt: '2026-11-29T08:00:00.000Z',
    type: 'printhub.job_completed',
    correlationId: 'm.job',
    payload: {
      jobId: `job_${'0'.repeat(32)}.a1`,
      idempotencyKey: 'k',
      printerId: 'p',
      completedAt: '2026-11-29T08:00:00.100Z',
      ...payload,
    },
  })

  test('may say when the job was submitted too (its only report since the receipt); a bad moment is refused', () => {
    expect(decode(printhubAgentMessageRule, completed({})).ok).toBe(true)
    const both = decode(printhubAgentMessageRule, completed({ submittedAt: '2026-11-29T08:00:00.050Z' }))
    expect(both.ok && (both.message as { payload: { submittedAt?: string } }).payload.submittedAt).toBe(
      '2026-11-29T08:00:00.050Z',
    )
    for (const bad of ['yesterday', 12345, null, '']) {
      const refused = decode(printhubAgentMessageRule, completed({ submittedAt: bad }))
      expect(refused.ok).toBe(false)
      if (!refused.ok) expect(refused.issues?.map((issue) => issue.path)).toEqual(['payload.submittedAt'])
    }
    // A stock OpenPrinter peer may not send it at all.
    expect(decode(agentMessageRule, completed({})).ok).toBe(false)
  })
})
