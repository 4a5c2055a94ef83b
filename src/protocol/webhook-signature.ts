// Webhook signatures as the Standard Webhooks specification defines them, for the hub that signs
// and the applications that verify (the client library ships this file): the headers
// `webhook-id`, `webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,` and the base64
// HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed with the secret's decoded bytes; several
// signatures may be given, separated by spaces). Secrets are `whsec_` and base64. WebCrypto only,
// so it runs in Bun, Deno, browsers and Node (Node 18 has it as node:crypto's `webcrypto`, not yet
// as the global `crypto`).

export const WEBHOOK_SECRET_PREFIX = 'whsec_'
/** A delivery older or newer than this (seconds) is refused: a replayed one cannot pass. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60
export const WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const

/** Why a delivery is not one the holder of the secret signed. */
export type WebhookRefusal =
  | 'missing_headers'
  | 'bad_timestamp'
  | 'too_old'
  | 'too_new'
  | 'no_valid_signature'
  | 'bad_secret'

const encoder = new TextEncoder()

function fromBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
}

function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

/** The key bytes of a secret, with or without its `whsec_` prefix; undefined when it is not base64. */
export function webhookKeyBytes(secret: string): Uint8Array | undefined {
  const bytes = fromBase64(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
  )
  return bytes && bytes.length > 0 ? bytes : undefined
}

/** The runtime's WebCrypto: the global one, or on Node 18 the one node:crypto exports. */
async function subtle(): Promise<SubtleCrypto> {
  if (globalThis.crypto?.subtle) return globalThis.crypto.subtle
  // Named through a variable so that bundlers leave it to the runtime: browsers never get here.
  const module = 'node:crypto'
  const node = (await import(module)) as { webcrypto: Crypto }
  return node.webcrypto.subtle
}

/** `v1,` and the signature of the delivery `id` sent at `timestamp` (unix seconds) with `body`. */
export async function webhookSignature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = webhookKeyBytes(secret)
  if (!key) throw new TypeError('the webhook secret is not whsec_ and base64')
  const crypto = await subtle()
  const hmac = await crypto.importKey('raw', key as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ])
  const signature = new Uint8Array(await crypto.sign('HMAC', hmac, encoder.encode(`${id}.${timestamp}.${body}`)))
  return `v1,${toBase64(signature)}`
}

/** Compares in a time that does not depend on where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/**
 * Checks a delivery: its headers, its time (within WEBHOOK_TOLERANCE_SECONDS of `nowMs`) and one
 * of its signatures. The delivery's ID and time, or why it is refused.
 */
export async function checkWebhook(
  secret: string,
  headers: (name: string) => string | null | undefined,
  body: string,
  nowMs = Date.now(),
): Promise<{ ok: true; id: string; timestamp: number } | { ok: false; refusal: WebhookRefusal }> {
  const id = headers(WEBHOOK_HEADERS.id)
  const time = headers(WEBHOOK_HEADERS.timestamp)
  const signatures = headers(WEBHOOK_HEADERS.signature)
  if (!id || !time || !signatures) return { ok: false, refusal: 'missing_headers' }
  if (!/^\d{1,12}$/.test(time)) return { ok: false, refusal: 'bad_timestamp' }
  const timestamp = Number(time)
  const now = Math.floor(nowMs / 1000)
  if (timestamp < now - WEBHOOK_TOLERANCE_SECONDS) return { ok: false, refusal: 'too_old' }
  if (timestamp > now + WEBHOOK_TOLERANCE_SECONDS) return { ok: false, refusal: 'too_new' }
  if (!webhookKeyBytes(secret)) return { ok: false, refusal: 'bad_secret' }
  const expected = await webhookSignature(secret, id, timestamp, body)
  const valid = signatures.split(' ').some((given) => sameText(given, expected))
  return valid ? { ok: true, id, timestamp } : { ok: false, refusal: 'no_valid_signature' }
}
