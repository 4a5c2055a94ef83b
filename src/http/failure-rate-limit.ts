// Failed attempts per key (a remote address, an account, or an address with what it tried), for
// what is guessed by trying: pairing codes and the admin password. A key that fails `limit` times
// within `windowMs` is locked out for `windowMs`; each further lockout that follows soon after
// doubles it (up to `maxLockMs`), and a key quiet for a window after its lockout starts over.
//
// Counted when the attempt starts, not when it has failed: an attempt in flight counts as a failure
// until it succeeds, so N guesses sent at once count as N (the password check takes a while, and
// every guess would otherwise pass the check before the first one failed). Kept in memory: a
// restart of the hub forgets it (which only ever lets a key try sooner).

import {
  afterFailure,
  type AttemptOutcome,
  type FailureCounts,
  type FailureLimit,
  type FailureState,
  type LockoutListener,
  NO_FAILURES,
} from '../domain/failure-limit.ts'

/** Keys remembered at most; the longest-quiet one is forgotten first. */
const TRACKED_KEYS = 10_000

/**
 * Pairing: one code tried again and again from one address (an agent retrying a mistyped code)
 * stops soon, without blocking the next, correct code from that address; any codes from one
 * address stop later. A code has 40 bits: at 30 guesses in 5 minutes, guessing one takes millennia.
 */
export const PAIRING_CODE_FAILURES: FailureLimit = { limit: 5, windowMs: 5 * 60_000 }
export const PAIRING_ADDRESS_FAILURES: FailureLimit = { limit: 30, windowMs: 5 * 60_000 }
/**
 * The admin password, per address: argon2id makes every guess slow; this makes them few (10 in 5
 * minutes, then locked out 5, 10, 20 … minutes, up to a day).
 */
export const LOGIN_FAILURES: FailureLimit = { limit: 10, windowMs: 5 * 60_000, maxLockMs: 24 * 3_600_000 }
/**
 * The admin password from everywhere at once (many addresses, one account): more, and the lockout
 * grows only to an hour, since it also keeps the venue's own staff out; `printhub admin
 * set-password` on the machine ends it at once.
 */
export const ACCOUNT_LOGIN_FAILURES: FailureLimit = { limit: 50, windowMs: 5 * 60_000, maxLockMs: 3_600_000 }

/** Where a request comes from: the address its limit counts against. */
export function remoteAddress(
  request: Request,
  server: { requestIP(request: Request): { address: string } | null } | null,
): string {
  return server?.requestIP(request)?.address ?? 'unknown'
}

export class FailureRateLimit implements FailureCounts {
  private readonly keys = new Map<string, FailureState>()

  constructor(
    private readonly bounds: FailureLimit,
    private readonly now: () => number,
    private readonly lockedOut: LockoutListener = () => {},
  ) {}

  /** Milliseconds until `key` may try again, or 0 when it may try now. */
  retryAfterMs(key: string): number {
    return Math.max(0, (this.keys.get(key)?.lockedUntil ?? 0) - this.now())
  }

  /** Counts a failure against `key` (locking it out at the limit). */
  recordFailure(key: string): void {
    this.fail(key)
  }

  attempt(keys: readonly string[]): AttemptOutcome {
    const waitMs = Math.max(0, ...keys.map((key) => this.retryAfterMs(key)))
    if (waitMs > 0) return { ok: false, retryAfterMs: waitMs }
    const marks = keys.map((key) => [key, this.fail(key)] as const)
    return {
      ok: true,
      attempt: {
        succeeded: () => {
          for (const [key, at] of marks) {
            const times = this.keys.get(key)?.times
            const index = times?.indexOf(at) ?? -1
            if (index >= 0) times!.splice(index, 1)
          }
        },
      },
    }
  }

  /** Records a failure now; returns its time (to take it back if it was an attempt that succeeded). */
  private fail(key: string): number {
    const now = this.now()
    const { state, lockout } = afterFailure(this.keys.get(key) ?? NO_FAILURES, now, this.bounds)
    if (lockout) this.lockedOut(key, lockout.lockMs, lockout.failures)
    // Re-insert so the map's order is least recently failed first.
    this.keys.delete(key)
    this.keys.set(key, state)
    if (this.keys.size > TRACKED_KEYS) this.keys.delete(this.keys.keys().next().value!)
    return now
  }
}
