// The hub's HTTP error: one class, a code of the closed family in protocol/api-errors.ts, and the
// status that code is always answered with. Routes throw it; the app answers it in the envelope.
import { API_ERRORS, type ApiErrorCode, type ErrorDetail } from '../protocol/api-errors.ts'

export interface ApiErrorOptions {
  details?: ErrorDetail[]
  headers?: Record<string, string>
}

export class ApiError extends Error {
  readonly status: number
  readonly details: ErrorDetail[] | undefined
  readonly headers: Record<string, string> | undefined

  constructor(
    readonly code: ApiErrorCode,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message)
    this.status = API_ERRORS[code]
    this.details = options.details
    this.headers = options.headers
  }
}

/** A request that breaks the rules: every field that does, and why. */
export function invalidRequest(details: ErrorDetail[], message = 'The request is invalid; see details.'): ApiError {
  return new ApiError('invalid_request', message, { details })
}

/** One setting of a request that is wrong, named in the message and in the details. */
export function invalidField(path: string, problem: string, message = `The ${path} ${problem}.`): ApiError {
  return invalidRequest([{ path, message: problem }], message)
}

export function notFound(message: string): ApiError {
  return new ApiError('not_found', message)
}

/** A valid request that the current state of what it acts on does not allow. */
export function conflict(message: string, details?: ErrorDetail[]): ApiError {
  return new ApiError('conflict', message, details ? { details } : {})
}

/** The job's document was pruned by retention: what needs it (a reprint) cannot be done. */
export function documentPruned(): ApiError {
  return new ApiError(
    'document_pruned',
    "This job's document is no longer kept (finished jobs' documents are kept " +
      'for the retention period); it cannot be reprinted. Send the job again.',
  )
}

/** Too many tries from one address: try again after `retryAfterMs`. */
export function rateLimited(
  code: 'rate_limited' | 'pairing_rate_limited',
  message: string,
  retryAfterMs: number,
): ApiError {
  return new ApiError(code, message, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  })
}

/** How long a client waits before trying again while the disk is full. */
export const STORAGE_FULL_RETRY_AFTER_SECONDS = 60

/** The hub's disk is (nearly) full: nothing was written; try again later. */
export function storageFull(
  message = 'The hub is out of disk space and takes no new job for now; nothing was written. Try again later.',
): ApiError {
  return new ApiError('storage_full', message, { headers: { 'retry-after': String(STORAGE_FULL_RETRY_AFTER_SECONDS) } })
}

/** The service's error body. Routes of the OpenPrinter protocol use its closed envelope instead. */
export function errorBody(error: ApiError, requestId: string, openPrinterEnvelope: boolean) {
  if (openPrinterEnvelope) return { error: { code: error.code, message: error.message } }
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      ...(error.details ? { details: error.details } : {}),
    },
  }
}
