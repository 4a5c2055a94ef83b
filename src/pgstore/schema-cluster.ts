// The cluster's own tables, beside the hub's (schema.ts, whose first migration makes them): each node that serves;
// what one node holds at a time (a printer it drives, an agent connected to it, the maintenance, a webhook while it
// sends one of its deliveries), each under a lease with a fencing number that only grows; the built-in agent's intents
// to print, which a node taking a printer over reads; and the failed attempts that must be counted across nodes
// (pairing codes tried), by a hash of what was tried, never the code itself.
export const CLUSTER_TABLES = `
-- The cluster: each node that serves, and what one node holds at a time (a printer it drives, an agent connected
-- to it, the maintenance), each under a lease with a fencing number that only grows.
CREATE TABLE nodes (
  id text PRIMARY KEY,
  name text NOT NULL,
  address text,
  version text NOT NULL,
  started_at bigint NOT NULL,
  seen_at bigint NOT NULL
);

CREATE SEQUENCE lease_fences;
CREATE TABLE leases (
  -- What is held: "printer:prn_…", "agent:agt_…", "maintenance".
  resource text PRIMARY KEY,
  node_id text NOT NULL REFERENCES nodes (id),
  fence bigint NOT NULL DEFAULT nextval('lease_fences'),
  expires_at bigint NOT NULL
);
CREATE INDEX leases_of_node ON leases (node_id);

-- The built-in agent's intents to print: the attempt of a job that a node was about to write to its printer (under
-- the printer's lease), recorded before the first byte. A node that takes the printer over fails those jobs as "may
-- have printed" instead of printing them again.
CREATE TABLE print_intents (
  job_id text PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  recorded_at bigint NOT NULL
);

CREATE TABLE failure_counts (
  -- What is counted ("pairing-address", "pairing-code"), and a SHA-256 of the key (an address, with a code tried).
  scope text NOT NULL,
  key_hash text NOT NULL,
  -- When the failures of the current window happened, ms since the epoch; lockouts in a row; locked until then.
  times bigint[] NOT NULL,
  level integer NOT NULL,
  locked_until bigint NOT NULL,
  PRIMARY KEY (scope, key_hash)
);
`
