// verifyWebhook against the Standard Webhooks specification's own test vectors (its reference
// library's tests): the known signature of a known message, secrets with and without `whsec_`,
// several signatures in one header, and each way a delivery is refused.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { verifyWebhook, WebhookVerificationError } from '../../src/client/index.ts'
import { webhookSignature } from '../../src/protocol/webhook-signature.ts'

// The specification's vector: this secret, message ID, time and body sign to this signature.
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek'
const TIMESTAMP = 1614265330
const BODY = '{"test": 2432232314}'
const SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
const AT = TIMESTAMP * 1000

const headers = (overrides: Record<string, string | undefined> = {}) => {
  const all: Record<string, string | undefined> = {
    'webhook-id': ID,
    'webhook-timestamp': String(TIMESTAMP),
    'webhook-signature': SIGNATURE,
    ...overrides,
  }
  return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined)) as Record<string, string>
}

async function refused(promise: Promise<unknown>, reason: string): Promise<void> {
  await assert.rejects(
    promise,
    (error: unknown) => error instanceof WebhookVerificationError && error.reason === reason,
  )
}

describe('verifyWebhook', () => {
  test('signs the specification`s message to the specification`s signature', async () => {
    assert.equal(await webhookSignature(SECRET, ID, TIMESTAMP, BODY), SIGNATURE)
    assert.equal(await webhookSignature(SECRET.slice('whsec_'.length), ID, TIMESTAMP, BODY), SIGNATURE)
  })

  test('accepts it, with or without the whsec_ prefix, from Fetch Headers or a Node header object', async () => {
    assert.deepEqual(await verifyWebhook(SECRET, headers(), BODY, AT), { test: 2432232314 })
    assert.deepEqual(await verifyWebhook(SECRET.slice(6), new Headers(headers()), BODY, AT), { test: 2432232314 })
    assert.deepEqual(
      await verifyWebhook(
        SECRET,
        { 'Webhook-Id': ID, 'WEBHOOK-TIMESTAMP': String(TIMESTAMP), 'webhook-signature': [SIGNATURE] },
        BODY,
        AT,
      ),
      { test: 2432232314 },
    )
  })

  test('one valid signature among several is enough', async () => {
    const many = [
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      SIGNATURE,
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
    ].join(' ')
    assert.deepEqual(await verifyWebhook(SECRET, headers({ 'webhook-signature': many }), BODY, AT), {
      test: 2432232314,
    })
  })

  test(
    'refuses a missing header, a bad or stale time, a wrong or cut signature, ' + 'another body, another secret',
    async () => {
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
        await refused(verifyWebhook(SECRET, headers({ [name]: undefined }), BODY, AT), 'missing_headers')
      await refused(verifyWebhook(SECRET, headers({ 'webhook-timestamp': 'hello' }), BODY, AT), 'bad_timestamp')
      await refused(verifyWebhook(SECRET, headers(), BODY, AT + 5 * 60_000 + 1_000), 'too_old')
      await refused(verifyWebhook(SECRET, headers(), BODY, AT - 5 * 60_000 - 1_000), 'too_new')
      await refused(
        verifyWebhook(SECRET, headers({ 'webhook-signature': 'v1,dawfeoifkpqwoekfpqoekf' }), BODY, AT),
        'no_valid_signature',
      )
      await refused(
        verifyWebhook(SECRET, headers({ 'webhook-signature': SIGNATURE.slice(0, 8) }), BODY, AT),
        'no_valid_signature',
      )
      await refused(verifyWebhook(SECRET, headers({ 'webhook-signature': 'v1,' }), BODY, AT), 'no_valid_signature')
      await refused(verifyWebhook(SECRET, headers(), '{"test": 2432232315}', AT), 'no_valid_signature')
      await refused(verifyWebhook('whsec_QUJDREVGR0hJSktMTU5PUA==', headers(), BODY, AT), 'no_valid_signature')
      await refused(verifyWebhook('whsec_not base64!', headers(), BODY, AT), 'bad_secret')
    },
  )
})
