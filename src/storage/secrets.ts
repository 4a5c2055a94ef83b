// Secrets are random, shown once and stored only as SHA-256 hashes. They carry 256 bits (API keys)
// or live for minutes and are rate limited (pairing codes), so a fast hash is the right one.
import { createHash, randomBytes } from 'node:crypto'
import { API_KEY_DISPLAY_LENGTH, API_KEY_PREFIX } from '../protocol/api-key.ts'

export function hashSecret(secret: string): Uint8Array {
  return createHash('sha256').update(secret).digest()
}

export function randomBase64Url(bytes: number): string {
  return randomBytes(bytes).toString('base64url')
}

/** Unbiased symbols: 256 is a multiple of the alphabet's length (32). */
export function randomSymbols(alphabet: string, count: number): string {
  if (256 % alphabet.length !== 0) throw new Error('alphabet length must divide 256')
  return [...randomBytes(count)].map((byte) => alphabet[byte % alphabet.length]).join('')
}

/** A new API key's secret (shown once, kept only as its hash) and the prefix kept to tell it by. */
export function newApiKeySecret(): { secret: string; prefix: string } {
  const secret = API_KEY_PREFIX + randomBase64Url(32)
  return { secret, prefix: secret.slice(0, API_KEY_DISPLAY_LENGTH) }
}

/** Admin tokens: `pha_` and 32 random bytes in unpadded base64url. */
const ADMIN_TOKEN_PREFIX = 'pha_'
export const ADMIN_TOKEN_PATTERN = /^pha_[A-Za-z0-9_-]{43}$/

/** A new admin token's secret (shown once, kept only as its hash) and the prefix kept to tell it by. */
export function newAdminTokenSecret(): { secret: string; prefix: string } {
  const secret = ADMIN_TOKEN_PREFIX + randomBase64Url(32)
  return { secret, prefix: secret.slice(0, ADMIN_TOKEN_PREFIX.length + 8) }
}
