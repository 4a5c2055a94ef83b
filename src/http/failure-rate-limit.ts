// Failed attempts per key (a remote address, an account, or an address with what it tried), for
// what is guessed by trying: pairing codes and the admin password. A key that fails `limit` times
// within `windowMs` is locked out for `windowMs`; each further lockout that follows soon after
// doubles it (up to `maxLockMs`), and a key quiet for a window after its lockout starts over.
//
// Counted when the attempt starts, not when it has failed: an attempt in flight counts as a failure
// until it succeeds, so N guesses sent at once count as N (the password check takes a while, and
// every guess would otherwise pass the check before the first one failed). Kept in memory: a
// restart of the hub forgets it (which only ever lets a key try sooner).

/** Keys remembered at most; the longest-quiet one is forgotten first. */
const TRACKED_KEYS = 10_000

export interface FailureLimit {
  limit: number
  windowMs: number
  /** The longest lockout, however often it comes back; default: the window (no growth). */
  maxLockMs?: number
}

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

interface KeyState {
  /** When the failures of the current window happened (attempts in flight included). */
  times: number[]
  /** How many lockouts in a row: the next lasts window × 2^level. */
  level: number
  lockedUntil: number
}

/** An attempt that was allowed: counted as failed unless it says it succeeded. */
export interface Attempt {
  succeeded(): void
}

export type AttemptOutcome = { ok: true; attempt: Attempt } | { ok: false; retryAfterMs: number }

/** Told when a key is locked out, to log it. */
export type LockoutListener = (key: string, lockMs: number, failures: number) => void

export class FailureRateLimit {
  private readonly keys = new Map<string, KeyState>()

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

  /**
   * Starts an attempt that counts against every key in `keys` at once, or none when any of them
   * is locked out. In one step: attempts made at the same moment are counted one by one.
   */
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
    const state = this.keys.get(key) ?? { times: [], level: 0, lockedUntil: 0 }
    state.times = state.times.filter((time) => time > now - this.bounds.windowMs)
    // Quiet for a whole window since its last lockout ended: it starts over.
    if (state.level > 0 && state.times.length === 0 && now > state.lockedUntil + this.bounds.windowMs) state.level = 0
    state.times.push(now)
    if (state.times.length >= this.bounds.limit) {
      const lockMs = Math.min(this.bounds.windowMs * 2 ** state.level, this.bounds.maxLockMs ?? this.bounds.windowMs)
      state.lockedUntil = now + lockMs
      state.level++
      this.lockedOut(key, lockMs, state.times.length)
      state.times = []
    }
    // Re-insert so the map's order is least recently failed first.
    this.keys.delete(key)
    this.keys.set(key, state)
    if (this.keys.size > TRACKED_KEYS) this.keys.delete(this.keys.keys().next().value!)
    return now
  }
}
