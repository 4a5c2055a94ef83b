// The admin API's OpenAPI document, for any account signed in (or its admin token): it holds no
// secret, but says everything the admin API can do, which is nobody's business but the hub's staff.
import { ADMIN_OPENAPI_PATH } from '../../protocol/admin/index.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, STAFF } from '../router.ts'

export function openApiRoutes({ services }: AdminContext) {
  return adminRouter(services, STAFF).get(ADMIN_OPENAPI_PATH, async () =>
    (await import('../openapi.ts')).adminOpenApiDocument(),
  )
}
