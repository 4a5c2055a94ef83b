// Secrets are random, shown once and stored only as SHA-256 hashes. They carry 256 bits (API keys)
// or live for minutes and are rate limited (pairing codes), so a fast hash is the right one.
import { createHash, randomBytes } from 'node:crypto'

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
