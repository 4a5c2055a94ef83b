// Ed25519 as the agents sign and the gateway verifies (the runtime's own implementation): RFC
// 8032's test vector, the same signatures as the curve library printhub uses to check keys, and
// strict verification (a malleable signature, a changed message, bytes of the wrong length).
import { afterEach, expect, test } from 'bun:test'
import { signAsync, verifyAsync, utils } from '@noble/ed25519'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AgentKey, KEY_FILE } from '../../src/agent/identity.ts'
import { verifySignature } from '../../src/gateway/ed25519.ts'
import { decodeBase64Url, encodeBase64Url } from '../../src/protocol/values.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function keyOf(secret: Uint8Array): AgentKey {
  const dir = mkdtempSync(join(tmpdir(), 'printhub-key-'))
  dirs.push(dir)
  writeFileSync(join(dir, KEY_FILE), `${encodeBase64Url(secret)}\n`, { mode: 0o600 })
  return AgentKey.load(dir)!
}

const hex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'))

// RFC 8032, section 7.1, TEST 1 (an empty message).
const VECTOR = {
  secret: hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'),
  publicKey: hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'),
  signature: hex(
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155' +
      '5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  ),
}

test("RFC 8032's first test vector: the public key and the signature, and the gateway accepts it", async () => {
  const key = keyOf(VECTOR.secret)
  expect(decodeBase64Url(await key.publicKey())).toEqual(VECTOR.publicKey)
  const signature = await key.sign(new Uint8Array(0))
  expect(decodeBase64Url(signature)).toEqual(VECTOR.signature)
  expect(await verifySignature(signature, new Uint8Array(0), await key.publicKey())).toBe(true)
})

test('the same signatures as the curve library, each accepted by the other', async () => {
  for (let i = 0; i < 5; i++) {
    const secret = utils.randomSecretKey()
    const key = keyOf(secret)
    const message = crypto.getRandomValues(new Uint8Array(100 + i))
    const ours = await key.sign(message)
    const theirs = await signAsync(message, secret)
    expect(decodeBase64Url(ours)).toEqual(theirs)
    expect(
      await verifyAsync(decodeBase64Url(ours)!, message, decodeBase64Url(await key.publicKey())!, { zip215: false }),
    ).toBe(true)
    expect(await verifySignature(encodeBase64Url(theirs), message, await key.publicKey())).toBe(true)
  }
})

test('refused: another message, another key, a malleable S (S + L), and bytes of the wrong length', async () => {
  const key = keyOf(VECTOR.secret)
  const publicKey = await key.publicKey()
  const message = new TextEncoder().encode('challenge')
  const signature = decodeBase64Url(await key.sign(message))!
  expect(await verifySignature(encodeBase64Url(signature), new TextEncoder().encode('challengf'), publicKey)).toBe(
    false,
  )
  expect(
    await verifySignature(encodeBase64Url(signature), message, await keyOf(utils.randomSecretKey()).publicKey()),
  ).toBe(false)
  // The same signature with S + L (the group order) verifies under a lax rule; RFC 8032 refuses it.
  const L = 2n ** 252n + 27742317777372353535851937790883648493n
  const s = BigInt(`0x${Buffer.from(signature.slice(32)).reverse().toString('hex')}`) + L
  const malleable = new Uint8Array(signature)
  malleable.set(Buffer.from(s.toString(16).padStart(64, '0'), 'hex').reverse(), 32)
  expect(await verifySignature(encodeBase64Url(malleable), message, publicKey)).toBe(false)
  expect(await verifySignature(encodeBase64Url(signature.slice(0, 63)), message, publicKey)).toBe(false)
  expect(
    await verifySignature(
      encodeBase64Url(signature),
      message,
      encodeBase64Url(decodeBase64Url(publicKey)!.slice(0, 31)),
    ),
  ).toBe(false)
  expect(await verifySignature('not base64url!', message, publicKey)).toBe(false)
})
