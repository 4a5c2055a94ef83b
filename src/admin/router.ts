// The routers of the admin API: each route needs a signed-in account (or its admin token) whose
// role may use it, and is told who makes a change through it (the actor: the account, and the
// address it came from), for the operation of services/ that makes the change and writes it to the
// audit log.
import { Elysia } from 'elysia'
import { ApiError } from '../http/errors.ts'
import { remoteAddress } from '../http/failure-rate-limit.ts'
import { ADMIN_API_PREFIX, type AdminRole, roleAllows } from '../protocol/admin-api.ts'
import type { HubServices } from '../services/hub-services.ts'
import { accountActor } from '../services/actor.ts'
import { authenticateAdmin } from './auth.ts'

/** The least role that may read (GET) and change (every other method) through a router's routes. */
export interface RolePolicy {
  read: AdminRole
  write: AdminRole
}

export const STAFF_READS: RolePolicy = { read: 'staff', write: 'technician' }
export const STAFF: RolePolicy = { read: 'staff', write: 'staff' }
export const TECHNICIAN: RolePolicy = { read: 'technician', write: 'technician' }
export const OWNER: RolePolicy = { read: 'owner', write: 'owner' }

const READS = new Set(['GET', 'HEAD'])

export function adminRouter(services: HubServices, policy: RolePolicy) {
  return new Elysia({ prefix: ADMIN_API_PREFIX })
    .derive(async ({ request, server }) => {
      const admin = await authenticateAdmin(services, request)
      // Who makes a change through this request, for the operation's audit entry.
      return { admin, actor: accountActor(admin.user, remoteAddress(request, server)) }
    })
    .onBeforeHandle(({ request, admin }) => {
      const needed = READS.has(request.method) ? policy.read : policy.write
      if (!roleAllows(admin.user.role, needed))
        throw new ApiError(
          'forbidden',
          `This needs the role ${needed} or higher; ${admin.user.name} is ${admin.user.role}.`,
        )
    })
}
