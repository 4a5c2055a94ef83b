// Failed pairing attempts per remote address. A pairing code has 40 bits, so guessing one takes
// very many tries; this stops a single address from trying for long.

export const PAIRING_FAILURE_LIMIT = 10
export const PAIRING_FAILURE_WINDOW_MS = 5 * 60_000
/** Addresses remembered at most; the longest-quiet one is forgotten first. */
export const PAIRING_TRACKED_ADDRESSES = 10_000

export class PairingRateLimit {
  private readonly failures = new Map<string, number[]>()

  constructor(private readonly now: () => number) {}

  /** Milliseconds until `address` may try again, or 0 when it may try now. */
  retryAfterMs(address: string): number {
    const recent = this.recent(address)
    if (recent.length < PAIRING_FAILURE_LIMIT) return 0
    return recent[recent.length - PAIRING_FAILURE_LIMIT]! + PAIRING_FAILURE_WINDOW_MS - this.now()
  }

  recordFailure(address: string): void {
    const recent = this.recent(address)
    recent.push(this.now())
    // Re-insert so the map's order is least recently failed first.
    this.failures.delete(address)
    this.failures.set(address, recent.slice(-PAIRING_FAILURE_LIMIT))
    if (this.failures.size > PAIRING_TRACKED_ADDRESSES) this.failures.delete(this.failures.keys().next().value!)
  }

  private recent(address: string): number[] {
    const since = this.now() - PAIRING_FAILURE_WINDOW_MS
    return (this.failures.get(address) ?? []).filter((time) => time > since)
  }
}
