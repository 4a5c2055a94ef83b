// The API's error family: one class, one closed set of machine codes.
import type { PairingErrorCode } from '../protocol/pairing.ts'
import type { Issue } from '../protocol/rules.ts'

export type ApiErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'request_timeout'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'entitlement_limit'
  | 'rate_limited'
  | 'upgrade_required'
  | 'server_error'
  | PairingErrorCode

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: ApiErrorCode,
    message: string,
    readonly details?: Issue[],
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }
}

/** The service's error body. Routes of the OpenPrinter protocol use its closed envelope instead. */
export function errorBody(error: ApiError, requestId: string, openPrinterEnvelope: boolean) {
  if (openPrinterEnvelope) return { error: { code: error.errorCode, message: error.message } }
  return { error: { code: error.errorCode, message: error.message, requestId, ...(error.details ? { details: error.details } : {}) } }
}
