// Reads a JSON request body within a byte limit and a time limit, without buffering more than the
// limit: an oversized body is refused as soon as it is known to be too big.
import { type Rule, validate } from '../protocol/rules.ts'
import { type BodyClaim, claimBody } from './body-budget.ts'
import { ApiError, invalidRequest } from './errors.ts'

/** A body that has not fully arrived after this long is refused. */
export const BODY_TIMEOUT_MS = 30_000

// Both leave unread bytes on the connection, so the answer closes it (which also ends the read).
const CLOSE = { connection: 'close' }
const tooLarge = (maxBytes: number) =>
  new ApiError('payload_too_large', `The request body must not exceed ${maxBytes} bytes.`, { headers: CLOSE })
const tooSlow = () => new ApiError('request_timeout', 'The request body did not arrive in time.', { headers: CLOSE })

/** A kind of body: its media type, and what messages call it. */
interface BodyKind {
  mediaType: string
  what: string
}

const JSON_BODY: BodyKind = { mediaType: 'application/json', what: 'JSON' }
const FORM_BODY: BodyKind = { mediaType: 'application/x-www-form-urlencoded', what: 'a form' }

/** `caller` is who the body's bytes are charged to in the hub's body budget (its address when not named). */
export async function readJsonBody(request: Request, maxBytes: number, caller?: string): Promise<unknown> {
  const text = await readTextBody(request, JSON_BODY, maxBytes, caller)
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError('invalid_json', 'The request body must contain valid JSON.')
  }
}

/** A form body (`application/x-www-form-urlencoded`), as text: what printers that poll post. */
export function readFormBody(request: Request, maxBytes: number, caller?: string): Promise<string> {
  return readTextBody(request, FORM_BODY, maxBytes, caller)
}

/** A UTF-8 body of `mediaType` within `maxBytes`, as text. */
async function readTextBody(
  request: Request,
  { mediaType, what }: BodyKind,
  maxBytes: number,
  caller?: string,
): Promise<string> {
  const sent = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
  if (sent !== mediaType)
    throw new ApiError('unsupported_media_type', `Send the body as ${what} with Content-Type: ${mediaType}.`)
  const declared = request.headers.get('content-length')
  const claim = claimBody(request, caller)
  let bytes: Uint8Array
  try {
    bytes =
      declared === null
        ? await readStream(request, maxBytes, claim)
        : await readDeclared(request, Number(declared), maxBytes, claim)
  } finally {
    // Decoded at once below: the bytes are let go with the claim.
    claim?.release()
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new ApiError('invalid_json', `The request body must be UTF-8 encoded ${what}.`)
  }
}

/**
 * A body of declared length: refused before reading when too long, else read whole (HTTP framing stops at the length).
 */
async function readDeclared(
  request: Request,
  length: number,
  maxBytes: number,
  claim: BodyClaim | undefined,
): Promise<Uint8Array> {
  if (length > maxBytes) throw tooLarge(maxBytes)
  claim?.grow(length)
  let timer: Timer | undefined
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(tooSlow()), BODY_TIMEOUT_MS)))
  try {
    return new Uint8Array(await Promise.race([request.arrayBuffer(), deadline]))
  } catch (error) {
    if (error instanceof ApiError) throw error
    throw new ApiError('invalid_json', 'The request body was cut short.')
  } finally {
    clearTimeout(timer)
  }
}

/** A chunked body: read as it arrives and cut off as soon as it passes the limit. */
async function readStream(request: Request, maxBytes: number, claim: BodyClaim | undefined): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0)
  claim?.grow(16_384)
  let buffer = new Uint8Array(16_384)
  let length = 0
  const reader = request.body.getReader()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    void reader.cancel()
  }, BODY_TIMEOUT_MS)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (timedOut) throw tooSlow()
      if (done) return buffer.subarray(0, length)
      if (length + value.length > maxBytes) {
        void reader.cancel()
        throw tooLarge(maxBytes)
      }
      if (length + value.length > buffer.length) {
        // Grows as data arrives, so a small body never costs the maximum.
        const size = Math.min(maxBytes, Math.max(buffer.length * 2, length + value.length))
        try {
          claim?.grow(size - buffer.length)
        } catch (error) {
          void reader.cancel()
          throw error
        }
        const grown = new Uint8Array(size)
        grown.set(buffer.subarray(0, length))
        buffer = grown
      }
      buffer.set(value, length)
      length += value.length
    }
  } catch (error) {
    if (error instanceof ApiError) throw error
    throw new ApiError('invalid_json', 'The request body was cut short.')
  } finally {
    clearTimeout(timer)
  }
}

/** A JSON body that must follow `rule`; a 400 naming every field that does not. */
export async function readValidBody<T>(request: Request, rule: Rule<T>, maxBytes: number, caller?: string): Promise<T> {
  const result = validate(rule, await readJsonBody(request, maxBytes, caller))
  if (!result.ok) throw invalidRequest(result.issues)
  return result.value
}
