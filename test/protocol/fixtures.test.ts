// The OpenPrinter fixtures that concern discovery and pairing, against our rules and the schema.
import { describe, expect, test } from 'bun:test'
import { isUsablePublicKey } from '../../src/gateway/ed25519.ts'
import { brandNameRule } from '../../src/protocol/discovery.ts'
import { pairingRequestRule } from '../../src/protocol/pairing.ts'
import { validate } from '../../src/protocol/rules.ts'
import { fixture, schemaErrors, validators } from '../support/schema.ts'

describe('OpenPrinter fixtures', () => {
  test('the schema accepts the discovery and pairing fixtures', () => {
    expect(schemaErrors(validators.discovery, fixture('auth/discovery.json'))).toEqual([])
    expect(schemaErrors(validators.pairingRequest, fixture('auth/pairing-request.json'))).toEqual([])
    expect(schemaErrors(validators.pairingResponse, fixture('auth/pairing-response.json'))).toEqual([])
  })

  test('the pairing request rule accepts the fixture', () => {
    const request = fixture('auth/pairing-request.json')
    expect(validate(pairingRequestRule, request)).toEqual({ ok: true, value: request })
    // Its key is a placeholder, not a point on the curve: the hub refuses such a key at pairing,
    // where the agent can be told, rather than at every later authentication.
    expect(isUsablePublicKey(request.credential.publicKey.x)).toBe(false)
  })

  test('the brand name rule rejects what the invalid server-hello fixtures carry', () => {
    const names = [
      'arabic-letter-mark',
      'bidi-isolate',
      'bidi-override',
      'control-character',
      'leading-whitespace',
      'lone-surrogate',
      'trailing-whitespace',
    ]
    for (const name of names) {
      const brand = fixture(`invalid/server-hello-brand-${name}.json`).payload.brand.name
      expect(validate(brandNameRule, brand).ok).toBe(false)
    }
    expect(validate(brandNameRule, fixture('server/server-hello.json').payload.brand.name).ok).toBe(true)
    expect(validate(brandNameRule, 'Café 🍕 Bar').ok).toBe(true)
  })

  test('a non-canonical public key is refused by rule and schema alike where the schema can tell', () => {
    const request = fixture('auth/pairing-request.json')
    const x: string = request.credential.publicKey.x
    // The 43rd character carries 4 unused bits; setting one keeps the schema happy but is not canonical.
    const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const nonCanonical = x.slice(0, 42) + last[last.indexOf(x[42]!) + 1]
    const bad = {
      ...request,
      credential: { ...request.credential, publicKey: { ...request.credential.publicKey, x: nonCanonical } },
    }
    expect(schemaErrors(validators.pairingRequest, bad)).toEqual([])
    expect(validate(pairingRequestRule, bad)).toEqual({
      ok: false,
      issues: [{ path: 'credential.publicKey.x', message: 'must be canonical unpadded base64url of exactly 32 bytes' }],
    })
  })
})
