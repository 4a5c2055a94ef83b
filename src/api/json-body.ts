// Reads a JSON request body within a byte limit and a time limit, without buffering more than the
// limit: an oversized body is refused as soon as it is known to be too big.
import { ApiError } from './errors.ts'

/** A body that has not fully arrived after this long is refused. */
export const BODY_TIMEOUT_MS = 30_000

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'payload_too_large', `The request body must not exceed ${maxBytes} bytes.`)
}

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const mediaType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
  if (mediaType !== 'application/json') throw new ApiError(415, 'unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.')
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (declared > maxBytes) throw tooLarge(maxBytes)

  // Grows as data arrives, so a small body never costs the maximum.
  let buffer = new Uint8Array(Number.isSafeInteger(declared) && declared >= 0 ? declared : 16_384)
  let length = 0
  if (request.body) {
    const reader = request.body.getReader()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      void reader.cancel()
    }, BODY_TIMEOUT_MS)
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (timedOut) throw new ApiError(408, 'request_timeout', 'The request body did not arrive in time.')
        if (done) break
        if (length + value.length > maxBytes) {
          void reader.cancel()
          throw tooLarge(maxBytes)
        }
        if (length + value.length > buffer.length) {
          const grown = new Uint8Array(Math.min(maxBytes, Math.max(buffer.length * 2, length + value.length)))
          grown.set(buffer.subarray(0, length))
          buffer = grown
        }
        buffer.set(value, length)
        length += value.length
      }
    } catch (error) {
      if (error instanceof ApiError) throw error
      throw new ApiError(400, 'invalid_json', 'The request body was cut short.')
    } finally {
      clearTimeout(timer)
    }
  }

  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length))
  } catch {
    throw new ApiError(400, 'invalid_json', 'The request body must be UTF-8 encoded JSON.')
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError(400, 'invalid_json', 'The request body must contain valid JSON.')
  }
}
