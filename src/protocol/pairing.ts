// Pairing an agent (OpenPrinter v1 section 2): the request, the response and the one-time code.
import { PROTOCOL_VERSION } from './limits.ts'
import { type Infer, object, oneOf, refine, type Rule, string } from './rules.ts'
import { decodeBase64Url, identifier, shortString, timestamp } from './values.ts'

/** 32 symbols without I, O, 0 and 1, which people misread. */
export const PAIRING_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
export const PAIRING_CODE_SYMBOLS = 8
export const PAIRING_CODE_TTL_MS = { min: 10_000, max: 86_400_000, default: 300_000 } as const

/** Codes compare without hyphens and case: `abcd-efgh` is `ABCDEFGH`. */
export function normalizePairingCode(code: string): string {
  return code.replace(/-/g, '').toUpperCase()
}

export function isWellFormedPairingCode(normalized: string): boolean {
  return normalized.length === PAIRING_CODE_SYMBOLS && [...normalized].every((c) => PAIRING_CODE_ALPHABET.includes(c))
}

export function formatPairingCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`
}

export const ED25519_PUBLIC_KEY_BYTES = 32

export const publicKeyXRule = refine(
  string({ min: 43, max: 43, pattern: /^[A-Za-z0-9_-]{43}$/, patternHint: 'unpadded base64url' }),
  (x) =>
    decodeBase64Url(x)?.length === ED25519_PUBLIC_KEY_BYTES
      ? undefined
      : 'must be canonical unpadded base64url of exactly 32 bytes',
)

export const pairingRequestRule = object({
  protocolVersion: oneOf([PROTOCOL_VERSION]),
  code: string({ min: 4, max: 64, pattern: /^[A-Za-z0-9-]+$/, patternHint: 'letters, digits and hyphens' }),
  agent: object({
    name: string({ min: 1, max: 128 }),
    version: shortString,
    platform: string({ min: 1, max: 64 }),
    installationId: identifier,
  }),
  credential: object({
    algorithm: oneOf(['Ed25519']),
    publicKey: object({ kty: oneOf(['OKP']), crv: oneOf(['Ed25519']), x: publicKeyXRule }),
  }),
})

export type PairingRequest = Infer<typeof pairingRequestRule>

export interface PairingResponse {
  agentId: string
  keyId: string
  serverId: string
  pairedAt: string
}

export const pairingResponseRule: Rule<PairingResponse> = object({
  agentId: identifier,
  keyId: identifier,
  serverId: identifier,
  pairedAt: timestamp,
})

/** The pairing error codes of the OpenPrinter error envelope (its `server_error` is the API's own). */
export const PAIRING_ERROR_CODES = [
  'pairing_code_invalid',
  'pairing_code_expired',
  'pairing_code_consumed',
  'pairing_rate_limited',
  'invalid_public_key',
  'unsupported_protocol_version',
] as const
export type PairingErrorCode = (typeof PAIRING_ERROR_CODES)[number]
