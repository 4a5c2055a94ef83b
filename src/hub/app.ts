// The hub's HTTP application: the shared request handling (http/), and on it the edges side by
// side: the public API with discovery, pairing and the agents' gateway; the admin API; the
// dashboard's pages; the printers that poll for their jobs.
import { adminApi } from '../admin/admin-app.ts'
import { sessionAccount } from '../admin/auth.ts'
import type { AdminContext } from '../admin/context.ts'
import { statfsSync } from 'node:fs'
import { diskWear, ownWrittenBytes } from '../platform/disk-wear.ts'
import { hubOnTheLan } from '../services/lan.ts'
import type { DiskFacts } from '../services/overview.ts'
import { confinementOf } from '../transports/confine.ts'
import { detectPrinters } from '../transports/detect.ts'
import { loadUsbBackend } from '../transports/usb-bulk.ts'
import type { HubConfig } from './config.ts'
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

/** What the admin API works with alike on one hub and on a cluster's node. */
export type CommonAdminParts = Pick<
  AdminContext,
  | 'log'
  | 'services'
  | 'settings'
  | 'serverId'
  | 'now'
  | 'startedAt'
  | 'lan'
  | 'disk'
  | 'detect'
  | 'printerConfinement'
  | 'receipts'
>

/** The admin API's parts every hub has: `port` says where it listens once it does. */
export function commonAdminParts(
  config: Readonly<HubConfig>,
  parts: Pick<AdminContext, 'log' | 'services' | 'settings' | 'serverId' | 'now' | 'receipts'>,
  port: () => number,
): CommonAdminParts {
  const startedAt = parts.now()
  let disk: { at: number; facts: DiskFacts | undefined } | undefined
  return {
    ...parts,
    startedAt,
    disk: () => {
      // Read again only every few minutes: the overview streamed to open dashboards carries it, and each new value
      // is a change sent to every one of them.
      if (!disk || performance.now() - disk.at >= DISK_READ_EVERY_MS)
        disk = { at: performance.now(), facts: dataDisk(config.dataDir, (parts.now() - startedAt) / 1000) }
      return disk.facts
    },
    lan: () => hubOnTheLan(parts.settings.values.serverName, config.host, port(), config.tls ? 'https' : 'http'),
    detect: () => detectPrinters(undefined, loadUsbBackend),
    // Known for sure once listening (port 0 picks one): a printer may not point at the hub itself.
    printerConfinement: () => confinementOf(config.dataDir, [port()]),
  }
}

/** How often the data's disk is read for the overview (its writes a day move slowly). */
const DISK_READ_EVERY_MS = 10 * 60_000

/** The data directory's disk: the kernel's facts, its free space, and what the hub wrote in the `seconds` it ran. */
function dataDisk(dataDir: string, seconds: number): DiskFacts | undefined {
  try {
    const wear = diskWear(dataDir)
    if (!wear) return undefined
    const { bavail, bsize } = statfsSync(dataDir)
    const freeMb = Math.floor((bavail * bsize) / (1024 * 1024))
    return { ...wear, freeMb, hubWritten: ownWrittenBytes() ?? 0, hubSeconds: seconds }
  } catch {
    return undefined
  }
}

/** Routes of the OpenPrinter protocol answer errors in its closed envelope, which stock agents parse. */
export const OPENPRINTER_PATHS: ReadonlySet<string> = new Set([PAIRING_PATH])

/** What the hub's HTTP application is made of: the edges' contexts, and how requests and errors are told. */
export interface HubAppOptions {
  api: ApiContext
  admin: AdminContext
  /** The printers that poll (none on a cluster's node yet: docs/cluster.md). */
  polling?: { cloudPrnt: CloudPrnt; epsonSdp: EpsonSdp }
  /** The request log. */
  requests: RequestLog
  /** Where internal errors are told (component api). */
  errors: Logger
  /** See httpApp. */
  firstWork?: () => void
}

export function hubApp({ api, admin, polling, requests, errors, firstWork }: HubAppOptions) {
  const app = httpApp({ log: requests, openPrinterPaths: OPENPRINTER_PATHS, errors, firstWork })
    .use(publicApi(api))
    .use(adminApi(admin))
  if (polling) app.use(cloudPrntRoutes(polling.cloudPrnt)).use(epsonSdpRoutes(polling.epsonSdp))
  return app.use(dashboardPages({ account: (request) => sessionAccount(admin.services, request) }))
}
