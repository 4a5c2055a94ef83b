// Failed attempts counted in the cluster's database, so that a limit holds across nodes (domain/failure-limit.ts says
// the rule): each key's row is taken in its own transaction, so attempts at once on several nodes are counted one by
// one. A key is kept as a SHA-256 of itself (what an address tried is never written down). Rows quiet for a day are
// deleted now and then, a few at a time, so an attack from many addresses leaves no lasting trace.
import type { SQL } from 'bun'
import {
  afterFailure,
  type AttemptOutcome,
  type FailureCounts,
  type FailureLimit,
  type FailureState,
  type LockoutListener,
  NO_FAILURES,
} from '../domain/failure-limit.ts'
import { type Big, int } from '../storage/rows.ts'

/** Rows quiet this long are forgotten (longer than any lockout). */
const FORGET_AFTER_MS = 2 * 86_400_000
/** Every this many failures recorded, a few forgotten rows go. */
const FORGET_EVERY = 256
const FORGET_BATCH = 1_000

const hashOf = (key: string): string => new Bun.CryptoHasher('sha256').update(key).digest('hex')

type FailureRow = { key_hash: string; times: Big[]; level: number; locked_until: Big }

const stateOf = (row: FailureRow | undefined): FailureState =>
  row ? { times: row.times.map(int), level: row.level, lockedUntil: int(row.locked_until) } : NO_FAILURES

export class PgFailureCounts implements FailureCounts {
  private recorded = 0

  private readonly bounds: FailureLimit
  private readonly now: () => number
  private readonly lockedOut: LockoutListener
  private readonly unavailable: (error: unknown) => unknown

  constructor(
    private readonly sql: SQL,
    /** What is counted ("pairing-address", "pairing-code", "sign-in-address", "sign-in-account"). */
    private readonly scope: string,
    counting: {
      bounds: FailureLimit
      now: () => number
      lockedOut?: LockoutListener | undefined
      /** The error to throw for one of the database's: the store's "unavailable" when it cannot be reached. */
      unavailable?: (error: unknown) => unknown
    },
  ) {
    this.bounds = counting.bounds
    this.now = counting.now
    this.lockedOut = counting.lockedOut ?? (() => {})
    this.unavailable = counting.unavailable ?? ((error) => error)
  }

  /** `work`, its database's errors told as the store tells them (a 503 while the database is away). */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw this.unavailable(error)
    }
  }

  /**
   * Counts a failure against each of `keys` now, in one transaction on their rows (taken in one order), unless one is
   * locked out; the attempt that succeeds takes its failures back (one each: another attempt of the same millisecond
   * keeps its own).
   */
  attempt(keys: readonly string[]): Promise<AttemptOutcome> {
    return this.guarded(() => this.attemptNow(keys))
  }

  private async attemptNow(keys: readonly string[]): Promise<AttemptOutcome> {
    const named = new Map(keys.map((key) => [hashOf(key), key]))
    const hashes = [...named.keys()].sort()
    const now = this.now()
    const outcome = await this.sql.begin(async (tx) => {
      for (const hash of hashes)
        await tx`INSERT INTO failure_counts (scope, key_hash, times, level, locked_until)
          VALUES (${this.scope}, ${hash}, '{}', 0, 0) ON CONFLICT DO NOTHING`
      const rows = await tx<FailureRow[]>`SELECT key_hash, times, level, locked_until FROM failure_counts
        WHERE scope = ${this.scope} AND key_hash IN ${tx(hashes)} ORDER BY key_hash FOR UPDATE`
      const waitMs = Math.max(0, ...rows.map((row) => int(row.locked_until) - now))
      if (waitMs > 0) return { ok: false as const, retryAfterMs: waitMs }
      const lockouts: [string, { lockMs: number; failures: number }][] = []
      for (const row of rows) {
        const { state, lockout } = afterFailure(stateOf(row), now, this.bounds)
        await this.write(tx, row.key_hash, state)
        if (lockout) lockouts.push([named.get(row.key_hash)!, lockout])
      }
      return { ok: true as const, lockouts }
    })
    if (!outcome.ok) return outcome
    if (++this.recorded % FORGET_EVERY === 0) await this.forget()
    for (const [key, { lockMs, failures }] of outcome.lockouts) this.lockedOut(key, lockMs, failures)
    return { ok: true, attempt: { succeeded: () => this.guarded(() => this.takeBack(hashes, now)) } }
  }

  retryAfterMs(key: string): Promise<number> {
    return this.guarded(async () => {
      const [row] = await this.sql<{ locked_until: Big }[]>`SELECT locked_until FROM failure_counts
        WHERE scope = ${this.scope} AND key_hash = ${hashOf(key)}`
      return row ? Math.max(0, int(row.locked_until) - this.now()) : 0
    })
  }

  recordFailure(key: string): Promise<void> {
    return this.guarded(() => this.recordFailureNow(key))
  }

  private async recordFailureNow(key: string): Promise<void> {
    const hash = hashOf(key)
    await this.sql.begin(async (tx) => {
      await tx`INSERT INTO failure_counts (scope, key_hash, times, level, locked_until)
        VALUES (${this.scope}, ${hash}, '{}', 0, 0) ON CONFLICT DO NOTHING`
      const [row] = await tx<FailureRow[]>`SELECT key_hash, times, level, locked_until
        FROM failure_counts WHERE scope = ${this.scope} AND key_hash = ${hash} FOR UPDATE`
      const { state, lockout } = afterFailure(stateOf(row), this.now(), this.bounds)
      await this.write(tx, hash, state)
      if (lockout) this.lockedOut(key, lockout.lockMs, lockout.failures)
    })
    if (++this.recorded % FORGET_EVERY === 0) await this.forget()
  }

  private async write(tx: SQL, hash: string, state: FailureState): Promise<void> {
    await tx`UPDATE failure_counts SET times = ${`{${state.times.join(',')}}`}::bigint[], level = ${state.level},
      locked_until = ${state.lockedUntil} WHERE scope = ${this.scope} AND key_hash = ${hash}`
  }

  /** An attempt's failures at `at` taken back: one time each (a lockout since has emptied the times already). */
  private async takeBack(hashes: readonly string[], at: number): Promise<void> {
    await this.sql`UPDATE failure_counts SET times = CASE WHEN array_position(times, ${at}::bigint) IS NULL THEN times
        ELSE times[:array_position(times, ${at}::bigint) - 1] || times[array_position(times, ${at}::bigint) + 1:] END
      WHERE scope = ${this.scope} AND key_hash IN ${this.sql(hashes as string[])}`
  }

  private async forget(): Promise<void> {
    const before = this.now() - FORGET_AFTER_MS
    await this.sql`DELETE FROM failure_counts WHERE (scope, key_hash) IN (SELECT scope, key_hash FROM failure_counts
      WHERE locked_until < ${before} AND coalesce(times[array_upper(times, 1)], 0) < ${before} LIMIT ${FORGET_BATCH})`
  }
}
