// What every HTTP route of the hub shares: a request ID, the headers every answer carries, the
// request log, and errors answered in the envelope (a bug is logged and answered without internals).
import { Elysia } from 'elysia'
import { describeError, type Logger } from '../platform/log.ts'
import { isStorageError } from '../sqlite/errors.ts'
import { StoreUnavailableError } from '../storage/unavailable.ts'
import { attachBodyBudget, BodyBudget } from './body-budget.ts'
import { ApiError, errorBody, notFound, storageFull } from './errors.ts'
import { remoteAddress } from './failure-rate-limit.ts'

/** One request as the log records it: the path only, never a query, header or body. */
export interface RequestLogEntry {
  method: string
  path: string
  status: number
  ms: number
  requestId: string
}

export type RequestLog = (entry: RequestLogEntry) => void

export function formatRequestLog(entry: RequestLogEntry): string {
  return `${entry.method} ${entry.path} ${entry.status} ${entry.ms.toFixed(1)}ms ${entry.requestId}`
}

/**
 * The request's line in the log: `request=ID METHOD PATH STATUS MSms` (a warning when the hub
 * failed it: 5xx); with `serve --json`, the `request` event as it always was.
 */
export function logRequest(log: Logger, entry: RequestLogEntry): void {
  const msg = `${entry.method} ${entry.path} ${entry.status} ${entry.ms.toFixed(1)}ms`
  log[entry.status >= 500 ? 'warn' : 'info'](
    msg,
    { request: entry.requestId },
    { event: { event: 'request', ...entry } },
  )
}

/** How much of a stack trace a line carries. */
const MAX_STACK = 2_000
/** When to try again after the database could not be reached (a cluster's PostgreSQL restarting). */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

interface RequestInfo {
  id: string
  startedAt: number
}

/** The liveness check, which monitors ask all day: no work (see `firstWork`). */
const HEALTH_PATH = '/health'

/** What the app the edges' routes are mounted on is made with. */
export interface HttpAppOptions {
  /** Where each request is told once answered. */
  log: RequestLog
  /** Paths whose errors are answered in OpenPrinter's closed envelope, which stock agents parse. */
  openPrinterPaths: ReadonlySet<string>
  /** Where internal errors are told. */
  errors: Logger
  /** Called once, with the first request that is not a liveness check. */
  firstWork?: () => void
  /** Memory held by request bodies still arriving, bounded in all and per caller (the default limits unless given). */
  bodies?: BodyBudget
}

/**
 * The app the edges' routes are mounted on. Paths in `openPrinterPaths` answer errors in
 * OpenPrinter's closed envelope, which stock agents parse. `firstWork` is called once, with the
 * first request that is not a liveness check.
 */
export function httpApp({ log, openPrinterPaths, errors, firstWork, bodies = new BodyBudget() }: HttpAppOptions) {
  const requests = new WeakMap<Request, RequestInfo>()
  let beforeWork = firstWork
  // normalize: false and our own body reader: nothing is coerced or silently dropped.
  return new Elysia({ normalize: false })
    .onRequest(({ request, set, server }) => {
      if (beforeWork && new URL(request.url).pathname !== HEALTH_PATH) {
        const first = beforeWork
        beforeWork = undefined
        first()
      }
      const info = { id: `req_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`, startedAt: performance.now() }
      requests.set(request, info)
      if (request.method !== 'GET' && request.method !== 'HEAD')
        attachBodyBudget(request, bodies, () => remoteAddress(request, server))
      set.headers['x-request-id'] = info.id
      set.headers['cache-control'] = 'no-store'
      set.headers['x-content-type-options'] = 'nosniff'
    })
    .onError(({ error, code, request, set }) => {
      const requestId = requests.get(request)?.id ?? 'unknown'
      let apiError: ApiError
      if (error instanceof ApiError) apiError = error
      else if (code === 'NOT_FOUND') apiError = notFound('No such route.')
      // The cluster's database is away: the change may or may not have been made, never said done.
      else if (error instanceof StoreUnavailableError) {
        errors
          .for('store')
          .warn(
            'the database cannot be reached now',
            { request: requestId, error: describeError(error) },
            { limit: 'store unavailable' },
          )
        apiError = new ApiError('service_unavailable', 'The hub cannot reach its database now; try again shortly.', {
          headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
        })
      }
      // The disk filled up under a write: rolled back, and said as it is.
      else if (isStorageError(error)) {
        errors
          .for('store')
          .error(
            'storage full: the change was rolled back',
            { request: requestId, error: describeError(error) },
            { limit: 'storage full' },
          )
        apiError = storageFull()
      } else {
        // A bug or a broken disk: log what happened (never the request's headers or body), answer without internals.
        const stack = error instanceof Error ? error.stack?.slice(0, MAX_STACK) : undefined
        errors.error(
          'internal error',
          { request: requestId, error: describeError(error), stack },
          { limit: `internal ${describeError(error)}` },
        )
        apiError = new ApiError('server_error', 'The request could not be completed.')
      }
      set.status = apiError.status
      Object.assign(set.headers, apiError.headers)
      return errorBody(apiError, requestId, openPrinterPaths.has(new URL(request.url).pathname))
    })
    .onAfterResponse(({ request, set }) => {
      const info = requests.get(request)
      log({
        method: request.method,
        path: new URL(request.url).pathname,
        status: Number(set.status ?? 200),
        ms: info ? performance.now() - info.startedAt : 0,
        requestId: info?.id ?? 'unknown',
      })
    })
}
