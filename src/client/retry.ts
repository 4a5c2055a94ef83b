// When and how long to wait before another attempt.
import type { ClientConfig } from './config.ts'

/** Statuses that say "try again": the request was not carried out, or may safely be repeated. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504])

/** What the client needs of time and chance; tests replace it with a fake clock. */
export interface Scheduler {
  /** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void>
  /** A number in [0, 1). */
  random(): number
}

export const realScheduler: Scheduler = {
  sleep(ms, signal) {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      const onAbort = () => {
        clearTimeout(timer)
        reject(signal!.reason)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  },
  random: Math.random,
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null) return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1_000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * The wait before retry number `retry` (0 for the first retry): exponential backoff with full
 * jitter, capped by retryMaxDelayMs. A server's Retry-After is followed as given; one longer than
 * retryMaxDelayMs means no retry (undefined), rather than asking again too early.
 */
export function retryDelayMs(
  config: Pick<ClientConfig, 'retryBaseDelayMs' | 'retryMaxDelayMs'>,
  retry: number,
  retryAfter: number | undefined,
  random: () => number,
): number | undefined {
  if (retryAfter !== undefined) return retryAfter <= config.retryMaxDelayMs ? retryAfter : undefined
  return Math.floor(random() * Math.min(config.retryMaxDelayMs, config.retryBaseDelayMs * 2 ** retry))
}
