// Exponential backoff with symmetric jitter: the agent's reconnects and the dispatcher's retries.

export interface Backoff {
  initialMs: number
  maxMs: number
  /** Each delay is moved at random by up to this fraction either way, so peers do not retry in step. */
  jitter: number
}

/** Reconnecting to the hub: 1 s doubling to 60 s, ±20 % (as the reference agent does). */
export const RECONNECT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 60_000, jitter: 0.2 }

/** The delay before try number `failures + 1`, never above the maximum. */
export function backoffDelay(policy: Backoff, failures: number, random: () => number = Math.random): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(failures, 30))
  const jittered = base * (1 + policy.jitter * (2 * random() - 1))
  return Math.max(1, Math.min(policy.maxMs, Math.round(jittered)))
}
