// The discovery document (OpenPrinter v1 section 1.2), with the printservice brand in its paths.
import { CHALLENGE_TTL_SECONDS, PROTOCOL_VERSION } from './limits.ts'
import { integer, object, oneOf, type Rule, string } from './rules.ts'
import { identifier, shortString } from './values.ts'

/**
 * Where discovery answers: the protocol's own path first (every OpenPrinter host serves it), then the printservice
 * brand's.
 */
export const DISCOVERY_PATHS = ['/.well-known/openprinter', '/.well-known/printservice'] as const
export const PAIRING_PATH = '/printservice/pair'
export const GATEWAY_PATH = '/.well-known/printservice/gateway'
export const AUTHENTICATION_METHOD = 'pairing-code-ed25519'

export interface DiscoveryDocument {
  protocolVersion: '1'
  server: { id: string; name: string; version: string }
  endpoints: { pairing: string; gateway: string }
  authentication: { method: typeof AUTHENTICATION_METHOD; challengeTtlSeconds: number }
}

// Characters a brand name may not contain anywhere (controls, bidi marks) or at its edges (spaces).
const FORBIDDEN = '\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069'
const EDGE_SPACES = '\\u0020\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF'
const PAIR = '[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]'
const INNER = `(?:${PAIR}|[^${FORBIDDEN}\\uD800-\\uDFFF])`
const EDGE = `(?:${PAIR}|[^${FORBIDDEN}${EDGE_SPACES}\\uD800-\\uDFFF])`

/** A display name the protocol allows: no control or bidi characters, no surrounding spaces. */
export const brandNameRule = string({
  min: 1,
  max: 256,
  pattern: new RegExp(`^${EDGE}(?:${INNER}*${EDGE})?$`),
  patternHint: 'a name without control or direction characters and without surrounding spaces',
})

/** An absolute path, or an absolute http(s)/ws(s) URL. */
const endpoint = string({
  min: 1,
  max: 2_048,
  pattern: /^(?:\/[^\s?#]*|(?:https?|wss?):\/\/\S+)$/,
  patternHint: 'an absolute path or URL',
})

export const discoveryRule: Rule<DiscoveryDocument> = object({
  protocolVersion: oneOf([PROTOCOL_VERSION]),
  server: object({ id: identifier, name: brandNameRule, version: shortString }),
  endpoints: object({ pairing: endpoint, gateway: endpoint }),
  authentication: object({
    method: oneOf([AUTHENTICATION_METHOD]),
    challengeTtlSeconds: integer(CHALLENGE_TTL_SECONDS),
  }),
})
