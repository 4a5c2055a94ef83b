import type { Database } from 'bun:sqlite'
import type { SettingsRepository } from '../storage/repositories.ts'

/** Small named values of the hub itself (its server ID, the admin password's hash, settings made in the dashboard). */
export class Settings implements SettingsRepository {
  constructor(private readonly db: Database) {}

  get(key: string): string | undefined {
    return this.db.query<{ value: string }, [string]>('SELECT value FROM settings WHERE key = ?').get(key)?.value
  }

  /** Stores `value` unless the key has one already; returns the stored value either way. */
  getOrSet(key: string, value: string): string {
    this.db.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [key, value])
    return this.get(key)!
  }

  set(key: string, value: string): void {
    this.db.run(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    )
  }

  delete(key: string): void {
    this.db.run('DELETE FROM settings WHERE key = ?', [key])
  }
}
