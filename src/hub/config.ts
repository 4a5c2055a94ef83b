// The hub's configuration, resolved once from flags, then PRINTHUB_* environment variables, then
// defaults, into a frozen object. A bad value stops start-up with a message naming the setting.
import { accessSync, constants } from 'node:fs'
import { resolve } from 'node:path'
import { brandNameRule } from '../protocol/discovery.ts'
import { CHALLENGE_TTL_SECONDS } from '../protocol/limits.ts'
import { validate } from '../protocol/rules.ts'
import { identifier, shortString } from '../protocol/values.ts'
import {
  ACK_TIMEOUT_MS,
  BACKUP_KEEP,
  CLUSTER_LEASE_SECONDS,
  backupDirProblem,
  DEFAULT_SERVER_NAME,
  EDITABLE_SETTINGS,
  type EditableSetting,
  type EditableSettings,
  HEARTBEAT_INTERVAL_MS,
  HEARTBEAT_TIMEOUT_MS,
  KEY_JOBS_PER_MINUTE,
  KEY_MB_PER_MINUTE,
  HISTORY_MB_PER_PROJECT,
  MAX_OPEN_JOBS,
  MIN_FREE_MB,
  type Range,
  RETENTION_DAYS,
  RETRY_INITIAL_MS,
  RETRY_MAX_MS,
  retryDelaysProblem,
  STATUS_POLL_MS,
  FAILOVER_AFTER_MS,
  CLOUDPRNT_CONFIRM_MS,
} from '../domain/settings.ts'
import { VERSION } from '../domain/version.ts'

export interface HubConfig {
  host: string
  port: number
  dataDir: string
  /** Replaces the server ID stored at first start, in discovery and pairing answers. */
  serverId: string | undefined
  serverName: string
  serverVersion: string
  challengeTtlSeconds: number
  maxOpenJobsPerProject: number
  /** Gateway heartbeats: how often the hub asks, and how long an agent has to answer. */
  heartbeatIntervalMs: number
  heartbeatTimeoutMs: number
  /** How long an agent has to confirm it stored a job before the attempt counts as failed. */
  ackTimeoutMs: number
  /** Retries of failed attempts wait retryInitialMs, doubling up to retryMaxMs (with jitter). */
  retryInitialMs: number
  retryMaxMs: number
  /** How often the built-in agent asks its idle network printers for their status. */
  statusPollMs: number
  /** How long a printer of a failover destination may be unable to print before its waiting jobs move on. */
  failoverAfterMs: number
  /** How long a CloudPRNT printer that fetched a job may take to confirm it. */
  cloudPrntConfirmMs: number
  /** Finished jobs are deleted once older than this many days. */
  retentionDays: number
  /** Past this many MB of finished jobs' documents, a project's oldest finished jobs are deleted. */
  historyMbPerProject: number
  /** Below this much free space (MB) in the data directory, new jobs are refused. */
  minFreeMb: number
  /** Where the hub writes a backup every day (an absolute path); empty: none. */
  backupDir: string
  /** How many of its daily backups the hub keeps. */
  backupKeep: number
  /** How long a cluster node holds an agent or a printer without renewing it (a cluster's setting). */
  clusterLeaseSeconds: number
  /** The settings the dashboard may change that the environment set: those stay as set. */
  pinned: readonly EditableSetting[]
  /** What one API key may submit a minute: jobs, and MB of documents. */
  keyJobsPerMinute: number
  keyMbPerMinute: number
  /** HTTPS: the certificate chain and private key files (PEM); undefined: plain HTTP, the LAN's default. */
  tls: { certFile: string; keyFile: string } | undefined
}

export class ConfigError extends Error {}

/** The settings the dashboard may change, as the configuration resolved them. */
export function editableSettingsOf(config: Readonly<HubConfig>): EditableSettings {
  return {
    serverName: config.serverName,
    retryInitialMs: config.retryInitialMs,
    retryMaxMs: config.retryMaxMs,
    maxOpenJobsPerProject: config.maxOpenJobsPerProject,
    retentionDays: config.retentionDays,
    historyMbPerProject: config.historyMbPerProject,
    minFreeMb: config.minFreeMb,
    backupDir: config.backupDir,
    backupKeep: config.backupKeep,
    clusterLeaseSeconds: config.clusterLeaseSeconds,
  }
}

/** Flag values as given on the command line; undefined when not given. */
export interface ConfigFlags {
  host?: string
  port?: string
  data?: string
  tlsCert?: string
  tlsKey?: string
}

