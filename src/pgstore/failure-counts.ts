// Failed attempts counted in the cluster's database, so that a limit holds across nodes (domain/failure-limit.ts says
// the rule): each key's row is taken in its own transaction, so attempts at once on several nodes are counted one by
// one. A key is kept as a SHA-256 of itself (what an address tried is never written down). Rows quiet for a day are
// deleted now and then, a few at a time, so an attack from many addresses leaves no lasting trace.
import type { SQL } from 'bun'
import { afterFailure, type FailureLimit, type FailureState, NO_FAILURES } from '../domain/failure-limit.ts'
import { type Big, int } from '../storage/rows.ts'

/** Rows quiet this long are forgotten (longer than any lockout). */
const FORGET_AFTER_MS = 2 * 86_400_000
/** Every this many failures recorded, a few forgotten rows go. */
const FORGET_EVERY = 256
const FORGET_BATCH = 1_000

const hashOf = (key: string): string => new Bun.CryptoHasher('sha256').update(key).digest('hex')

export class PgFailureCounts {
  private recorded = 0

  constructor(
    private readonly sql: SQL,
    /** What is counted ("pairing-address", "pairing-code"). */
    private readonly scope: string,
    private readonly bounds: FailureLimit,
    private readonly now: () => number,
  ) {}

  async retryAfterMs(key: string): Promise<number> {
    const [row] = await this.sql<{ locked_until: Big }[]>`SELECT locked_until FROM failure_counts
      WHERE scope = ${this.scope} AND key_hash = ${hashOf(key)}`
    return row ? Math.max(0, int(row.locked_until) - this.now()) : 0
  }

  async recordFailure(key: string): Promise<void> {
    const hash = hashOf(key)
    await this.sql.begin(async (tx) => {
      await tx`INSERT INTO failure_counts (scope, key_hash, times, level, locked_until)
        VALUES (${this.scope}, ${hash}, '{}', 0, 0) ON CONFLICT DO NOTHING`
      const [row] = await tx<{ times: Big[]; level: number; locked_until: Big }[]>`SELECT times, level, locked_until
        FROM failure_counts WHERE scope = ${this.scope} AND key_hash = ${hash} FOR UPDATE`
      const before: FailureState = row
        ? { times: row.times.map(int), level: row.level, lockedUntil: int(row.locked_until) }
        : NO_FAILURES
      const { state } = afterFailure(before, this.now(), this.bounds)
      await tx`UPDATE failure_counts SET times = ${`{${state.times.join(',')}}`}::bigint[], level = ${state.level},
        locked_until = ${state.lockedUntil} WHERE scope = ${this.scope} AND key_hash = ${hash}`
    })
    if (++this.recorded % FORGET_EVERY === 0) await this.forget()
  }

  private async forget(): Promise<void> {
    const before = this.now() - FORGET_AFTER_MS
    await this.sql`DELETE FROM failure_counts WHERE (scope, key_hash) IN (SELECT scope, key_hash FROM failure_counts
      WHERE locked_until < ${before} AND coalesce(times[array_upper(times, 1)], 0) < ${before} LIMIT ${FORGET_BATCH})`
  }
}
