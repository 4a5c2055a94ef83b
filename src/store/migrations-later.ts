// The hub's schema migrations from 7 on (migrations.ts has the earlier ones and the list): numbered,
// append-only, embedded in the program. Never edit a released one: add the next number.
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import type { Migration } from '../sqlite/database.ts'
import { stateIn } from './sql.ts'

/** Whether the job state in `column` is one a job ends in, or not, from the state machine's table. */
const ended = (column: string) => stateIn(JOB_STATE_SETS.terminal, column)
const open = (column: string) => `NOT (${ended(column)})`

export const LATER_MIGRATIONS: readonly Migration[] = [
  {
    version: 7,
    description:
      'printers:read for every key that reads jobs; jobs found by their ' +
      "metadata (an order's number) along an index; each project's event log " +
      'and its webhooks',
    sql: `
      -- Scopes are kept sorted, space-separated; printers:read sorts after both jobs scopes.
      UPDATE api_keys SET scopes = scopes || ' printers:read'
      WHERE (' ' || scopes || ' ') LIKE '% jobs:read %' AND (' ' || scopes || ' ') NOT LIKE '% printers:read %';

      -- Each metadata entry of each job, newest job first along the key: the job of order 1042
      -- without reading the others. A job's metadata never changes; the rows go with the job.
      CREATE TABLE job_metadata (
        project_id TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        job_seq INTEGER NOT NULL REFERENCES jobs (seq) ON DELETE CASCADE,
        PRIMARY KEY (project_id, key, value, job_seq)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX job_metadata_by_job ON job_metadata (job_seq);
      INSERT INTO job_metadata (project_id, key, value, job_seq)
        SELECT j.project_id, m.key, m.value, j.seq FROM jobs j, json_each(j.metadata) m WHERE j.metadata IS NOT NULL;
      CREATE TRIGGER job_metadata_on_insert AFTER INSERT ON jobs WHEN NEW.metadata IS NOT NULL
      BEGIN
        INSERT INTO job_metadata (project_id, key, value, job_seq)
          SELECT NEW.project_id, key, value, NEW.seq FROM json_each(NEW.metadata);
      END;

      -- What applications follow: each event once, in order, by an ID never reused (AUTOINCREMENT).
      CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id TEXT NOT NULL,
        type TEXT NOT NULL,
        occurred_at INTEGER NOT NULL,
        data TEXT NOT NULL
      ) STRICT;
      CREATE INDEX events_by_project ON events (project_id, id);
      -- The newest event ID pruned from the project's log: a reader resuming from before it missed some.
      ALTER TABLE projects ADD COLUMN events_pruned_through INTEGER NOT NULL DEFAULT 0;

      -- Webhooks: the secret is kept as it is (the hub signs with it); a deleted one keeps its row.
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        description TEXT,
        secret TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        failing_since INTEGER,
        disabled_at INTEGER,
        deleted_at INTEGER
      ) STRICT;
      CREATE INDEX webhooks_by_project ON webhooks (project_id) WHERE deleted_at IS NULL AND disabled_at IS NULL;
      -- The outbox: each event for each webhook that wants it, with its body as it was, until sent.
      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY,
        webhook_id TEXT NOT NULL REFERENCES webhooks (id),
        message_id TEXT NOT NULL,
        body TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at INTEGER NOT NULL,
        last_status INTEGER,
        last_error TEXT,
        delivered_at INTEGER,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (webhook_id, id) WHERE delivered_at IS NULL;
    `,
  },
  {
    version: 8,
    description:
      'a reprint remembers the job it reprints, found both ways; pruned jobs are remembered by ID for a while',
    sql: `
      -- The job a reprint was made from (its ID); NULL for any other job. Kept when the original is
      -- pruned: the reprint still says what it reprinted.
      ALTER TABLE jobs ADD COLUMN reprint_of TEXT;
      CREATE INDEX jobs_reprints ON jobs (reprint_of) WHERE reprint_of IS NOT NULL;

      -- The jobs retention deleted, by ID, with their project and creation time: asked to reprint
      -- one, the hub says it was pruned rather than that it never was. Forgotten in their turn
      -- (housekeeping, by creation time).
      CREATE TABLE pruned_jobs (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX pruned_jobs_by_age ON pruned_jobs (created_at);
      CREATE TRIGGER jobs_remembered_when_pruned AFTER DELETE ON jobs
      BEGIN
        INSERT OR IGNORE INTO pruned_jobs (id, project_id, created_at) VALUES (OLD.id, OLD.project_id, OLD.created_at);
      END;
    `,
  },
  {
    version: 9,
    description: "each project's stored images (a logo), printed by name",
    sql: `
      -- An image a project uploads once and its documents name (a logo section), its data as the
      -- document's image section carries it (base64). A job takes a copy when it is made.
      CREATE TABLE project_images (
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL,
        media_type TEXT NOT NULL,
        data TEXT NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (project_id, name)
      ) STRICT;
    `,
  },
  {
    version: 10,
    description:
      "destinations: a project's names for groups of printers, with failover; " +
      'printers:write for keys that had every scope',
    sql: `
      -- Keys that had every scope (what init makes) get the new one too; scopes stay sorted.
      UPDATE api_keys SET scopes = 'jobs:read jobs:write printers:read printers:write webhooks:write'
      WHERE scopes = 'jobs:read jobs:write printers:read webhooks:write';

      -- A name applications post to instead of a printer, and its printers in order (their IDs, as JSON).
      CREATE TABLE destinations (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects (id),
        name TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('failover', 'all')),
        printers TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (project_id, name)
      ) STRICT;
      -- A job posted to a destination keeps it (its printer may change while it waits), and what
      -- its ticket says when it moved to another printer.
      ALTER TABLE jobs ADD COLUMN destination_id TEXT;
      ALTER TABLE jobs ADD COLUMN moved_note TEXT;
      CREATE INDEX jobs_waiting_at_destinations ON jobs (destination_id, printer_id)
        WHERE destination_id IS NOT NULL AND state = 'PENDING';
    `,
  },
  {
    version: 11,
    description:
      'fan-out: a job posted to a destination of mode "all" is one job per printer, answered for by one parent',
    sql: `
      -- A job posted to a destination of mode "all": one job per printer (its children, in the
      -- destination's order), and this row, which answers for them under the application's
      -- idempotency key and ID. It is never dispatched: its state is its children's, summarised
      -- (domain/fan-out.ts). Its document is each child's.
      CREATE TABLE fan_outs (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        project_id TEXT NOT NULL REFERENCES projects (id),
        -- The destination's name, as the application posted it (its jobs' printerId).
        destination TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        metadata TEXT,
        expires_at INTEGER NOT NULL,
        max_attempts INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (project_id, idempotency_key)
      ) STRICT;
      ALTER TABLE jobs ADD COLUMN fan_out_id TEXT;
      CREATE INDEX jobs_of_fan_outs ON jobs (fan_out_id, seq) WHERE fan_out_id IS NOT NULL;
      -- A parent goes with its last child (retention deletes finished jobs).
      CREATE TRIGGER fan_outs_go_with_their_jobs AFTER DELETE ON jobs WHEN OLD.fan_out_id IS NOT NULL
      BEGIN
        DELETE FROM fan_outs WHERE id = OLD.fan_out_id
          AND NOT EXISTS (SELECT 1 FROM jobs INDEXED BY jobs_of_fan_outs WHERE fan_out_id = OLD.fan_out_id);
      END;
    `,
  },
  {
    version: 12,
    description:
      'staff accounts with roles, sessions and admin tokens per account, the ' +
      'audit log, and jobs found by a metadata value whatever its key',
    sql: `
      -- People who use the dashboard and the admin API, each with a role and a password (argon2id).
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL COLLATE NOCASE UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('owner', 'technician', 'staff')),
        password_hash TEXT NOT NULL,
        language TEXT,
        disabled_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      -- The one admin password of before becomes the account "admin", an owner; its sessions and
      -- tokens are that account's.
      INSERT INTO users (id, name, role, password_hash, created_at, updated_at)
        SELECT 'usr_' || lower(hex(randomblob(16))), 'admin', 'owner', value,
          CAST(unixepoch('subsec') * 1000 AS INTEGER), CAST(unixepoch('subsec') * 1000 AS INTEGER)
        FROM settings WHERE key = 'admin_password_hash';
      DELETE FROM settings WHERE key = 'admin_password_hash';
      ALTER TABLE admin_sessions ADD COLUMN user_id TEXT REFERENCES users (id);
      ALTER TABLE admin_tokens ADD COLUMN user_id TEXT REFERENCES users (id);
      UPDATE admin_sessions SET user_id = (SELECT id FROM users WHERE name = 'admin');
      UPDATE admin_tokens SET user_id = (SELECT id FROM users WHERE name = 'admin');
      -- A session or token of no account (there was no password) can never be used again.
      UPDATE admin_sessions SET revoked_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
        WHERE user_id IS NULL AND revoked_at IS NULL;
      UPDATE admin_tokens SET revoked_at = CAST(unixepoch('subsec') * 1000 AS INTEGER)
        WHERE user_id IS NULL AND revoked_at IS NULL;

      -- Who did what, when, from where: every change through the admin API or on the machine, and
      -- every sign-in, newest last. The account's name is kept as it was then.
      CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        user_id TEXT,
        user_name TEXT,
        action TEXT NOT NULL,
        target TEXT,
        address TEXT
      ) STRICT;
      CREATE INDEX audit_log_by_time ON audit_log (at);

      -- The dashboard's search: the jobs of an order number or a table, whatever the key holding it.
      CREATE INDEX job_metadata_by_value ON job_metadata (value, job_seq);
    `,
  },
  {
    version: 13,
    description:
      "a document's bytes counted from its record's header: finishing or pruning a job never reads its document",
    sql: `
      -- octet_length() of a column is answered from the record's header; length(CAST(... AS BLOB))
      -- read the whole document, from disk if need be (twice when a job ended: a 2 MB image, 4 MB).
      -- octet_length() is SQLite 3.43's; the runtime embeds its own SQLite (3.54 in Bun 1.4.5).
      DROP TRIGGER job_documents_open_bytes;
      CREATE TRIGGER job_documents_open_bytes AFTER INSERT ON job_documents
      BEGIN
        UPDATE projects SET open_bytes = open_bytes + octet_length(NEW.document)
        WHERE id = (SELECT project_id FROM jobs WHERE seq = NEW.job_seq AND ${open('state')});
      END;
      DROP TRIGGER jobs_open_bytes_on_finish;
      CREATE TRIGGER jobs_open_bytes_on_finish AFTER UPDATE OF state ON jobs
        WHEN ${open('OLD.state')} AND ${ended('NEW.state')}
      BEGIN
        UPDATE projects SET open_bytes = open_bytes
          - COALESCE((SELECT octet_length(document) FROM job_documents WHERE job_seq = NEW.seq), 0)
        WHERE id = NEW.project_id;
      END;
      DROP TRIGGER jobs_finished_bytes_on_finish;
      CREATE TRIGGER jobs_finished_bytes_on_finish AFTER UPDATE OF state ON jobs
        WHEN ${open('OLD.state')} AND ${ended('NEW.state')}
      BEGIN
        UPDATE projects SET finished_bytes = finished_bytes
          + COALESCE((SELECT octet_length(document) FROM job_documents WHERE job_seq = NEW.seq), 0)
        WHERE id = NEW.project_id;
      END;
      DROP TRIGGER jobs_finished_bytes_on_delete;
      CREATE TRIGGER jobs_finished_bytes_on_delete BEFORE DELETE ON jobs
        WHEN ${ended('OLD.state')}
      BEGIN
        UPDATE projects SET finished_bytes = finished_bytes
          - COALESCE((SELECT octet_length(document) FROM job_documents WHERE job_seq = OLD.seq), 0)
        WHERE id = OLD.project_id;
      END;
    `,
  },
  {
    version: 14,
    description: "a job's end counted by one trigger, not three: every change of a job's state runs two programs fewer",
    sql: `
      -- Each AFTER UPDATE OF state trigger runs as a program of its own at every change of state,
      -- whatever its WHEN says (1.5 µs each, measured): three triggers kept the tallies of a
      -- job's end, one for each column. One trigger now changes the three in one UPDATE.
      DROP TRIGGER jobs_open_on_finish;
      DROP TRIGGER jobs_open_bytes_on_finish;
      DROP TRIGGER jobs_finished_bytes_on_finish;
      CREATE TRIGGER jobs_on_finish AFTER UPDATE OF state ON jobs
        WHEN ${open('OLD.state')} AND ${ended('NEW.state')}
      BEGIN
        UPDATE projects SET open_jobs = open_jobs - 1, open_bytes = open_bytes - document.bytes,
          finished_bytes = finished_bytes + document.bytes
        FROM (SELECT COALESCE((SELECT octet_length(document) FROM job_documents WHERE job_seq = NEW.seq), 0) AS bytes)
          AS document
        WHERE id = NEW.project_id;
      END;
    `,
  },
  {
    version: 15,
    description:
      "a project's fan-outs found newest first along an index: the job list " +
      "lists the parents (fanOut=true) without reading another project's",
    sql: `
      -- The job list's fanOut=true walks a project's parents newest first, as jobs_newest does its jobs.
      CREATE INDEX fan_outs_newest ON fan_outs (project_id, seq DESC);
    `,
  },
]
