// The client's errors: one base class, four kinds. Applications branch on the class, the HTTP
// status and `code`, never on messages. No error carries the API key.
import type { ApiErrorCode } from '../protocol/api-errors.ts'
import type { Issue } from '../protocol/rules.ts'
import type { WebhookRefusal } from '../protocol/webhook-signature.ts'

/** Marks errors of this library, so `instanceof` also works across copies of it (two bundles). */
const BRAND = Symbol.for('printhub.client.error')

export class PrintHubError extends Error {
  /** The error's kind, also its `name`; kept as a string so minifiers cannot rename it. */
  static readonly kind: string = 'PrintHubError'

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    const kind = (new.target as typeof PrintHubError).kind
    this.name = kind
    Object.defineProperty(this, BRAND, { value: kind })
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null || !(BRAND in value)) return false
    // Each class matches its own errors; the base class matches them all.
    return this.kind === PrintHubError.kind || (value as Record<symbol, unknown>)[BRAND] === this.kind
  }
}

/** Missing or invalid configuration, found before any request. `setting` names it. */
export class ConfigurationError extends PrintHubError {
  static override readonly kind = 'ConfigurationError'

  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting} ${message}`)
  }
}

/** Input that breaks the service's rules, found before any request. `issues` name each field. */
export class ValidationError extends PrintHubError {
  static override readonly kind = 'ValidationError'

  constructor(readonly issues: Issue[]) {
    super(`Invalid input: ${issues.map((issue) => `${issue.path || '(input)'} ${issue.message}`).join('; ')}`)
  }
}

/** Any non-2xx answer of the service, with the machine code and request ID of its error body. */
export class ApiError extends PrintHubError {
  static override readonly kind = 'ApiError'

  // biome-ignore lint/complexity/useMaxParams: the published client's constructor, as applications may call it
  constructor(
    readonly status: number,
    readonly method: string,
    readonly url: string,
    /**
     * The error's machine code; undefined when the answer had none this version knows (its message then starts with
     * it).
     */
    readonly code: ApiErrorCode | undefined,
    readonly requestId: string | undefined,
    readonly details: Issue[] | undefined,
    message: string,
  ) {
    super(`${method} ${url} failed with HTTP ${status}${code ? ` ${code}` : ''}: ${message}`)
  }
}

/** A 2xx answer that breaks the contract: not JSON, or fields missing or of the wrong type. */
export class ResponseError extends PrintHubError {
  static override readonly kind = 'ResponseError'

  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${method} ${url} answered outside the contract: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    })
  }
}

/** No answer at all: the hub could not be reached, or the connection broke. */
export class NetworkError extends PrintHubError {
  static override readonly kind = 'NetworkError'

  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${method} ${url} could not reach the hub: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    })
  }
}

/** An attempt that got no answer within `timeoutMs`. */
export class TimeoutError extends PrintHubError {
  static override readonly kind = 'TimeoutError'

  constructor(
    readonly timeoutMs: number,
    readonly method: string,
    readonly url: string,
  ) {
    super(`${method} ${url} got no answer within ${timeoutMs} ms`)
  }
}

/** A webhook delivery that the holder of the secret did not sign, or not within the tolerance. `reason` says which. */
export class WebhookVerificationError extends PrintHubError {
  static override readonly kind = 'WebhookVerificationError'

  constructor(readonly reason: WebhookRefusal) {
    super(`the webhook delivery is not verified: ${reason.replace(/_/g, ' ')}`)
  }
}