type Env = Record<string, string | undefined>

export const DEFAULTS = {
  host: '0.0.0.0',
  port: 8080,
  dataDir: './data',
} as const

function integerSetting(name: string, raw: string | undefined, fallback: number, range: Range): number {
  if (raw === undefined || raw === '') return fallback
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw new ConfigError(`${name} must be an integer from ${range.min} to ${range.max} (got "${raw}")`)
  }
  return value
}

function textSetting(
  name: string,
  raw: string | undefined,
  fallback: string | undefined,
  rule: typeof shortString,
): string | undefined {
  if (raw === undefined || raw === '') return fallback
  const result = validate(rule, raw)
  if (!result.ok) throw new ConfigError(`${name} ${result.issues[0]!.message}`)
  return raw
}

/** A directory given in the environment: relative to where the hub starts, kept absolute. */
function directorySetting(name: string, raw: string | undefined): string {
  if (raw === undefined || raw === '') return ''
  const path = resolve(raw)
  const problem = backupDirProblem(path)
  if (problem) throw new ConfigError(`${name} ${problem}`)
  return path
}

/** Both files or neither, each one readable: a hub that cannot serve HTTPS as asked does not start on HTTP instead. */
function tlsSetting(certFile: string | undefined, keyFile: string | undefined): HubConfig['tls'] {
  if (certFile === undefined && keyFile === undefined) return undefined
  if (certFile === undefined || keyFile === undefined)
    throw new ConfigError('HTTPS needs both --tls-cert and --tls-key (PRINTHUB_TLS_CERT, PRINTHUB_TLS_KEY)')
  for (const [name, file] of [
    ['--tls-cert', certFile],
    ['--tls-key', keyFile],
  ] as const) {
    try {
      accessSync(file, constants.R_OK)
    } catch (error) {
      throw new ConfigError(`${name} ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`)
    }
  }
  return { certFile: resolve(certFile), keyFile: resolve(keyFile) }
}

/** The data directory alone, for commands that only read or write the store. */
export function resolveDataDir(flags: { data?: string }, env: Env): string {
  return flags.data ?? (env.PRINTHUB_DATA_DIR || DEFAULTS.dataDir)
}

