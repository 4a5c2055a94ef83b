// A read-only look at a hub's database, for `printhub doctor` and for backups (what a snapshot
// holds): it opens the file for reading and changes nothing, so it can look at the database of a
// hub that is running.
import type { Database } from 'bun:sqlite'
import { integrityProblems, openForReading, type Schema, schemaVersion } from '../sqlite/database.ts'
import { DATABASE_FILE } from './database.ts'

export interface RecordCounts {
  projects: number
  apiKeys: number
  agents: number
  printers: number
  jobs: number
}

export class StoreInspection {
  private constructor(private readonly db: Database) {}

  /** The data directory's database, read-only; undefined when there is none, or it cannot be opened. */
  static open(dataDir: string): StoreInspection | undefined {
    const db = openForReading(dataDir, DATABASE_FILE)
    return db ? new StoreInspection(db) : undefined
  }

  /**
   * What SQLite's quick check (or, when `full`, its whole integrity check) finds wrong: nothing when the file is sound.
   */
  integrityProblems(full = false): string[] {
    return integrityProblems(this.db, full)
  }

  /**
   * The newest migration of `schema` applied (the hub's own, or the built-in agent's ledger's, which lives here too).
   */
  schemaVersion(schema: Pick<Schema, 'migrationsTable'>): number {
    return schemaVersion(this.db, schema)
  }

  /** How many of each kind of record the database holds (removed printers and revoked keys and agents included). */
  counts(): RecordCounts {
    const count = (table: string) => this.db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n
    return {
      projects: count('projects'),
      apiKeys: count('api_keys'),
      agents: count('agents'),
      printers: count('printers'),
      jobs: count('jobs'),
    }
  }

  /** When the newest job was created, in milliseconds since the epoch. */
  newestJobAt(): number | undefined {
    return (
      this.db.query<{ created_at: number | null }, []>('SELECT max(created_at) AS created_at FROM jobs').get()
        ?.created_at ?? undefined
    )
  }

  /** The hub's stored server ID (the setting `server_id`, see services/init.ts); undefined before the first start. */
  serverId(): string | undefined {
    return this.setting('server_id')
  }

  /** A stored setting, as stored. */
  setting(key: string): string | undefined {
    return this.db.query<{ value: string }, [string]>('SELECT value FROM settings WHERE key = ?').get(key)?.value
  }

  /** The printers this machine drives itself (the built-in agent's), oldest first. */
  /** The built-in agent's printers, each with its latest recorded state and since when (none recorded: null). */
  hubPrinters(): { remoteId: string; connection: string; state: string | null; since: string | null }[] {
    return this.db
      .query<{ remoteId: string; connection: string; state: string | null; at: number | null }, []>(
        `SELECT p.remote_id AS remoteId, p.connection,
                (SELECT s.state FROM printer_states s
                  WHERE s.agent_id = p.agent_id AND s.printer_id = p.agent_printer_id
                  ORDER BY s.at DESC, s.rowid DESC LIMIT 1) AS state,
                (SELECT s.at FROM printer_states s
                  WHERE s.agent_id = p.agent_id AND s.printer_id = p.agent_printer_id
                  ORDER BY s.at DESC, s.rowid DESC LIMIT 1) AS at
         FROM printers p JOIN agents a ON a.id = p.agent_id
         WHERE a.builtin = 1 AND a.revoked_at IS NULL AND p.removed_at IS NULL ORDER BY p.created_at, p.id`,
      )
      .all()
      .map(({ at, ...printer }) => ({ ...printer, since: at === null ? null : new Date(at).toISOString() }))
  }

  close(): void {
    this.db.close(true)
  }
}
