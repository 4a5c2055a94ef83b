// Value types shared by several OpenPrinter messages (reference section 4.2).
import { string } from './rules.ts'

export const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/
export const identifier = string({
  min: 1,
  max: 128,
  pattern: IDENTIFIER_PATTERN,
  patternHint: 'an identifier: a letter or digit, then letters, digits, ".", "_", ":" or "-"',
})

export const shortString = string({ min: 1, max: 256 })

/**
 * A whole-value pattern (`^…$`) as a form field's `pattern` attribute, which browsers match as the
 * whole value with the `v` flag: the anchors go, and a "-" that a character class means literally
 * is escaped, as that flag requires. Forms check what the server checks, with the server's rule.
 */
export function htmlPattern(pattern: RegExp): string {
  const source = pattern.source
  if (!source.startsWith('^') || !source.endsWith('$'))
    throw new Error(`a pattern for a whole value starts with ^ and ends with $: ${source}`)
  return source.slice(1, -1).replaceAll(/-\]/g, '\\-]')
}

/** UTC only, optional fraction; the OpenPrinter Timestamp, which the API's ISO 8601 times also are. */
export const timestamp = string({
  min: 20,
  max: 30,
  pattern: /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?Z$/,
  patternHint: 'an ISO 8601 UTC timestamp',
})

/** Unpadded base64url, as the protocol writes keys, nonces and signatures. */
export const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/

/** Decodes canonical unpadded base64url; undefined when the text is not canonical. */
export function decodeBase64Url(text: string): Uint8Array | undefined {
  if (!BASE64URL_PATTERN.test(text) || text.length % 4 === 1) return undefined
  const bytes = Uint8Array.from(
    atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4)),
    (c) => c.charCodeAt(0),
  )
  // Canonical means the unused low bits of the last character are zero: re-encoding gives the same text.
  return encodeBase64Url(bytes) === text ? bytes : undefined
}

export function encodeBase64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}
