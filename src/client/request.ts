// One call to the hub: its input checked against the service's rules before it is sent, attempts
// bounded by the timeout, retries with backoff where they are safe, cancellation by the caller's
// signal, and the answer checked against the contract.
import { isApiErrorCode } from '../protocol/api-errors.ts'
import { type Issue, type Rule, validate } from '../protocol/rules.ts'
import type { ClientConfig } from './config.ts'
import { ApiError, NetworkError, ResponseError, TimeoutError, ValidationError } from './errors.ts'
import { RETRYABLE_STATUSES, retryAfterMs, retryDelayMs, type Scheduler } from './retry.ts'

export interface RequestOptions {
  /** Cancels the request in flight and any wait before a retry, with the signal's reason. */
  signal?: AbortSignal
}

/** The input as the service's own rules accept it, or a ValidationError naming each field. */
export function checked<T>(rule: Rule<T>, value: unknown): T {
  const result = validate(rule, value)
  if (!result.ok) throw new ValidationError(result.issues)
  return result.value
}

export interface Call<T> {
  method: 'GET' | 'POST' | 'DELETE'
  /** From the base URL, e.g. `/v1/projects/prj_1/jobs?state=PENDING`. */
  path: string
  body?: unknown
  apiKey?: string
  /** Repeating it is safe: GET requests and job creation (same idempotency key). Never pairing. */
  retryable: boolean
  /** What a 2xx answer must look like. */
  contract: Rule<T>
  signal?: AbortSignal
}

export interface Answer {
  status: number
  headers: Headers
  text: string
}

/** Why an attempt ended without an answer. */
type Failure = { kind: 'timeout' } | { kind: 'network'; cause: unknown }

export async function call<T>(config: ClientConfig, scheduler: Scheduler, request: Call<T>): Promise<T> {
  const url = config.baseUrl + request.path
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptOnce(config, request, url)
    const retriesLeft = request.retryable && attempt < config.maxRetries
    if ('kind' in outcome) {
      if (!retriesLeft)
        throw outcome.kind === 'timeout'
          ? new TimeoutError(config.timeoutMs, request.method, url)
          : new NetworkError(request.method, url, outcome.cause)
      // No answer reached us, so nothing tells us to wait longer than the backoff.
      await scheduler.sleep(retryDelayMs(config, attempt, undefined, scheduler.random)!, request.signal)
      continue
    }
    // 204: done, and nothing to say (a deletion).
    if (outcome.status === 204) return undefined as T
    if (outcome.status >= 200 && outcome.status < 300) return parseContract(request, url, outcome.text)
    const error = apiError(request.method, url, outcome)
    const delay =
      retriesLeft && RETRYABLE_STATUSES.has(outcome.status)
        ? retryDelayMs(config, attempt, retryAfterMs(outcome.headers.get('retry-after'), Date.now()), scheduler.random)
        : undefined
    if (delay === undefined) throw error
    await scheduler.sleep(delay, request.signal)
  }
}

/** One attempt within the timeout; the caller's abort ends it at once with the signal's reason. */
async function attemptOnce(config: ClientConfig, request: Call<unknown>, url: string): Promise<Answer | Failure> {
  request.signal?.throwIfAborted()
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, config.timeoutMs)
  const onAbort = () => controller.abort(request.signal!.reason)
  request.signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`
    if (request.body !== undefined) headers['content-type'] = 'application/json'
    const response = await config.fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: controller.signal,
    })
    // Reading the body belongs to the attempt: its time counts against the timeout too.
    return { status: response.status, headers: response.headers, text: await response.text() }
  } catch (cause) {
    if (request.signal?.aborted) throw request.signal.reason
    return timedOut ? { kind: 'timeout' } : { kind: 'network', cause }
  } finally {
    clearTimeout(timer)
    request.signal?.removeEventListener('abort', onAbort)
  }
}

function parseContract<T>(request: Call<T>, url: string, text: string): T {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw new ResponseError(request.method, url, new Error('the body is not JSON', { cause }))
  }
  const result = validate(request.contract, value)
  if (!result.ok) {
    const where = result.issues.map((issue) => `${issue.path || '(body)'} ${issue.message}`).join('; ')
    throw new ResponseError(request.method, url, new Error(where))
  }
  return result.value
}

/** The error of a non-2xx answer, reading the error envelope where there is one. */
export function apiError(method: string, url: string, answer: Answer): ApiError {
  let envelope: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } | undefined
  try {
    envelope = (JSON.parse(answer.text) as { error?: typeof envelope }).error
  } catch {
    envelope = undefined
  }
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
  const code = text(envelope?.code)
  const message = text(envelope?.message) ?? `HTTP ${answer.status}`
  // A code of a newer hub is not dropped: it is kept in the message.
  const known = isApiErrorCode(code) ? code : undefined
  return new ApiError(
    answer.status,
    method,
    url,
    known,
    text(envelope?.requestId) ?? answer.headers.get('x-request-id') ?? undefined,
    Array.isArray(envelope?.details) ? (envelope.details as Issue[]) : undefined,
    code !== undefined && known === undefined ? `${code}: ${message}` : message,
  )
}
