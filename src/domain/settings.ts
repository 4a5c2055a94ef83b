// The hub's tunable settings: the range of each, its default, and which of them the dashboard may
// change while the hub runs (with the environment variable that pins each). The configuration
// (hub/config.ts) and the dashboard's settings (services/live-settings.ts) both check against these.
import type { HubSettings, SettingName } from '../protocol/admin/settings.ts'

export interface Range {
  min: number
  max: number
}

export const HEARTBEAT_INTERVAL_MS = { min: 5_000, max: 300_000, default: 15_000 } as const
export const HEARTBEAT_TIMEOUT_MS = { min: 1_000, max: 120_000, default: 45_000 } as const
export const ACK_TIMEOUT_MS = { min: 1_000, max: 600_000, default: 60_000 } as const
export const RETRY_INITIAL_MS = { min: 100, max: 600_000, default: 2_000 } as const
export const RETRY_MAX_MS = { min: 100, max: 3_600_000, default: 300_000 } as const
/** How often an idle printer that answers status requests is asked how it is. */
export const STATUS_POLL_MS = { min: 200, max: 600_000, default: 2_000 } as const
/** How long a printer of a failover destination may be unable to print before its waiting jobs move on. */
export const FAILOVER_AFTER_MS = { min: 500, max: 600_000, default: 10_000 } as const
/**
 * How long a CloudPRNT printer that fetched a job may take to confirm it before the job is unconfirmed (Star suggests
 * about a minute).
 */
export const CLOUDPRNT_CONFIRM_MS = { min: 1_000, max: 600_000, default: 60_000 } as const
/** Unfinished jobs one project may have (the entitlement limit). */
export const MAX_OPEN_JOBS = { min: 1, max: 1_000_000, default: 10_000 } as const
/** How long finished jobs are kept, with their documents and timelines, in days. */
export const RETENTION_DAYS = { min: 1, max: 3_650, default: 30 } as const
/**
 * How much of its finished jobs' documents one project keeps (in MB): past it, its oldest finished
 * jobs are deleted before their time, so one busy project cannot fill the disk for the others.
 */
export const HISTORY_MB_PER_PROJECT = { min: 1, max: 1_048_576, default: 1_024 } as const
/** Below this much free space in the data directory, the hub takes no new job (in MB). */
export const MIN_FREE_MB = { min: 1, max: 1_048_576, default: 256 } as const
/** How many of its daily backups the hub keeps in the backup directory. */
export const BACKUP_KEEP = { min: 1, max: 365, default: 7 } as const
/**
 * Jobs and MB of documents one API key may submit a minute (a burst of as many at once, then
 * refilled evenly): what one application, or one stolen key, can make the hub store and print.
 */
export const KEY_JOBS_PER_MINUTE = { min: 1, max: 1_000_000, default: 1_200 } as const
export const KEY_MB_PER_MINUTE = { min: 1, max: 1_048_576, default: 64 } as const
/**
 * How long a node of a cluster holds what it drives (an agent connected to it, a printer) without renewing it, in
 * seconds: another node takes over a dead or stalled node's agents and printers about this long after it stopped.
 */
export const CLUSTER_LEASE_SECONDS = { min: 2, max: 300, default: 10 } as const
/** The longest backup directory path taken. */
export const MAX_BACKUP_DIR_LENGTH = 1_024

export const DEFAULT_SERVER_NAME = 'printhub'

/** What the dashboard's settings page changes while the hub runs, and the variable that pins each. */
export const EDITABLE_SETTINGS = {
  serverName: 'PRINTHUB_SERVER_NAME',
  retryInitialMs: 'PRINTHUB_RETRY_INITIAL_MS',
  retryMaxMs: 'PRINTHUB_RETRY_MAX_MS',
  maxOpenJobsPerProject: 'PRINTHUB_MAX_OPEN_JOBS',
  retentionDays: 'PRINTHUB_RETENTION_DAYS',
  historyMbPerProject: 'PRINTHUB_HISTORY_MB',
  minFreeMb: 'PRINTHUB_MIN_FREE_MB',
  backupDir: 'PRINTHUB_BACKUP_DIR',
  backupKeep: 'PRINTHUB_BACKUP_KEEP',
  clusterLeaseSeconds: 'PRINTHUB_CLUSTER_LEASE_SECONDS',
} as const satisfies Record<SettingName, string>
export type EditableSetting = keyof typeof EDITABLE_SETTINGS

/** Their values, as the admin API shows them (protocol/admin/settings.ts; backupDir empty: no scheduled backups). */
export type EditableSettings = HubSettings

/** The editable settings that are text rather than numbers. */
export type TextSetting = 'serverName' | 'backupDir'

/** The numeric editable settings and their ranges. */
export const EDITABLE_RANGES: Record<Exclude<EditableSetting, TextSetting>, Range> = {
  retryInitialMs: RETRY_INITIAL_MS,
  retryMaxMs: RETRY_MAX_MS,
  maxOpenJobsPerProject: MAX_OPEN_JOBS,
  retentionDays: RETENTION_DAYS,
  historyMbPerProject: HISTORY_MB_PER_PROJECT,
  minFreeMb: MIN_FREE_MB,
  backupKeep: BACKUP_KEEP,
  clusterLeaseSeconds: CLUSTER_LEASE_SECONDS,
}

/** The rule of the backup directory: empty (no scheduled backups) or an absolute path. */
export function backupDirProblem(value: string): string | undefined {
  if (value === '') return undefined
  if (!value.startsWith('/'))
    return 'must be an absolute path (like /var/backups/printhub), or empty for no scheduled backups'
  if (value.length > MAX_BACKUP_DIR_LENGTH) return `must be at most ${MAX_BACKUP_DIR_LENGTH} characters`
  // Control characters would make log lines and file listings lie.
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain control characters'
  return undefined
}

/** The rule across two settings: the longest retry delay is at least the first. */
export function retryDelaysProblem(settings: { retryInitialMs: number; retryMaxMs: number }): string | undefined {
  return settings.retryMaxMs < settings.retryInitialMs ? 'must be at least the first retry delay' : undefined
}
