// Ed25519 keys of paired agents.
import { Point } from '@noble/ed25519'
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
