// Failed attempts per key (a remote address, an account, or an address with what it tried), for what is guessed by
// trying: pairing codes and the admin password. A key that fails `limit` times within `windowMs` is locked out for
// `windowMs`; each further lockout that follows soon after doubles it (up to `maxLockMs`), and a key quiet for a
// window after its lockout starts over. The rule, once: kept in memory by one hub (http/failure-rate-limit.ts), in
// the database by a cluster's nodes (pgstore/failure-counts.ts).

export interface FailureLimit {
  limit: number
  windowMs: number
  /** The longest lockout, however often it comes back; default: the window (no growth). */
  maxLockMs?: number
}

/** A key's failures as counted. */
export interface FailureState {
  /** When the failures of the current window happened (attempts in flight included). */
  times: number[]
  /** How many lockouts in a row: the next lasts window × 2^level. */
  level: number
  lockedUntil: number
}

/** A key that never failed. */
export const NO_FAILURES: FailureState = Object.freeze({ times: [], level: 0, lockedUntil: 0 }) as FailureState

/** A failure of the key at `now`: its state then, and the lockout it started (with the failures that made it). */
export function afterFailure(
  before: FailureState,
  now: number,
  bounds: FailureLimit,
): { state: FailureState; lockout?: { lockMs: number; failures: number } } {
  const state = {
    times: before.times.filter((time) => time > now - bounds.windowMs),
    level: before.level,
    lockedUntil: before.lockedUntil,
  }
  // Quiet for a whole window since its last lockout ended: it starts over.
  if (state.level > 0 && state.times.length === 0 && now > state.lockedUntil + bounds.windowMs) state.level = 0
  state.times.push(now)
  if (state.times.length < bounds.limit) return { state }
  const lockMs = Math.min(bounds.windowMs * 2 ** state.level, bounds.maxLockMs ?? bounds.windowMs)
  const failures = state.times.length
  return { state: { times: [], level: state.level + 1, lockedUntil: now + lockMs }, lockout: { lockMs, failures } }
}

/** A key's failures as a limit counts them: in memory (FailureRateLimit), or in a cluster's database. */
export interface FailureCounts {
  /** Milliseconds until `key` may try again, or 0 when it may try now. */
  retryAfterMs(key: string): number | Promise<number>
  /** Counts a failure against `key` (locking it out at the limit). */
  recordFailure(key: string): void | Promise<void>
  /**
   * Starts an attempt that counts against every key in `keys` at once, or none when any of them is locked out. In one
   * step: attempts made at the same moment are counted one by one.
   */
  attempt(keys: readonly string[]): AttemptOutcome | Promise<AttemptOutcome>
}

/** Where failures of one kind are counted: in memory (one hub), or in a cluster's database. */
export type FailureCountsOf = (scope: string, bounds: FailureLimit, lockedOut?: LockoutListener) => FailureCounts

/** An attempt that was allowed: counted as failed unless it says it succeeded (settled once taken back). */
export interface Attempt {
  succeeded(): void | Promise<void>
}

export type AttemptOutcome = { ok: true; attempt: Attempt } | { ok: false; retryAfterMs: number }

/** Told when a key is locked out, to log it. */
export type LockoutListener = (key: string, lockMs: number, failures: number) => void
