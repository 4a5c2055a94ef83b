import { Elysia } from 'elysia'
import type { HealthResult } from '../../protocol/health.ts'
import type { Capacity } from '../../services/jobs.ts'

/**
 * The response header that says which hub answered (its server ID, public in discovery too), so
 * `printhub doctor` can tell this hub from another one on the port. The body stays as it was.
 */
export const SERVER_ID_HEADER = 'x-printhub-server-id'

/**
 * Whether the hub can do its work: it answers, and its disk has room for new jobs (503 with the
 * reason when not). It says nothing about agents or printers.
 */
export const healthRoutes = (serverId: string, capacity: Capacity) =>
  new Elysia().get('/health', ({ set }): HealthResult => {
    set.headers[SERVER_ID_HEADER] = serverId
    const room = capacity.now()
    if (!room.full) return { ok: true, service: 'printhub' }
    set.status = 503
    return {
      ok: false,
      service: 'printhub',
      reason:
        `The hub's disk has ${room.freeMb} MB free, under its minimum of ` +
        `${room.minFreeMb} MB: it takes no new job until there is room.`,
    }
  })
