// What waits for a time to come, on SQLite (PostgreSQL's: pgstore/clock-deadlines.ts), moved together when the
// system clock jumps (services/clock.ts), so that each keeps the time it had left: unfinished jobs' expiry and retry,
// fan-outs' expiry, unused pairing codes, sessions not ended (their last use too, which their idle time counts from),
// the setup link, webhook deliveries not made.
import type { Database } from 'bun:sqlite'
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import { SETUP_LINK_SETTING } from '../domain/accounts.ts'
import { stateIn } from './sql.ts'

export class ClockDeadlines {
  constructor(private readonly db: Database) {}

  shiftDeadlines(byMs: number): number {
    const run = (sql: string, ...values: (number | string)[]) => this.db.run(sql, [byMs, ...values]).changes
    return (
      run(
        `UPDATE jobs SET expires_at = expires_at + ?1,
          not_before = CASE WHEN not_before IS NULL THEN NULL ELSE not_before + ?1 END
        WHERE ${stateIn(JOB_STATE_SETS.unfinished)}`,
      ) +
      run(`UPDATE fan_outs SET expires_at = expires_at + ?1`) +
      run('UPDATE pairing_codes SET expires_at = expires_at + ?1 WHERE consumed_at IS NULL') +
      run(
        `UPDATE admin_sessions SET expires_at = expires_at + ?1, last_seen_at = last_seen_at + ?1
        WHERE revoked_at IS NULL`,
      ) +
      run('UPDATE webhook_deliveries SET next_at = next_at + ?1 WHERE delivered_at IS NULL') +
      run(
        `UPDATE settings SET value = json_set(value, '$.expiresAt', json_extract(value, '$.expiresAt') + ?1)
        WHERE key = ?2 AND json_valid(value)`,
        SETUP_LINK_SETTING,
      )
    )
  }
}
