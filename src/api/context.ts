import type { Gateway } from '../gateway/gateway.ts'
import type { Capacity } from '../services/jobs.ts'
import type { ProjectPrinter } from '../protocol/project-printer.ts'
import type { SubmissionQuota } from '../http/submission-quota.ts'
import type { FailureCountsOf } from '../domain/failure-limit.ts'
import type { HubServices } from '../services/hub-services.ts'

/** What the public API, discovery, pairing and the gateway's socket work with. */
export interface ApiContext {
  /** Every operation that changes the hub's data, and what the API reads. */
  services: HubServices
  serverId: string
  /** The server's display name as it is now (the dashboard may change it while the hub runs). */
  serverName(): string
  serverVersion: string
  challengeTtlSeconds: number
  now: () => number
  /** Where agent connections go. */
  gateway: Gateway
  /** Whether the data directory has room for new jobs (the disk guard). */
  capacity: Capacity
  /** How fast each API key may submit jobs. */
  submissions: SubmissionQuota
  /** Every printer's state now, as a project's printers are listed (read from the database on a cluster's node). */
  board: { projectPrinters(projectId: string, now: number): ProjectPrinter[] | Promise<ProjectPrinter[]> }
  /**
   * Where failed attempts of what is guessed by trying (pairing codes) are counted, by what is counted: in memory by
   * default (one hub), in the database on a cluster's node, so that the limit holds across nodes.
   */
  failureCounts?: FailureCountsOf
  /** Aborted when the hub stops: open event streams end. */
  stopping: AbortSignal
}
