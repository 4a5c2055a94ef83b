// The client's configuration, resolved once: options first, then PRINTHUB_* environment variables
// where the runtime has an environment, then defaults. Anything wrong throws ConfigurationError,
// naming the setting, before any request.
import { API_KEY_PATTERN } from '../protocol/api-key.ts'
import { validate } from '../protocol/rules.ts'
import { identifier } from '../protocol/values.ts'
import { ConfigurationError } from './errors.ts'

export interface PrintHubClientOptions {
  /** Where the hub answers, e.g. `http://192.168.1.20:8080`. Else `PRINTHUB_BASE_URL`. */
  baseUrl?: string
  /** A project API key (`phk_…`); needed for job routes. Else `PRINTHUB_API_KEY`. Server-side only. */
  apiKey?: string
  /** The default project of job routes. Else `PRINTHUB_PROJECT_ID`. */
  projectId?: string
  /** Bounds each attempt, in milliseconds: integer 1 to 86,400,000; default 30,000. Else `PRINTHUB_TIMEOUT_MS`. */
  timeoutMs?: number
  /** Retries after the first attempt: 0 to 10; default 2. Else `PRINTHUB_MAX_RETRIES`. */
  maxRetries?: number
  /** Base of the exponential backoff, in milliseconds: 0 to 60,000; default 250. */
  retryBaseDelayMs?: number
  /** Longest wait between attempts, in milliseconds: from the base up to 120,000; default 5,000. */
  retryMaxDelayMs?: number
  /** `false` turns retries off. */
  retry?: false
  /** The fetch to use; default the runtime's. */
  fetch?: typeof fetch
}

export interface ClientConfig {
  /** Without a trailing slash. */
  baseUrl: string
  apiKey: string | undefined
  projectId: string | undefined
  timeoutMs: number
  maxRetries: number
  retryBaseDelayMs: number
  retryMaxDelayMs: number
  fetch: typeof fetch
}

export const CLIENT_DEFAULTS = {
  timeoutMs: 30_000,
  maxRetries: 2,
  retryBaseDelayMs: 250,
  retryMaxDelayMs: 5_000,
} as const

/**
 * A variable of the runtime's environment (Node, Bun, Deno), or undefined where there is none or it may not be read.
 */
function environment(name: string): string | undefined {
  const runtime = globalThis as {
    process?: { env?: Record<string, string | undefined> }
    Deno?: { env: { get(name: string): string | undefined } }
  }
  try {
    const value = runtime.process?.env?.[name] ?? runtime.Deno?.env.get(name)
    return value === '' ? undefined : value
  } catch {
    // Deno without --allow-env: as if unset.
    return undefined
  }
}

/** An integer setting: its option's name and value, its environment variable if it has one, its default and range. */
interface IntegerSetting {
  name: string
  envName?: string
  option: number | undefined
  fallback: number
  min: number
  max: number
}

function integerSetting({ name, envName, option, fallback, min, max }: IntegerSetting): number {
  const raw = option ?? (envName ? environment(envName) : undefined)
  const setting = option === undefined && raw !== undefined ? envName! : name
  if (raw === undefined) return fallback
  const value = typeof raw === 'number' ? raw : /^\d+$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new ConfigurationError(setting, `must be an integer from ${min} to ${max}`)
  return value
}

function baseUrlSetting(option: string | undefined): string {
  const setting = option === undefined ? 'PRINTHUB_BASE_URL' : 'baseUrl'
  const raw = option ?? environment('PRINTHUB_BASE_URL')
  if (raw === undefined)
    throw new ConfigurationError('baseUrl', 'is required: pass the baseUrl option or set PRINTHUB_BASE_URL')
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigurationError(setting, 'must be an absolute http or https URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigurationError(setting, 'must be an absolute http or https URL')
  // Credentials never travel in URLs, and a query or fragment would be lost on every route.
  if (url.username || url.password || url.search || url.hash)
    throw new ConfigurationError(setting, 'must not hold credentials, a query or a fragment')
  return url.href.replace(/\/+$/, '')
}

export function checkApiKey(value: string | undefined, setting: string): string | undefined {
  // The message never repeats the value: it may be a real key with a typo.
  if (value !== undefined && (typeof value !== 'string' || !API_KEY_PATTERN.test(value)))
    throw new ConfigurationError(setting, 'must be a project API key: phk_ and 43 characters')
  return value
}

export function checkProjectId(value: string | undefined, setting: string): string | undefined {
  if (value !== undefined) {
    const result = validate(identifier, value)
    if (!result.ok) throw new ConfigurationError(setting, result.issues[0]!.message)
  }
  return value
}

export function resolveClientConfig(options: PrintHubClientOptions = {}): Readonly<ClientConfig> {
  if (options.retry !== undefined && options.retry !== false)
    throw new ConfigurationError('retry', 'may only be false (to turn retries off)')
  const fetchFn = options.fetch ?? globalThis.fetch
  if (typeof fetchFn !== 'function')
    throw new ConfigurationError('fetch', 'must be a function; this runtime has no global fetch')
  const retryBaseDelayMs = integerSetting({
    name: 'retryBaseDelayMs',
    option: options.retryBaseDelayMs,
    fallback: CLIENT_DEFAULTS.retryBaseDelayMs,
    min: 0,
    max: 60_000,
  })
  const maxRetries = integerSetting({
    name: 'maxRetries',
    envName: 'PRINTHUB_MAX_RETRIES',
    option: options.maxRetries,
    fallback: CLIENT_DEFAULTS.maxRetries,
    min: 0,
    max: 10,
  })
  return Object.freeze({
    baseUrl: baseUrlSetting(options.baseUrl),
    apiKey: checkApiKey(
      options.apiKey ?? environment('PRINTHUB_API_KEY'),
      options.apiKey === undefined ? 'PRINTHUB_API_KEY' : 'apiKey',
    ),
    projectId: checkProjectId(
      options.projectId ?? environment('PRINTHUB_PROJECT_ID'),
      options.projectId === undefined ? 'PRINTHUB_PROJECT_ID' : 'projectId',
    ),
    timeoutMs: integerSetting({
      name: 'timeoutMs',
      envName: 'PRINTHUB_TIMEOUT_MS',
      option: options.timeoutMs,
      fallback: CLIENT_DEFAULTS.timeoutMs,
      min: 1,
      max: 86_400_000,
    }),
    maxRetries: options.retry === false ? 0 : maxRetries,
    retryBaseDelayMs,
    retryMaxDelayMs: integerSetting({
      name: 'retryMaxDelayMs',
      option: options.retryMaxDelayMs,
      fallback: Math.max(CLIENT_DEFAULTS.retryMaxDelayMs, retryBaseDelayMs),
      min: retryBaseDelayMs,
      max: 120_000,
    }),
    // Called unbound: some runtimes' fetch must not see another `this`.
    fetch: (input: RequestInfo | URL, init?: RequestInit) => fetchFn(input, init),
  }) as Readonly<ClientConfig>
}
