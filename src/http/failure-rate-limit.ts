// Failed attempts per key (a remote address, or an address with what it tried), for what is
// guessed by trying: pairing codes and the admin password. A key that failed `limit` times within
// `windowMs` waits until the oldest of those failures is out of the window: the limit ends by
// itself. Kept in memory: a restart of the hub forgets it (which only ever lets a key try sooner).

/** Keys remembered at most; the longest-quiet one is forgotten first. */
const TRACKED_KEYS = 10_000

export interface FailureLimit {
  limit: number
  windowMs: number
}

/**
 * Pairing: one code tried again and again from one address (an agent retrying a mistyped code)
 * stops soon, without blocking the next, correct code from that address; any codes from one
 * address stop later. A code has 40 bits: at 30 guesses in 5 minutes, guessing one takes millennia.
 */
export const PAIRING_CODE_FAILURES: FailureLimit = { limit: 5, windowMs: 5 * 60_000 }
export const PAIRING_ADDRESS_FAILURES: FailureLimit = { limit: 30, windowMs: 5 * 60_000 }
/** Argon2id makes every guess of the admin password slow; this makes an address's guesses few. */
export const LOGIN_FAILURES: FailureLimit = { limit: 5, windowMs: 15 * 60_000 }

/** Where a request comes from: the address its limit counts against. */
export function remoteAddress(request: Request, server: { requestIP(request: Request): { address: string } | null } | null): string {
  return server?.requestIP(request)?.address ?? 'unknown'
}

export class FailureRateLimit {
  private readonly failures = new Map<string, number[]>()

  constructor(
    private readonly bounds: FailureLimit,
    private readonly now: () => number,
  ) {}

  /** Milliseconds until `key` may try again, or 0 when it may try now. */
  retryAfterMs(key: string): number {
    const recent = this.recent(key)
    if (recent.length < this.bounds.limit) return 0
    return recent[recent.length - this.bounds.limit]! + this.bounds.windowMs - this.now()
  }

  recordFailure(key: string): void {
    const recent = this.recent(key)
    recent.push(this.now())
    // Re-insert so the map's order is least recently failed first.
    this.failures.delete(key)
    this.failures.set(key, recent.slice(-this.bounds.limit))
    if (this.failures.size > TRACKED_KEYS) this.failures.delete(this.failures.keys().next().value!)
  }

  private recent(key: string): number[] {
    const since = this.now() - this.bounds.windowMs
    return (this.failures.get(key) ?? []).filter((time) => time > since)
  }
}
