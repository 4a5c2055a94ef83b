// Numbered, append-only schema migrations, embedded in the program. Never edit a released one:
// add the next number.
import { FORMER_SPELLINGS } from '../protocol/failures.ts'
import type { Migration } from '../sqlite/database.ts'
import { LATER_MIGRATIONS } from './migrations-later.ts'

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
        state TEXT NOT NULL CHECK (state IN ('PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING', 'COMPLETED', 'FAILED',
          'EXPIRED', 'CANCELLED')),
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
      CREATE INDEX jobs_cancel_requests ON jobs (cancel_requested_at)
        WHERE cancel_requested_at IS NOT NULL AND state IN ('DISPATCHING', 'DELIVERED');
    `,
  },
  {
    version: 3,
    description: 'dashboard: admin sessions and tokens, job timelines, printer status history, key use',
    sql: `
      -- Browser sessions of the dashboard and tokens for scripts; both stored only as hashes.
      CREATE TABLE admin_sessions (
        id TEXT PRIMARY KEY,
        token_hash BLOB NOT NULL UNIQUE,
        address TEXT NOT NULL,
        user_agent TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;

      CREATE TABLE admin_tokens (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        token_prefix TEXT NOT NULL,
        token_hash BLOB NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER
      ) STRICT;

      ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;

      -- Every state a job went through, written by the triggers below whatever changes the job:
      -- the timeline of its attempts. A failure's error is kept with the state it led to.
      CREATE TABLE job_events (
        job_seq INTEGER NOT NULL REFERENCES jobs (seq) ON DELETE CASCADE,
        at INTEGER NOT NULL,
        state TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        error_code TEXT,
        error_message TEXT
      ) STRICT;
      CREATE INDEX job_events_by_job ON job_events (job_seq, at);
      INSERT INTO job_events (job_seq, at, state, attempt) SELECT seq, created_at, 'PENDING', 0 FROM jobs;
      INSERT INTO job_events (job_seq, at, state, attempt, error_code, error_message)
        SELECT seq, updated_at, state, attempt_count, last_error_code, last_error_message FROM jobs
        WHERE state <> 'PENDING' OR attempt_count > 0;

      CREATE TRIGGER job_events_on_insert AFTER INSERT ON jobs
      BEGIN
        INSERT INTO job_events (job_seq, at, state, attempt) VALUES (NEW.seq, NEW.created_at, NEW.state, 0);
      END;
      CREATE TRIGGER job_events_on_change AFTER UPDATE OF state, attempt_count ON jobs
        WHEN OLD.state IS NOT NEW.state OR OLD.attempt_count IS NOT NEW.attempt_count
      BEGIN
        INSERT INTO job_events (job_seq, at, state, attempt, error_code, error_message) VALUES (
          NEW.seq, NEW.updated_at, NEW.state, NEW.attempt_count,
          CASE WHEN NEW.state IN ('FAILED', 'EXPIRED') OR (NEW.state = 'PENDING' AND OLD.state <> 'PENDING')
            THEN NEW.last_error_code END,
          CASE WHEN NEW.state IN ('FAILED', 'EXPIRED') OR (NEW.state = 'PENDING' AND OLD.state <> 'PENDING')
            THEN NEW.last_error_message END);
      END;

      -- What each agent printer's status was, from when: one row per change.
      CREATE TABLE printer_states (
        agent_id TEXT NOT NULL,
        printer_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        state TEXT NOT NULL
      ) STRICT;
      CREATE INDEX printer_states_by_printer ON printer_states (agent_id, printer_id, at);

      -- The dashboard counts the last hour's jobs, and lists a printer's.
      CREATE INDEX jobs_created ON jobs (created_at);
      CREATE INDEX jobs_by_printer ON jobs (printer_id, seq DESC);
    `,
  },
  {
    version: 4,
    description: 'failure codes in one spelling (area.reason), in jobs and their timelines',
    sql: renameFailureCodes(FORMER_SPELLINGS),
  },
  {
    version: 5,
    description: "bytes of unfinished jobs' documents per project, for the project's byte limit",
    sql: `
      -- Kept by the triggers below, like open_jobs: a job's document counts from when it is stored
      -- until the job ends (retention deletes only jobs that have ended).
      ALTER TABLE projects ADD COLUMN open_bytes INTEGER NOT NULL DEFAULT 0;
      UPDATE projects SET open_bytes = (
        SELECT COALESCE(SUM(length(CAST(d.document AS BLOB))), 0) FROM jobs j JOIN job_documents d ON d.job_seq = j.seq
        WHERE j.project_id = projects.id AND j.state NOT IN ${TERMINAL});
      CREATE TRIGGER job_documents_open_bytes AFTER INSERT ON job_documents
      BEGIN
        UPDATE projects SET open_bytes = open_bytes + length(CAST(NEW.document AS BLOB))
        WHERE id = (SELECT project_id FROM jobs WHERE seq = NEW.job_seq AND state NOT IN ${TERMINAL});
      END;
      CREATE TRIGGER jobs_open_bytes_on_finish AFTER UPDATE OF state ON jobs
        WHEN OLD.state NOT IN ${TERMINAL} AND NEW.state IN ${TERMINAL}
      BEGIN
        UPDATE projects SET open_bytes = open_bytes
          - COALESCE((SELECT length(CAST(document AS BLOB)) FROM job_documents WHERE job_seq = NEW.seq), 0)
        WHERE id = NEW.project_id;
      END;
    `,
  },
  {
    version: 6,
    description: "bytes of finished jobs' documents per project, for the project's history budget",
    sql: `
      -- A finished job's document counts from when the job ends until retention deletes it (the
      -- trigger runs before the delete, while the document is still there).
      ALTER TABLE projects ADD COLUMN finished_bytes INTEGER NOT NULL DEFAULT 0;
      UPDATE projects SET finished_bytes = (
        SELECT COALESCE(SUM(length(CAST(d.document AS BLOB))), 0) FROM jobs j JOIN job_documents d ON d.job_seq = j.seq
        WHERE j.project_id = projects.id AND j.state IN ${TERMINAL});
      CREATE TRIGGER jobs_finished_bytes_on_finish AFTER UPDATE OF state ON jobs
        WHEN OLD.state NOT IN ${TERMINAL} AND NEW.state IN ${TERMINAL}
      BEGIN
        UPDATE projects SET finished_bytes = finished_bytes
          + COALESCE((SELECT length(CAST(document AS BLOB)) FROM job_documents WHERE job_seq = NEW.seq), 0)
        WHERE id = NEW.project_id;
      END;
      CREATE TRIGGER jobs_finished_bytes_on_delete BEFORE DELETE ON jobs
        WHEN OLD.state IN ${TERMINAL}
      BEGIN
        UPDATE projects SET finished_bytes = finished_bytes
          - COALESCE((SELECT length(CAST(document AS BLOB)) FROM job_documents WHERE job_seq = OLD.seq), 0)
        WHERE id = OLD.project_id;
      END;
    `,
  },
  ...LATER_MIGRATIONS,
]

/** Rewrites the failure codes stored in jobs and job events from their former spellings. */
function renameFailureCodes(renames: Readonly<Record<string, string>>): string {
  const cases = Object.entries(renames)
    .map(([from, to]) => `WHEN '${from}' THEN '${to}'`)
    .join(' ')
  const former = Object.keys(renames)
    .map((from) => `'${from}'`)
    .join(', ')
  return `
    UPDATE jobs SET last_error_code = CASE last_error_code ${cases} END WHERE last_error_code IN (${former});
    UPDATE job_events SET error_code = CASE error_code ${cases} END WHERE error_code IN (${former});
  `
}
