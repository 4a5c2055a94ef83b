// The HTTP application: request IDs, the request log, the error envelope, and the routes: the
// public API, the agent protocol, and the dashboard with its admin API.
import { Elysia } from 'elysia'
import { adminApp } from '../admin/admin-app.ts'
import type { AdminContext } from '../admin/context.ts'
import { gatewayRoute } from '../api/routes/gateway.ts'
import { PAIRING_PATH } from '../protocol/discovery.ts'
import { ApiError, errorBody } from '../http/errors.ts'
import { discoveryRoutes } from '../api/routes/discovery.ts'
import { healthRoutes } from '../api/routes/health.ts'
import { jobRoutes } from '../api/routes/jobs.ts'
import { pairingRoutes } from '../api/routes/pairing.ts'

/** Routes of the OpenPrinter protocol answer errors in its closed envelope, which stock agents parse. */
const OPENPRINTER_ROUTES = new Set([PAIRING_PATH])

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

interface RequestInfo {
  id: string
  startedAt: number
}

export function createApp(context: AdminContext, log: RequestLog) {
  const requests = new WeakMap<Request, RequestInfo>()
  return (
    // normalize: false and our own body reader: nothing is coerced or silently dropped.
    new Elysia({ normalize: false })
      .onRequest(({ request, set }) => {
        const info = { id: `req_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`, startedAt: performance.now() }
        requests.set(request, info)
        set.headers['x-request-id'] = info.id
        set.headers['cache-control'] = 'no-store'
        set.headers['x-content-type-options'] = 'nosniff'
      })
      .onError(({ error, code, request, set }) => {
        const requestId = requests.get(request)?.id ?? 'unknown'
        let apiError: ApiError
        if (error instanceof ApiError) apiError = error
        else if (code === 'NOT_FOUND') apiError = new ApiError(404, 'not_found', 'No such route.')
        else {
          // A bug or a broken disk: log what happened, answer without internals.
          console.error(`${requestId} internal error:`, error)
          apiError = new ApiError(500, 'server_error', 'The request could not be completed.')
        }
        set.status = apiError.status
        Object.assign(set.headers, apiError.headers)
        return errorBody(apiError, requestId, OPENPRINTER_ROUTES.has(new URL(request.url).pathname))
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
      .use(healthRoutes())
      .use(discoveryRoutes(context))
      .use(pairingRoutes(context))
      .use(jobRoutes(context))
      .use(gatewayRoute(context.gateway))
      .use(adminApp(context))
  )
}
