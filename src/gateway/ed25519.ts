// Ed25519 keys of paired agents.
import { Point, verifyAsync } from '@noble/ed25519'
import { decodeBase64Url } from '../protocol/values.ts'

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

/** Pure Ed25519 (RFC 8032) over `message`; false for a malformed signature or key. */
export async function verifySignature(signature: string, message: Uint8Array, publicKey: string): Promise<boolean> {
  const sig = decodeBase64Url(signature)
  const key = decodeBase64Url(publicKey)
  if (sig?.length !== 64 || key?.length !== 32) return false
  try {
    // zip215: false is RFC 8032's strict verification, which refuses non-canonical encodings.
    return await verifyAsync(sig, message, key, { zip215: false })
  } catch {
    return false
  }
}
