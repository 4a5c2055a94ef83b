// The hub's HTTP application: the shared request handling (http/), and on it the edges side by
// side: the public API with discovery, pairing and the agents' gateway; the admin API; the
// dashboard's pages; the printers that poll for their jobs.
import { adminApi, sessionAccount } from '../admin/admin-app.ts'
import type { AdminContext } from '../admin/context.ts'
import { publicApi } from '../api/api-app.ts'
import type { ApiContext } from '../api/context.ts'
import { dashboardPages } from '../dashboard/routes.ts'
import { httpApp, type RequestLog } from '../http/app.ts'
import type { Logger } from '../platform/log.ts'
import { PAIRING_PATH } from '../protocol/discovery.ts'
import { cloudPrntRoutes } from '../polling/cloudprnt.ts'
import { epsonSdpRoutes } from '../polling/epson-sdp.ts'
import type { CloudPrnt } from '../transports/cloudprnt.ts'
import type { EpsonSdp } from '../transports/epson-sdp.ts'

/** Routes of the OpenPrinter protocol answer errors in its closed envelope, which stock agents parse. */
const OPENPRINTER_PATHS = new Set([PAIRING_PATH])

/** `requests`: the request log; `errors`: where internal errors are told (component api); `firstWork`: see httpApp. */
export function hubApp(
  api: ApiContext,
  admin: AdminContext,
  polling: { cloudPrnt: CloudPrnt; epsonSdp: EpsonSdp },
  requests: RequestLog,
  errors: Logger,
  firstWork?: () => void,
) {
  return httpApp(requests, OPENPRINTER_PATHS, errors, firstWork)
    .use(publicApi(api))
    .use(adminApi(admin))
    .use(cloudPrntRoutes(polling.cloudPrnt))
    .use(epsonSdpRoutes(polling.epsonSdp))
    .use(dashboardPages({ account: (request) => sessionAccount(admin, request) }))
}
