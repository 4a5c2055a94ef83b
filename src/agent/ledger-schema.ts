// The ledger's schema (ledger.ts): in a remote agent's own file, or as tables in the hub's database
// for the built-in agent.
import type { Database } from 'bun:sqlite'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import type { Migration, Schema } from '../sqlite/database.ts'

export const LEDGER_FILE = 'agent.db'
/** The ledger's own record of its schema versions (the hub's database has another). */
const LEDGER_MIGRATIONS_TABLE = 'ledger_schema_migrations'

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'pairing, printers, jobs, outbox',
    sql: `
      CREATE TABLE ledger_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
      CREATE TABLE ledger_printers (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        connection TEXT NOT NULL,
        profile TEXT NOT NULL,
        width INTEGER NOT NULL CHECK (width IN (58, 80)),
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE ledger_jobs (
        seq INTEGER PRIMARY KEY,
        job_id TEXT NOT NULL UNIQUE,
        idempotency_key TEXT NOT NULL UNIQUE,
        printer_id TEXT NOT NULL,
        -- The job as received; dropped once it is finished (the hash stays for duplicate checks).
        payload TEXT,
        payload_sha256 TEXT NOT NULL,
        source_message_id TEXT NOT NULL,
        state TEXT NOT NULL
          CHECK (state IN ('received', 'submitting', 'submitted', 'completed', 'failed', 'cancelled')),
        received_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        recovery_count INTEGER NOT NULL DEFAULT 0,
        -- The job's final reports (a JSON array of frames), sent again when a printhub hub asks.
        reports TEXT
      ) STRICT;
      CREATE INDEX ledger_jobs_open ON ledger_jobs (printer_id, seq) WHERE state IN ('received', 'submitting');
      CREATE TABLE ledger_outbox (
        seq INTEGER PRIMARY KEY,
        job_seq INTEGER NOT NULL REFERENCES ledger_jobs (seq) ON DELETE CASCADE,
        frame TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    description: "the built-in agent's records of intent and outcome (builtin-ledger.ts)",
    sql: `
      -- One row a job from its claim (or its end, for one that ended before it was claimed), with
      -- its primary key alone: the built-in agent's received jobs are its hub's rows.
      CREATE TABLE ledger_intents (
        seq INTEGER PRIMARY KEY,
        job_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        printer_id TEXT NOT NULL,
        source_message_id TEXT NOT NULL,
        state TEXT NOT NULL
          CHECK (state IN ('received', 'submitting', 'submitted', 'completed', 'failed', 'cancelled')),
        received_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        recovery_count INTEGER NOT NULL DEFAULT 0,
        -- The frames that reported the job so far (a JSON array), reported again if its hub did not record them.
        reports TEXT
      ) STRICT;
    `,
  },
]

/** The ledger's schema: its own file for a remote agent; tables in the hub's database for the built-in agent. */
export const LEDGER_SCHEMA: Schema = {
  file: LEDGER_FILE,
  migrations: MIGRATIONS,
  migrationsTable: LEDGER_MIGRATIONS_TABLE,
}

/**
 * A remote agent's file as released before the built-in agent's ledger moved into the hub's
 * database kept the same tables without the ledger_ prefix (and its versions in schema_migrations).
 * They are renamed, their rows kept, so such an agent keeps its pairing and jobs.
 */
function adoptUnprefixedLedger(db: Database): void {
  const tables = new Set(
    db
      .query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE type = 'table'")
      .all()
      .map((row) => row.name),
  )
  if (!tables.has('outbox') || tables.has('ledger_outbox') || tables.has(LEDGER_MIGRATIONS_TABLE)) return
  for (const table of ['settings', 'printers', 'jobs', 'outbox'])
    db.run(`ALTER TABLE ${table} RENAME TO ledger_${table}`)
  db.run('DROP INDEX jobs_open')
  db.run(`CREATE INDEX ledger_jobs_open ON ledger_jobs (printer_id, seq) WHERE state IN ('received', 'submitting')`)
  db.run(`ALTER TABLE schema_migrations RENAME TO ${LEDGER_MIGRATIONS_TABLE}`)
}

/** A remote agent's own file, which may be of the earlier layout. */
export const OWN_FILE_SCHEMA: Schema = { ...LEDGER_SCHEMA, adopt: adoptUnprefixedLedger }

/**
 * A ledger's settings (`ledger_settings`), for both ledgers: read, and written at once (on disk when `set` returns).
 */
export function ledgerSettings(db: Database, commits: GroupCommit) {
  return {
    get: (key: string): string | undefined =>
      db.query<{ value: string }, [string]>('SELECT value FROM ledger_settings WHERE key = ?').get(key)?.value,
    set(values: Record<string, string>): void {
      commits.write(() => {
        for (const [key, value] of Object.entries(values))
          db.run(
            `INSERT INTO ledger_settings (key, value) VALUES (?, ?) ON CONFLICT (key)
              DO UPDATE SET value = excluded.value`,
            [key, value],
          )
      })
      commits.commit()
    },
  }
}

/**
 * The rows an earlier version kept for the built-in agent (`ledger_jobs`) become intents: jobs
 * claimed or submitted, and finished ones (with their reports, reported again if the hub still
 * holds them). Received ones are rebuilt from the hub's rows like any other (builtin-ledger.ts).
 */
export function adoptBuiltinLedgerRows(db: Database, commits: GroupCommit): void {
  commits.write(() => {
    db.run(`INSERT INTO ledger_intents (seq, job_id, idempotency_key, printer_id, source_message_id, state, received_at,
        updated_at, recovery_count, reports)
      SELECT seq, job_id, idempotency_key, printer_id, source_message_id, state, received_at, updated_at,
        recovery_count, reports FROM ledger_jobs WHERE state <> 'received'`)
    db.run('DELETE FROM ledger_outbox')
    db.run('DELETE FROM ledger_jobs')
  })
}
