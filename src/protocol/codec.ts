// Frames in and out (reference section 4.1): size before parsing, UTF-8, JSON, the protocol version,
// then the closed rules. Decoding never throws; encoding throws only on a bug (a frame we built
// that breaks the contract), so nothing outside the schema ever reaches a peer.
import { PROTOCOL_VERSION } from './limits.ts'
import { type Issue, type Rule, validate } from './rules.ts'

export type DecodeErrorCode = 'invalid_json' | 'invalid_message' | 'message_too_large' | 'unsupported_protocol_version'

/** Issues reported for one bad frame; they name fields, never carry the payload. */
export const MAX_FRAME_ISSUES = 16

export type Decoded<T> =
  | { ok: true; message: T }
  | { ok: false; code: DecodeErrorCode; reason: string; issues: Issue[] }

const utf8Decoder = new TextDecoder('utf-8', { fatal: true })
const utf8Encoder = new TextEncoder()

/** The UTF-8 size of a string, without encoding it when it cannot come near the limit. */
function utf8Length(text: string, limit: number): number {
  return text.length * 3 <= limit ? text.length : utf8Encoder.encode(text).length
}

function failure(code: DecodeErrorCode, reason: string, issues: Issue[] = []): Decoded<never> {
  return { ok: false, code, reason, issues: issues.slice(0, MAX_FRAME_ISSUES) }
}

export function decodeFrame<T>(rule: Rule<T>, data: string | Uint8Array, maxBytes: number): Decoded<T> {
  const size = typeof data === 'string' ? utf8Length(data, maxBytes) : data.byteLength
  if (size > maxBytes) return failure('message_too_large', `The frame is larger than ${maxBytes} bytes.`)
  let text: string
  try {
    text = typeof data === 'string' ? data : utf8Decoder.decode(data)
  } catch {
    return failure('invalid_json', 'The frame is not valid UTF-8.')
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return failure('invalid_json', 'The frame is not valid JSON.')
  }
  // The version is checked before the shape, so a peer of another version gets the right answer.
  const version =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>).protocolVersion
      : undefined
  if (version !== undefined && version !== PROTOCOL_VERSION && (version === null || typeof version !== 'object')) {
    return failure(
      'unsupported_protocol_version',
      `Unsupported protocol version ${JSON.stringify(version)}; supported versions: ${PROTOCOL_VERSION}`,
    )
  }
  const result = validate(rule, value)
  return result.ok
    ? { ok: true, message: result.value }
    : failure('invalid_message', 'The frame does not match the protocol.', result.issues)
}

export class FrameEncodingError extends Error {
  constructor(
    readonly code: 'invalid_message' | 'message_too_large',
    message: string,
    readonly issues: Issue[] = [],
  ) {
    super(message)
  }
}

/**
 * The compact JSON text of a frame, after checking it against its rule and the size limit. For a
 * reader in this process (`readerInProcess`: the built-in agent's pipe, hub/in-memory-link.ts),
 * which is this program and checks every frame it reads against the same rules, the frame is
 * checked once, where it is read, not on its way out as well; its size is checked here all the same.
 */
export function encodeFrame<T>(rule: Rule<T>, frame: T, maxBytes: number, readerInProcess = false): string {
  const result = readerInProcess ? undefined : validate(rule, frame)
  if (result && !result.ok)
    throw new FrameEncodingError(
      'invalid_message',
      `An outgoing frame breaks the protocol: ${result.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      result.issues,
    )
  const text = JSON.stringify(frame)
  if (utf8Length(text, maxBytes) > maxBytes)
    throw new FrameEncodingError('message_too_large', `An outgoing frame is larger than ${maxBytes} bytes.`)
  return text
}
