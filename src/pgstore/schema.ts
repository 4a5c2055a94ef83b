// The hub's schema on PostgreSQL (the cluster's store): numbered, append-only migrations, embedded in the program and
// applied by `printhub migrate --store URL` (migrate.ts). Never edit a released one: add the next number. The same
// tables as the SQLite store's (store/migrations*.ts), in PostgreSQL's types: times are milliseconds since the epoch
// (bigint), as the SQLite store keeps them, so both stores' records are read the same way; the counters its triggers
// keep are kept by triggers here too. Beside them, what a cluster of nodes needs: its nodes and their leases.
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import { JOB_STATES } from '../protocol/job.ts'
import { CLUSTER_TABLES } from './schema-cluster.ts'

export interface PgMigration {
  version: number
  description: string
  sql: string
}

const list = (values: readonly string[]) => `(${values.map((value) => `'${value}'`).join(', ')})`
const TERMINAL = list(JOB_STATE_SETS.terminal)

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    description: "the hub's tables (as the SQLite store's schema 15), the cluster's nodes and leases",
    sql: `
      CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL);

      CREATE TABLE projects (
        id text PRIMARY KEY,
        name text NOT NULL,
        -- Kept by the triggers below, for the entitlement limits and the history budget.
        open_jobs bigint NOT NULL DEFAULT 0,
        open_bytes bigint NOT NULL DEFAULT 0,
        finished_bytes bigint NOT NULL DEFAULT 0,
        events_pruned_through bigint NOT NULL DEFAULT 0,
        created_at bigint NOT NULL
      );

      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        project_id text NOT NULL REFERENCES projects (id),
        name text,
        key_prefix text NOT NULL,
        secret_hash bytea NOT NULL UNIQUE,
        scopes text NOT NULL,
        created_at bigint NOT NULL,
        revoked_at bigint,
        last_used_at bigint
      );
      CREATE INDEX api_keys_by_project ON api_keys (project_id, created_at);

      CREATE TABLE agents (
        id text PRIMARY KEY,
        key_id text NOT NULL UNIQUE,
        name text NOT NULL,
        version text NOT NULL,
        platform text NOT NULL,
        installation_id text NOT NULL,
        public_key text NOT NULL,
        paired_at bigint NOT NULL,
        revoked_at bigint,
        builtin boolean NOT NULL DEFAULT false,
        last_seen_at bigint
      );

      CREATE TABLE agent_printers (
        agent_id text NOT NULL REFERENCES agents (id),
        printer_id text NOT NULL,
        name text NOT NULL,
        availability text NOT NULL,
        enabled boolean NOT NULL,
        descriptor text NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (agent_id, printer_id)
      );

      CREATE TABLE printers (
        id text PRIMARY KEY,
        project_id text NOT NULL REFERENCES projects (id),
        remote_id text NOT NULL,
        name text,
        connection text NOT NULL,
        profile text NOT NULL,
        width integer NOT NULL CHECK (width IN (58, 80)),
        created_at bigint NOT NULL,
        -- Removed printers stay for the jobs that name them.
        removed_at bigint,
        agent_id text REFERENCES agents (id),
        agent_printer_id text
      );
      CREATE UNIQUE INDEX printers_remote_id ON printers (project_id, remote_id) WHERE removed_at IS NULL;
      CREATE INDEX printers_by_agent ON printers (agent_id, agent_printer_id) WHERE removed_at IS NULL;

      CREATE TABLE jobs (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        project_id text NOT NULL REFERENCES projects (id),
        printer_id text NOT NULL REFERENCES printers (id),
        idempotency_key text NOT NULL,
        state text NOT NULL CHECK (state IN ${list(JOB_STATES)}),
        metadata jsonb,
        expires_at bigint NOT NULL,
        attempt_count integer NOT NULL DEFAULT 0,
        max_attempts integer NOT NULL CHECK (max_attempts BETWEEN 1 AND 10),
        last_error_code text,
        last_error_message text,
        received_at bigint,
        submitted_at bigint,
        dispatched_at bigint,
        not_before bigint,
        cancel_requested_at bigint,
        reprint_of text,
        destination_id text,
        moved_note text,
        fan_out_id text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        -- Idempotency is the database's: one job per key, whichever node is asked.
        UNIQUE (project_id, idempotency_key)
      );
      CREATE INDEX jobs_by_printer ON jobs (printer_id, seq DESC);
      CREATE INDEX jobs_created ON jobs (created_at);
      CREATE INDEX jobs_newest ON jobs (project_id, seq DESC);
      CREATE INDEX jobs_newest_by_state ON jobs (project_id, state, seq DESC);
      CREATE INDEX jobs_queue ON jobs (printer_id, seq) WHERE state IN ${list(JOB_STATE_SETS.queued)};
      CREATE INDEX jobs_expiry ON jobs (expires_at) WHERE state IN ${list(JOB_STATE_SETS.queued)};
      CREATE INDEX jobs_with_agent ON jobs (printer_id) WHERE state IN ${list(JOB_STATE_SETS.withAgent)};
      CREATE UNIQUE INDEX jobs_one_dispatching ON jobs (printer_id) WHERE state = 'DISPATCHING'; -- a printer's lane
      CREATE INDEX jobs_cancel_requests ON jobs (cancel_requested_at)
        WHERE cancel_requested_at IS NOT NULL AND state IN ${list(JOB_STATE_SETS.cancellableByAgent)};
      CREATE INDEX jobs_reprints ON jobs (reprint_of) WHERE reprint_of IS NOT NULL;
      CREATE INDEX jobs_waiting_at_destinations ON jobs (destination_id, printer_id)
        WHERE destination_id IS NOT NULL AND state = 'PENDING';
      CREATE INDEX jobs_of_fan_outs ON jobs (fan_out_id, seq) WHERE fan_out_id IS NOT NULL;

      CREATE TABLE job_documents (
        job_seq bigint PRIMARY KEY REFERENCES jobs (seq) ON DELETE CASCADE,
        document text NOT NULL
      );

      -- seq: SQLite's rowid, made a column (the order of a job's entries within one millisecond).
      CREATE TABLE job_events (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        job_seq bigint NOT NULL REFERENCES jobs (seq) ON DELETE CASCADE,
        at bigint NOT NULL,
        state text NOT NULL,
        attempt integer NOT NULL,
        error_code text,
        error_message text
      );
      CREATE INDEX job_events_by_job ON job_events (job_seq, at);

      CREATE TABLE job_metadata (
        project_id text NOT NULL,
        key text NOT NULL,
        value text NOT NULL,
        job_seq bigint NOT NULL REFERENCES jobs (seq) ON DELETE CASCADE,
        PRIMARY KEY (project_id, key, value, job_seq)
      );
      CREATE INDEX job_metadata_by_job ON job_metadata (job_seq);
      CREATE INDEX job_metadata_by_value ON job_metadata (value text_pattern_ops, job_seq);

      CREATE TABLE fan_outs (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        project_id text NOT NULL REFERENCES projects (id),
        -- The destination's name, as the application posted it (its jobs' printerId).
        destination text NOT NULL,
        idempotency_key text NOT NULL,
        metadata jsonb,
        expires_at bigint NOT NULL,
        max_attempts integer NOT NULL,
        created_at bigint NOT NULL,
        UNIQUE (project_id, idempotency_key)
      );
      CREATE INDEX fan_outs_newest ON fan_outs (project_id, seq DESC);

      CREATE TABLE pruned_jobs (
        id text PRIMARY KEY,
        project_id text NOT NULL,
        created_at bigint NOT NULL
      );
      CREATE INDEX pruned_jobs_by_age ON pruned_jobs (created_at);

      CREATE TABLE destinations (
        id text PRIMARY KEY,
        project_id text NOT NULL REFERENCES projects (id),
        name text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('failover', 'all')),
        printers jsonb NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        UNIQUE (project_id, name)
      );

      CREATE TABLE pairing_codes (
        code_hash bytea PRIMARY KEY,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        consumed_at bigint
      );

      -- seq: SQLite's rowid, made a column (the order of changes within one millisecond).
      CREATE TABLE printer_states (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        agent_id text NOT NULL,
        printer_id text NOT NULL,
        at bigint NOT NULL,
        state text NOT NULL
      );
      CREATE INDEX printer_states_by_printer ON printer_states (agent_id, printer_id, at);

      -- data: the event's body as JSON text, kept as written (served without parsing, its keys in their order).
      CREATE TABLE events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        project_id text NOT NULL,
        type text NOT NULL,
        occurred_at bigint NOT NULL,
        data text NOT NULL
      );
      CREATE INDEX events_by_project ON events (project_id, id);

      CREATE TABLE webhooks (
        id text PRIMARY KEY,
        project_id text NOT NULL REFERENCES projects (id),
        url text NOT NULL,
        events jsonb NOT NULL,
        description text,
        secret text NOT NULL,
        created_at bigint NOT NULL,
        failing_since bigint,
        disabled_at bigint,
        deleted_at bigint
      );
      CREATE INDEX webhooks_by_project ON webhooks (project_id) WHERE deleted_at IS NULL AND disabled_at IS NULL;

      CREATE TABLE webhook_deliveries (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        webhook_id text NOT NULL REFERENCES webhooks (id),
        message_id text NOT NULL,
        body text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_at bigint NOT NULL,
        last_status integer,
        last_error text,
        delivered_at bigint,
        created_at bigint NOT NULL
      );
      CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (webhook_id, id) WHERE delivered_at IS NULL;

      CREATE TABLE project_images (
        project_id text NOT NULL REFERENCES projects (id),
        name text NOT NULL,
        media_type text NOT NULL,
        data text NOT NULL,
        width integer NOT NULL,
        height integer NOT NULL,
        updated_at bigint NOT NULL,
        UNIQUE (project_id, name)
      );

      CREATE TABLE users (
        id text PRIMARY KEY,
        name text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'technician', 'staff')),
        password_hash text NOT NULL,
        language text,
        disabled_at bigint,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      -- Names are unique whatever their case, as SQLite's NOCASE makes them.
      CREATE UNIQUE INDEX users_name ON users (lower(name));

      CREATE TABLE admin_sessions (
        id text PRIMARY KEY,
        token_hash bytea NOT NULL UNIQUE,
        address text NOT NULL,
        user_agent text NOT NULL,
        created_at bigint NOT NULL,
        last_seen_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        revoked_at bigint,
        user_id text REFERENCES users (id)
      );

      CREATE TABLE admin_tokens (
        id text PRIMARY KEY,
        name text NOT NULL,
        token_prefix text NOT NULL,
        token_hash bytea NOT NULL UNIQUE,
        created_at bigint NOT NULL,
        last_used_at bigint,
        revoked_at bigint,
        user_id text REFERENCES users (id)
      );

      CREATE TABLE audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at bigint NOT NULL,
        user_id text,
        user_name text,
        action text NOT NULL,
        target text,
        address text
      );
      CREATE INDEX audit_log_by_time ON audit_log (at);

      -- The counters of a project's unfinished and finished jobs, and each job's timeline, as the SQLite store's
      -- triggers keep them.
      CREATE FUNCTION jobs_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO job_events (job_seq, at, state, attempt) VALUES (NEW.seq, NEW.created_at, NEW.state, 0);
        IF NEW.state NOT IN ${TERMINAL} THEN
          UPDATE projects SET open_jobs = open_jobs + 1 WHERE id = NEW.project_id;
        END IF;
        IF NEW.metadata IS NOT NULL THEN
          INSERT INTO job_metadata (project_id, key, value, job_seq)
            SELECT NEW.project_id, key, value, NEW.seq FROM jsonb_each_text(NEW.metadata);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER jobs_after_insert AFTER INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION jobs_after_insert();

      CREATE FUNCTION jobs_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        bytes bigint;
        failed boolean := NEW.state IN ('FAILED', 'EXPIRED') OR (NEW.state = 'PENDING' AND OLD.state <> 'PENDING');
      BEGIN
        IF OLD.state IS DISTINCT FROM NEW.state OR OLD.attempt_count IS DISTINCT FROM NEW.attempt_count THEN
          INSERT INTO job_events (job_seq, at, state, attempt, error_code, error_message) VALUES (
            NEW.seq, NEW.updated_at, NEW.state, NEW.attempt_count,
            CASE WHEN failed THEN NEW.last_error_code END, CASE WHEN failed THEN NEW.last_error_message END);
        END IF;
        IF OLD.state NOT IN ${TERMINAL} AND NEW.state IN ${TERMINAL} THEN
          SELECT COALESCE((SELECT octet_length(document) FROM job_documents WHERE job_seq = NEW.seq), 0) INTO bytes;
          UPDATE projects SET open_jobs = open_jobs - 1, open_bytes = open_bytes - bytes,
            finished_bytes = finished_bytes + bytes
          WHERE id = NEW.project_id;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER jobs_after_update AFTER UPDATE OF state, attempt_count ON jobs
        FOR EACH ROW EXECUTE FUNCTION jobs_after_update();

      CREATE FUNCTION jobs_before_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.state IN ${TERMINAL} THEN
          UPDATE projects SET finished_bytes = finished_bytes
            - COALESCE((SELECT octet_length(document) FROM job_documents WHERE job_seq = OLD.seq), 0)
          WHERE id = OLD.project_id;
        END IF;
        RETURN OLD;
      END $$;
      CREATE TRIGGER jobs_before_delete BEFORE DELETE ON jobs FOR EACH ROW EXECUTE FUNCTION jobs_before_delete();

      CREATE FUNCTION jobs_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO pruned_jobs (id, project_id, created_at) VALUES (OLD.id, OLD.project_id, OLD.created_at)
          ON CONFLICT (id) DO NOTHING;
        IF OLD.fan_out_id IS NOT NULL THEN
          DELETE FROM fan_outs WHERE id = OLD.fan_out_id
            AND NOT EXISTS (SELECT 1 FROM jobs WHERE fan_out_id = OLD.fan_out_id);
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER jobs_after_delete AFTER DELETE ON jobs FOR EACH ROW EXECUTE FUNCTION jobs_after_delete();

      CREATE FUNCTION job_documents_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE projects SET open_bytes = open_bytes + octet_length(NEW.document)
        WHERE id = (SELECT project_id FROM jobs WHERE seq = NEW.job_seq AND state NOT IN ${TERMINAL});
        RETURN NULL;
      END $$;
      CREATE TRIGGER job_documents_after_insert AFTER INSERT ON job_documents
        FOR EACH ROW EXECUTE FUNCTION job_documents_after_insert();

      ${CLUSTER_TABLES}
    `,
  },
]

/** The schema this program serves from: the last migration's version. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.at(-1)!.version
