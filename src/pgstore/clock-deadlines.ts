// What waits for a time to come, on PostgreSQL (the SQLite store's: store/clock-deadlines.ts), moved together when
// the system clock jumps (services/clock.ts).
import type { SQL } from 'bun'
import { SETUP_LINK_SETTING } from '../domain/accounts.ts'
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import type { ClockRepository } from '../storage/repositories.ts'

const unfinished = `state IN (${JOB_STATE_SETS.unfinished.map((s) => `'${s}'`).join(', ')})`

export class PgClockDeadlines implements ClockRepository {
  constructor(private readonly sql: SQL) {}

  async shiftDeadlines(byMs: number): Promise<number> {
    const { sql } = this
    // One after another, in the unit's transaction; each says the rows it moved (RETURNING 1).
    const moved = [
      await sql`UPDATE jobs SET expires_at = expires_at + ${byMs}, not_before = not_before + ${byMs}
        WHERE ${sql.unsafe(unfinished)} RETURNING 1`,
      await sql`UPDATE fan_outs SET expires_at = expires_at + ${byMs} RETURNING 1`,
      await sql`UPDATE pairing_codes SET expires_at = expires_at + ${byMs} WHERE consumed_at IS NULL RETURNING 1`,
      await sql`UPDATE admin_sessions SET expires_at = expires_at + ${byMs}, last_seen_at = last_seen_at + ${byMs}
        WHERE revoked_at IS NULL RETURNING 1`,
      await sql`UPDATE webhook_deliveries SET next_at = next_at + ${byMs} WHERE delivered_at IS NULL RETURNING 1`,
      await sql`UPDATE settings SET value = jsonb_set(value::jsonb, '{expiresAt}',
          to_jsonb((value::jsonb ->> 'expiresAt')::bigint + ${byMs}))::text
        WHERE key = ${SETUP_LINK_SETTING} RETURNING 1`,
    ]
    return moved.reduce((total, rows) => total + rows.length, 0)
  }
}
