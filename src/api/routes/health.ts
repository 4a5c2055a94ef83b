import { Elysia } from 'elysia'
import type { HealthResult } from '../../protocol/health.ts'

/**
 * The response header that says which hub answered (its server ID, public in discovery too), so
 * `printhub doctor` can tell this hub from another one on the port. The body stays as it was.
 */
export const SERVER_ID_HEADER = 'x-printhub-server-id'

/** Liveness only: it says nothing about agents or printers. */
export const healthRoutes = (serverId: string) =>
  new Elysia().get('/health', ({ set }): HealthResult => {
    set.headers[SERVER_ID_HEADER] = serverId
    return { ok: true, service: 'printhub' }
  })
