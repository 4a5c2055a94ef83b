// Failed attempts per remote address, for what is guessed by trying: pairing codes and the admin
// password. An address that failed `limit` times within `windowMs` waits until the oldest of
// those failures is out of the window.

/** Addresses remembered at most; the longest-quiet one is forgotten first. */
const TRACKED_ADDRESSES = 10_000

export interface FailureLimit {
  limit: number
  windowMs: number
}

/** A pairing code has 40 bits, so guessing one takes very many tries: this stops one address from trying for long. */
export const PAIRING_FAILURES: FailureLimit = { limit: 10, windowMs: 5 * 60_000 }
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

  /** Milliseconds until `address` may try again, or 0 when it may try now. */
  retryAfterMs(address: string): number {
    const recent = this.recent(address)
    if (recent.length < this.bounds.limit) return 0
    return recent[recent.length - this.bounds.limit]! + this.bounds.windowMs - this.now()
  }

  recordFailure(address: string): void {
    const recent = this.recent(address)
    recent.push(this.now())
    // Re-insert so the map's order is least recently failed first.
    this.failures.delete(address)
    this.failures.set(address, recent.slice(-this.bounds.limit))
    if (this.failures.size > TRACKED_ADDRESSES) this.failures.delete(this.failures.keys().next().value!)
  }

  private recent(address: string): number[] {
    const since = this.now() - this.bounds.windowMs
    return (this.failures.get(address) ?? []).filter((time) => time > since)
  }
}
