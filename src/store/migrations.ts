// Numbered, append-only schema migrations, embedded in the program. Never edit a released one:
// add the next number.

export interface Migration {
  version: number
  description: string
  sql: string
}

const TERMINAL = `('COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED')`

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'projects, API keys, printers, jobs, pairing codes, agents',
    sql: `
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;

      CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        -- Jobs not yet in a terminal state; kept by the triggers below for the entitlement limit.
        open_jobs INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT,
        key_prefix TEXT NOT NULL,
        secret_hash BLOB NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
      CREATE INDEX api_keys_by_project ON api_keys (project_id, created_at);

      CREATE TABLE printers (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        remote_id TEXT NOT NULL,
        name TEXT,
        connection TEXT NOT NULL,
        profile TEXT NOT NULL,
        width INTEGER NOT NULL CHECK (width IN (58, 80)),
        created_at INTEGER NOT NULL,
        -- Removed printers stay for the jobs that name them.
        removed_at INTEGER
      ) STRICT;
      CREATE UNIQUE INDEX printers_remote_id ON printers (project_id, remote_id) WHERE removed_at IS NULL;

      CREATE TABLE jobs (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        project_id TEXT NOT NULL REFERENCES projects (id),
        printer_id TEXT NOT NULL REFERENCES printers (id),
        idempotency_key TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING', 'COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED')),
        metadata TEXT,
        expires_at INTEGER NOT NULL,
        attempt_count INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL CHECK (max_attempts BETWEEN 1 AND 10),
        last_error_code TEXT,
        last_error_message TEXT,
        received_at INTEGER,
        submitted_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (project_id, idempotency_key)
      ) STRICT;
      -- The job list: the newest jobs of a project, optionally of one state.
      CREATE INDEX jobs_newest ON jobs (project_id, seq DESC);
      CREATE INDEX jobs_newest_by_state ON jobs (project_id, state, seq DESC);

      -- Documents live apart so that lists and state changes never read them.
      CREATE TABLE job_documents (
        job_seq INTEGER PRIMARY KEY REFERENCES jobs (seq) ON DELETE CASCADE,
        document TEXT NOT NULL
      ) STRICT;

      CREATE TRIGGER jobs_open_on_insert AFTER INSERT ON jobs WHEN NEW.state NOT IN ${TERMINAL}
      BEGIN
        UPDATE projects SET open_jobs = open_jobs + 1 WHERE id = NEW.project_id;
      END;
      CREATE TRIGGER jobs_open_on_finish AFTER UPDATE OF state ON jobs
        WHEN OLD.state NOT IN ${TERMINAL} AND NEW.state IN ${TERMINAL}
      BEGIN
        UPDATE projects SET open_jobs = open_jobs - 1 WHERE id = NEW.project_id;
      END;

      CREATE TABLE pairing_codes (
        code_hash BLOB PRIMARY KEY,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        consumed_at INTEGER
      ) STRICT;

      CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        platform TEXT NOT NULL,
        installation_id TEXT NOT NULL,
        public_key TEXT NOT NULL,
        paired_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
    `,
  },
  {
    version: 2,
    description: 'delivery: printers owned by agents, agent inventories, attempts, backoff, cancellation',
    sql: `
      -- Which agent printer a printer record stands for. The built-in agent's printers are the
      -- records themselves (agent_printer_id = id); a remote agent's are assigned to a project.
      ALTER TABLE printers ADD COLUMN agent_id TEXT REFERENCES agents (id);
      ALTER TABLE printers ADD COLUMN agent_printer_id TEXT;
      CREATE INDEX printers_by_agent ON printers (agent_id, agent_printer_id) WHERE removed_at IS NULL;

      ALTER TABLE agents ADD COLUMN builtin INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agents ADD COLUMN last_seen_at INTEGER;

      -- The printers each agent last reported (its latest inventory), as it described them.
      CREATE TABLE agent_printers (
        agent_id TEXT NOT NULL REFERENCES agents (id),
        printer_id TEXT NOT NULL,
        name TEXT NOT NULL,
        availability TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        descriptor TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (agent_id, printer_id)
      ) STRICT;

      -- The current attempt started at dispatched_at (its frame's sentAt); a retry waits until
      -- not_before; an operator asked to cancel a dispatched job at cancel_requested_at.
      ALTER TABLE jobs ADD COLUMN dispatched_at INTEGER;
      ALTER TABLE jobs ADD COLUMN not_before INTEGER;
      ALTER TABLE jobs ADD COLUMN cancel_requested_at INTEGER;
      -- Each printer's queue: its jobs not yet with the agent, oldest first.
      CREATE INDEX jobs_queue ON jobs (printer_id, seq) WHERE state IN ('PENDING', 'DISPATCHING');
      CREATE INDEX jobs_expiry ON jobs (expires_at) WHERE state IN ('PENDING', 'DISPATCHING');
      -- Jobs an agent holds: asked about again when a printhub agent reconnects.
      CREATE INDEX jobs_with_agent ON jobs (printer_id) WHERE state IN ('DELIVERED', 'PRINTING');
      CREATE INDEX jobs_cancel_requests ON jobs (cancel_requested_at) WHERE cancel_requested_at IS NOT NULL AND state IN ('DISPATCHING', 'DELIVERED');
    `,
  },
]