export function resolveConfig(flags: ConfigFlags, env: Env): Readonly<HubConfig> {
  const config: HubConfig = {
    host: flags.host ?? (env.PRINTHUB_HOST || DEFAULTS.host),
    port: integerSetting(
      flags.port === undefined ? 'PRINTHUB_PORT' : '--port',
      flags.port ?? env.PRINTHUB_PORT,
      DEFAULTS.port,
      { min: 0, max: 65535 },
    ),
    dataDir: resolveDataDir(flags, env),
    serverId: textSetting('PRINTHUB_SERVER_ID', env.PRINTHUB_SERVER_ID, undefined, identifier),
    serverName: textSetting('PRINTHUB_SERVER_NAME', env.PRINTHUB_SERVER_NAME, DEFAULT_SERVER_NAME, brandNameRule)!,
    serverVersion: textSetting('PRINTHUB_SERVER_VERSION', env.PRINTHUB_SERVER_VERSION, VERSION, shortString)!,
    challengeTtlSeconds: integerSetting(
      'PRINTHUB_CHALLENGE_TTL_SECONDS',
      env.PRINTHUB_CHALLENGE_TTL_SECONDS,
      CHALLENGE_TTL_SECONDS.default,
      CHALLENGE_TTL_SECONDS,
    ),
    maxOpenJobsPerProject: integerSetting(
      'PRINTHUB_MAX_OPEN_JOBS',
      env.PRINTHUB_MAX_OPEN_JOBS,
      MAX_OPEN_JOBS.default,
      MAX_OPEN_JOBS,
    ),
    heartbeatIntervalMs: integerSetting(
      'PRINTHUB_HEARTBEAT_INTERVAL_MS',
      env.PRINTHUB_HEARTBEAT_INTERVAL_MS,
      HEARTBEAT_INTERVAL_MS.default,
      HEARTBEAT_INTERVAL_MS,
    ),
    heartbeatTimeoutMs: integerSetting(
      'PRINTHUB_HEARTBEAT_TIMEOUT_MS',
      env.PRINTHUB_HEARTBEAT_TIMEOUT_MS,
      HEARTBEAT_TIMEOUT_MS.default,
      HEARTBEAT_TIMEOUT_MS,
    ),
    ackTimeoutMs: integerSetting(
      'PRINTHUB_ACK_TIMEOUT_MS',
      env.PRINTHUB_ACK_TIMEOUT_MS,
      ACK_TIMEOUT_MS.default,
      ACK_TIMEOUT_MS,
    ),
    retryInitialMs: integerSetting(
      'PRINTHUB_RETRY_INITIAL_MS',
      env.PRINTHUB_RETRY_INITIAL_MS,
      RETRY_INITIAL_MS.default,
      RETRY_INITIAL_MS,
    ),
    retryMaxMs: integerSetting('PRINTHUB_RETRY_MAX_MS', env.PRINTHUB_RETRY_MAX_MS, RETRY_MAX_MS.default, RETRY_MAX_MS),
    statusPollMs: integerSetting(
      'PRINTHUB_STATUS_POLL_MS',
      env.PRINTHUB_STATUS_POLL_MS,
      STATUS_POLL_MS.default,
      STATUS_POLL_MS,
    ),
    failoverAfterMs: integerSetting(
      'PRINTHUB_FAILOVER_AFTER_MS',
      env.PRINTHUB_FAILOVER_AFTER_MS,
      FAILOVER_AFTER_MS.default,
      FAILOVER_AFTER_MS,
    ),
    cloudPrntConfirmMs: integerSetting(
      'PRINTHUB_CLOUDPRNT_CONFIRM_MS',
      env.PRINTHUB_CLOUDPRNT_CONFIRM_MS,
      CLOUDPRNT_CONFIRM_MS.default,
      CLOUDPRNT_CONFIRM_MS,
    ),
    retentionDays: integerSetting(
      'PRINTHUB_RETENTION_DAYS',
      env.PRINTHUB_RETENTION_DAYS,
      RETENTION_DAYS.default,
      RETENTION_DAYS,
    ),
    historyMbPerProject: integerSetting(
      'PRINTHUB_HISTORY_MB',
      env.PRINTHUB_HISTORY_MB,
      HISTORY_MB_PER_PROJECT.default,
      HISTORY_MB_PER_PROJECT,
    ),
    minFreeMb: integerSetting('PRINTHUB_MIN_FREE_MB', env.PRINTHUB_MIN_FREE_MB, MIN_FREE_MB.default, MIN_FREE_MB),
    backupDir: directorySetting('PRINTHUB_BACKUP_DIR', env.PRINTHUB_BACKUP_DIR),
    backupKeep: integerSetting('PRINTHUB_BACKUP_KEEP', env.PRINTHUB_BACKUP_KEEP, BACKUP_KEEP.default, BACKUP_KEEP),
    clusterLeaseSeconds: integerSetting(
      'PRINTHUB_CLUSTER_LEASE_SECONDS',
      env.PRINTHUB_CLUSTER_LEASE_SECONDS,
      CLUSTER_LEASE_SECONDS.default,
      CLUSTER_LEASE_SECONDS,
    ),
    pinned: (Object.keys(EDITABLE_SETTINGS) as EditableSetting[]).filter((name) => env[EDITABLE_SETTINGS[name]]),
    keyJobsPerMinute: integerSetting(
      'PRINTHUB_KEY_JOBS_PER_MINUTE',
      env.PRINTHUB_KEY_JOBS_PER_MINUTE,
      KEY_JOBS_PER_MINUTE.default,
      KEY_JOBS_PER_MINUTE,
    ),
    keyMbPerMinute: integerSetting(
      'PRINTHUB_KEY_MB_PER_MINUTE',
      env.PRINTHUB_KEY_MB_PER_MINUTE,
      KEY_MB_PER_MINUTE.default,
      KEY_MB_PER_MINUTE,
    ),
    tls: tlsSetting(
      flags.tlsCert ?? (env.PRINTHUB_TLS_CERT || undefined),
      flags.tlsKey ?? (env.PRINTHUB_TLS_KEY || undefined),
    ),
  }
  if (config.heartbeatTimeoutMs <= config.heartbeatIntervalMs)
    throw new ConfigError('PRINTHUB_HEARTBEAT_TIMEOUT_MS must be longer than PRINTHUB_HEARTBEAT_INTERVAL_MS')
  if (retryDelaysProblem(config))
    throw new ConfigError('PRINTHUB_RETRY_MAX_MS must be at least PRINTHUB_RETRY_INITIAL_MS')
  return Object.freeze(config)
}
