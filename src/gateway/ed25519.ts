// Ed25519 keys of paired agents: whether a key is usable (a JavaScript curve library, which needs
// no tables for it), and signatures verified by the runtime's own Ed25519 (the library's tables for
// verifying kept about 14 MB of every hub resident).
import { Point } from '@noble/ed25519'
import { createPublicKey, verify } from 'node:crypto'
import { decodeBase64Url, encodeBase64Url } from '../protocol/values.ts'

/**
 * True when `x` encodes a usable Ed25519 public key: a canonical point on the curve that is not of
 * small order (such a key would accept signatures anyone can forge).
 */
export function isUsablePublicKey(x: string): boolean {
  const bytes = decodeBase64Url(x)
  if (bytes?.length !== 32) return false
  try {
    return !Point.fromBytes(bytes, false).isSmallOrder()
  } catch {
    return false
  }
}

/**
 * Pure Ed25519 (RFC 8032) over `message`; false for a malformed signature or key. Strict: a
 * signature whose S is not below the group order is refused (no malleable signatures), and R must
 * be the canonical encoding (it is compared as bytes). Keys are checked canonical when paired.
 */
export async function verifySignature(signature: string, message: Uint8Array, publicKey: string): Promise<boolean> {
  const sig = decodeBase64Url(signature)
  const key = decodeBase64Url(publicKey)
  if (sig?.length !== 64 || key?.length !== 32) return false
  try {
    return verify(
      null,
      message,
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: encodeBase64Url(key) }, format: 'jwk' }),
      sig,
    )
  } catch {
    return false
  }
}
