// `printhub doctor`: what a technician checks when a hub misbehaves, each answered in plain words.
// Read-only: it opens the database for reading and touches nothing else but a test file. Each check
// is in the file of what it checks; this runs them in order.
import { StoreInspection } from '../store/inspection.ts'
import { confinementOf } from '../transports/confine.ts'
import { clock, clockAgainstJobs } from './clock.ts'
import { dataDirectory } from './data-directory.ts'
import { diskWearFinding } from './disk-wear.ts'
import type { DiskWear } from '../platform/disk-wear.ts'
import { databaseIntegrity } from './database.ts'
import type { Finding } from './finding.ts'
import { deviceAccess, type MachineFacts, platform } from './machine.ts'
import { port } from './port.ts'
import { hubPrinters, printerReachable } from './printers.ts'

export type { Finding, Verdict } from './finding.ts'
export type { MachineFacts } from './machine.ts'

export interface DoctorOptions {
  dataDir: string
  host: string
  port: number
  /** The server ID the hub is given (PRINTHUB_SERVER_ID), when it is; otherwise the stored one is the hub's. */
  serverId?: string
  /** The hub's minimum free space in MB (PRINTHUB_MIN_FREE_MB, the saved setting, or the default). */
  minFreeMb: number
  now: number
  /** Facts of the machine, read by the caller (injected so each check is testable). */
  machine: MachineFacts
  /** What the kernel says of the data directory's disk, read by the caller; undefined when it says nothing. */
  disk?: DiskWear
}

export async function diagnose(options: DoctorOptions): Promise<Finding[]> {
  const findings = [
    platform(options.machine),
    clock(options.now),
    dataDirectory(options.dataDir, options.minFreeMb),
    diskWearFinding(options.disk),
  ]
  const database = StoreInspection.open(options.dataDir)
  try {
    findings.push(databaseIntegrity(database, options.dataDir), ...clockAgainstJobs(database, options.now))
    findings.push(await port(options, database))
    findings.push(deviceAccess(options.machine))
    if (database)
      for (const printer of hubPrinters(database))
        findings.push(await printerReachable(printer, confinementOf(options.dataDir, [options.port])))
  } finally {
    database?.close()
  }
  return findings
}
