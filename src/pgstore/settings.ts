// The hub's small named values on PostgreSQL, as the SQLite store keeps them (store/settings.ts).
import type { SQL } from 'bun'
import type { SettingsRepository } from '../storage/repositories.ts'

export class PgSettings implements SettingsRepository {
  constructor(private readonly sql: SQL) {}

  async get(key: string): Promise<string | undefined> {
    const [row] = await this.sql<{ value: string }[]>`SELECT value FROM settings WHERE key = ${key}`
    return row?.value
  }

  async getOrSet(key: string, value: string): Promise<string> {
    // One statement: two nodes that set the same key at once both answer the one value kept.
    const [row] = await this.sql<{ value: string }[]>`WITH put AS (
        INSERT INTO settings (key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO NOTHING RETURNING value
      ) SELECT value FROM put UNION ALL SELECT value FROM settings WHERE key = ${key} LIMIT 1`
    return row!.value
  }

  async set(key: string, value: string): Promise<void> {
    await this.sql`INSERT INTO settings (key, value) VALUES (${key}, ${value})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`
  }

  async delete(key: string): Promise<void> {
    await this.sql`DELETE FROM settings WHERE key = ${key}`
  }
}
