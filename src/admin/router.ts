import { Elysia } from 'elysia'
import { ADMIN_API_PREFIX } from '../protocol/admin-api.ts'
import type { Store } from '../store/store.ts'
import { authenticateAdmin } from './auth.ts'

/** Routes of the admin API that need a signed-in admin (or an admin token): all but signing in. */
export function adminRouter(store: Store) {
  return new Elysia({ prefix: ADMIN_API_PREFIX }).onBeforeHandle(({ request }) => {
    authenticateAdmin(store, request)
  })
}
