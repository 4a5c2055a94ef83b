// The HTTP error codes of the hub's APIs (the public job API, pairing, the admin API), each with
// the one status it is answered with. The client types `ApiError.code` with them.
import type { PairingErrorCode } from './pairing.ts'
import { MAX_ISSUES } from './rules.ts'

export const API_ERRORS = {
  invalid_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  request_timeout: 408,
  /** The request is valid, but the thing it acts on is in a state that does not allow it. */
  conflict: 409,
  /** The job has reached its agent or is finished: an application can no longer cancel it. */
  job_not_cancellable: 409,
  /** The job's document is no longer kept (retention pruned it): it cannot be reprinted. */
  document_pruned: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  upgrade_required: 426,
  entitlement_limit: 429,
  rate_limited: 429,
  server_error: 500,
  /** The hub's database cannot be reached now (a cluster's PostgreSQL restarting): try again after Retry-After. */
  service_unavailable: 503,
  /** The hub's disk is (nearly) full: it takes no new job until there is room again. */
  storage_full: 507,
  // OpenPrinter's pairing endpoint answers every error of its closed envelope with 400.
  pairing_code_invalid: 400,
  pairing_code_expired: 400,
  pairing_code_consumed: 400,
  pairing_rate_limited: 400,
  invalid_public_key: 400,
  unsupported_protocol_version: 400,
} as const satisfies Record<string, number> & Record<PairingErrorCode, 400>

export type ApiErrorCode = keyof typeof API_ERRORS
export const API_ERROR_CODES = Object.keys(API_ERRORS) as ApiErrorCode[]

export function isApiErrorCode(code: unknown): code is ApiErrorCode {
  return typeof code === 'string' && Object.hasOwn(API_ERRORS, code)
}

/** One field of a request that breaks the rules, and why (the `details` of `invalid_request`). */
export interface ErrorDetail {
  path: string
  message: string
}

/** An error body: `{ error: { code, message, requestId, details? } }`. */
export interface ErrorBody {
  error: { code: ApiErrorCode; message: string; requestId: string; details?: ErrorDetail[] }
}

/** The error body as JSON Schema (2020-12), for the OpenAPI documents of the public and the admin API. */
export const ERROR_BODY_SCHEMA = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'requestId'],
      additionalProperties: false,
      properties: {
        code: { enum: API_ERROR_CODES },
        message: { type: 'string' },
        requestId: { type: 'string' },
        details: {
          type: 'array',
          maxItems: MAX_ISSUES,
          items: {
            type: 'object',
            required: ['path', 'message'],
            additionalProperties: false,
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
}
