// The hub's configuration, resolved once from flags, then PRINTHUB_* environment variables, then
// defaults, into a frozen object. A bad value stops start-up with a message naming the setting.
import packageJson from '../../package.json'
import { brandNameRule } from '../protocol/discovery.ts'
import { CHALLENGE_TTL_SECONDS } from '../protocol/limits.ts'
import { validate } from '../protocol/rules.ts'
import { identifier, shortString } from '../protocol/values.ts'

export const VERSION: string = packageJson.version

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
}

export class ConfigError extends Error {}

/** Flag values as given on the command line; undefined when not given. */
export interface ConfigFlags {
  host?: string
  port?: string
  data?: string
}

type Env = Record<string, string | undefined>

export const DEFAULTS = {
  host: '0.0.0.0',
  port: 8080,
  dataDir: './data',
  serverName: 'printhub',
  maxOpenJobsPerProject: 10_000,
} as const

/** True for the wildcard addresses that listen on every interface of the machine. */
export function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::'
}

export const MAX_OPEN_JOBS_RANGE = { min: 1, max: 1_000_000 } as const

function integerSetting(name: string, raw: string | undefined, fallback: number, range: { min: number; max: number }): number {
  if (raw === undefined || raw === '') return fallback
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw new ConfigError(`${name} must be an integer from ${range.min} to ${range.max} (got "${raw}")`)
  }
  return value
}

function textSetting(name: string, raw: string | undefined, fallback: string | undefined, rule: typeof shortString): string | undefined {
  if (raw === undefined || raw === '') return fallback
  const result = validate(rule, raw)
  if (!result.ok) throw new ConfigError(`${name} ${result.issues[0]!.message}`)
  return raw
}

/** The data directory alone, for commands that only read or write the store. */
export function resolveDataDir(flags: { data?: string }, env: Env): string {
  return flags.data ?? (env.PRINTHUB_DATA_DIR || DEFAULTS.dataDir)
}

export function resolveConfig(flags: ConfigFlags, env: Env): Readonly<HubConfig> {
  return Object.freeze({
    host: flags.host ?? (env.PRINTHUB_HOST || DEFAULTS.host),
    port: integerSetting(flags.port === undefined ? 'PRINTHUB_PORT' : '--port', flags.port ?? env.PRINTHUB_PORT, DEFAULTS.port, { min: 0, max: 65535 }),
    dataDir: resolveDataDir(flags, env),
    serverId: textSetting('PRINTHUB_SERVER_ID', env.PRINTHUB_SERVER_ID, undefined, identifier),
    serverName: textSetting('PRINTHUB_SERVER_NAME', env.PRINTHUB_SERVER_NAME, DEFAULTS.serverName, brandNameRule)!,
    serverVersion: textSetting('PRINTHUB_SERVER_VERSION', env.PRINTHUB_SERVER_VERSION, VERSION, shortString)!,
    challengeTtlSeconds: integerSetting('PRINTHUB_CHALLENGE_TTL_SECONDS', env.PRINTHUB_CHALLENGE_TTL_SECONDS, CHALLENGE_TTL_SECONDS.default, CHALLENGE_TTL_SECONDS),
    maxOpenJobsPerProject: integerSetting('PRINTHUB_MAX_OPEN_JOBS', env.PRINTHUB_MAX_OPEN_JOBS, DEFAULTS.maxOpenJobsPerProject, MAX_OPEN_JOBS_RANGE),
  })
}
