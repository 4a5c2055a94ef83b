import type { BackupOutcome } from '../services/backup.ts'
import type { Logger } from '../platform/log.ts'
import type { SettingName } from '../protocol/admin/settings.ts'
import type { SettingsOutcome, EditableSettings } from '../services/live-settings.ts'
import type { ReceiptImages } from '../workers/receipt-images.ts'
import type { HubOnTheLan } from '../services/lan.ts'
import type { DiskFacts } from '../services/overview.ts'
import type { FailureCountsOf } from '../domain/failure-limit.ts'
import type { Liveness } from '../services/printer-states.ts'
import type { HubServices } from '../services/hub-services.ts'
import type { Actor } from '../services/actor.ts'
import type { Confinement } from '../transports/confine.ts'
import type { DetectedPrinter } from '../transports/detect.ts'
import type { PollingPrinterView } from '../transports/polling.ts'

/** The settings the dashboard changes while the hub runs. */
export interface SettingsPort {
  readonly values: Readonly<EditableSettings>
  /** The settings the hub's environment set: they stay as set. */
  readonly pinned: readonly SettingName[]
  update(change: Record<string, unknown>, actor: Actor): Promise<SettingsOutcome>
}

/** What the admin API works with. */
export interface AdminContext {
  /** Every operation that changes the hub's data, and what the admin API reads. */
  services: HubServices
  settings: SettingsPort
  serverId: string
  now: () => number
  /** When the hub started, in milliseconds since the epoch. */
  startedAt: number
  /** How people on the LAN reach the hub (its name, URL, addresses), on the port it listens on. */
  lan(): HubOnTheLan
  /** What the kernel says of the data's disk (its writes, the card's wear); undefined where it says nothing. */
  disk(): DiskFacts | undefined
  /**
   * Who is connected now, and what the hub's printers said of themselves: one hub's gateway and built-in agent, or a
   * cluster's leases and recorded states (read once per answer).
   */
  liveness(): Promise<Liveness>
  /** Aborted when the hub stops: open event streams end. */
  stopping: AbortSignal
  /** The printers plugged into this machine. */
  detect(): Promise<{ printers: DetectedPrinter[]; usbError: string | null }>
  /**
   * A fresh backup of the hub's data for the admin to download (the route removes the file once sent); undefined while
   * another is being made.
   */
  downloadBackup(): Promise<BackupOutcome> | undefined
  /**
   * Where failed sign-ins are counted: in memory by default (one hub), in the database on a cluster's node, so that
   * the limit holds across nodes.
   */
  failureCounts?: FailureCountsOf
  /** Where the admin edge says what people should know (sign-in lockouts). */
  log: Logger
  /** Pictures of receipts, drawn off the event loop and cached. */
  receipts: ReceiptImages
  /** What the hub's own printers may reach (checked when one is added or changed). */
  printerConfinement(): Confinement
  /** The printers seen polling the hub (CloudPRNT), adopted or waiting to be, most recent first. */
  pollingPrinters(): PollingPrinterView[]
}
