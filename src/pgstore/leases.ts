// What one node of a cluster holds at a time (a printer it drives, an agent connected to it, the maintenance), each
// under a lease in the database with a fencing number that only grows (docs/decisions.md, "Delivery across nodes").
// A lease is taken when it is free, has run out, or is the taker's own (renewing it keeps its number); a node's
// writes that follow from a lease are conditioned on its number, so a node whose lease was taken changes nothing.
import type { SQL } from 'bun'
import { type Big, int } from '../storage/rows.ts'

/** A node of the cluster as it says itself. */
export interface ClusterNode {
  id: string
  name: string
  /** Where other nodes and agents reach it, when it says. */
  address: string | null
  version: string
}

/** A lease held: by which node, its fencing number, until when (ms since the epoch, by the database's clock). */
export interface Lease {
  resource: string
  nodeId: string
  fence: number
  expiresAt: number
}

/**
 * The condition of a write that follows from a lease: the lease of `resource` still has the number `fence` (SQL
 * parameters, e.g. `$2` and `$3`). The lease's row is locked (FOR SHARE) until the write commits, so a node taking the
 * lease meanwhile waits for it, and a write after the take sees the new number. Without the lock, a write that read the
 * lease just before another node took it could commit after that node had looked at the printer's jobs.
 */
export const leaseHolds = (resource: string, fence: string): string =>
  `EXISTS (SELECT 1 FROM leases WHERE resource = ${resource} AND fence = ${fence}::bigint FOR SHARE)`

/** A lease no node holds: when it ran out (or was given up), how long ago by the database's clock, its number. */
export interface RanOut {
  at: number
  agoMs: number
  fence: number
}

/** The leases held now, and the others with when they ran out. */
export interface LeaseStates {
  live: Set<string>
  ranOut: Map<string, RanOut>
}

interface LeaseRow {
  resource: string
  node_id: string
  fence: Big
  expires_at: Big
}

const leaseOf = (row: LeaseRow): Lease => ({
  resource: row.resource,
  nodeId: row.node_id,
  fence: int(row.fence),
  expiresAt: int(row.expires_at),
})

/**
 * The database's clock, in ms since the epoch: leases run out by one clock, whatever each node's says (a Pi without a
 * real-time clock, a node whose clock jumped).
 */
export const DB_NOW = '(extract(epoch from clock_timestamp()) * 1000)::bigint'

/** The longest resource name taken ("printer:prn_…", "agent:agt_…", "maintenance"). */
const MAX_RESOURCE_LENGTH = 200

export class PgLeases {
  constructor(private readonly sql: SQL) {}

  /** Says the node is in the cluster (again, after a restart: the same ID), and when it was last seen. */
  async join(node: ClusterNode): Promise<void> {
    const now = this.sql.unsafe(DB_NOW)
    await this.sql`INSERT INTO nodes (id, name, address, version, started_at, seen_at)
      VALUES (${node.id}, ${node.name}, ${node.address}, ${node.version}, ${now}, ${now})
      ON CONFLICT (id) DO UPDATE SET name = excluded.name, address = excluded.address, version = excluded.version,
        started_at = excluded.started_at, seen_at = excluded.seen_at`
  }

  /** Says the node is alive now; how many nodes were seen within `withinMs` (this one among them). */
  async alive(nodeId: string, withinMs: number): Promise<number> {
    const now = this.sql.unsafe(DB_NOW)
    await this.sql`UPDATE nodes SET seen_at = ${now} WHERE id = ${nodeId}`
    const [row] = await this.sql<{ n: Big }[]>`SELECT count(*) AS n FROM nodes WHERE seen_at > ${now} - ${withinMs}`
    return Math.max(1, int(row!.n))
  }

  /**
   * Takes the lease of `resource` for `ttlMs` when it is free, has run out, or is this node's already (then renewed,
   * with the same number); the lease, or undefined while another node holds it. One statement: of nodes taking a
   * free lease at once, one gets it.
   */
  async take(resource: string, nodeId: string, ttlMs: number): Promise<Lease | undefined> {
    if (resource.length === 0 || resource.length > MAX_RESOURCE_LENGTH)
      throw new RangeError(`a lease's resource is 1 to ${MAX_RESOURCE_LENGTH} characters`)
    const now = this.sql.unsafe(DB_NOW)
    const [row] = await this.sql<LeaseRow[]>`INSERT INTO leases (resource, node_id, expires_at)
      VALUES (${resource}, ${nodeId}, ${now} + ${ttlMs})
      ON CONFLICT (resource) DO UPDATE SET node_id = excluded.node_id,
        fence = CASE WHEN leases.node_id = excluded.node_id THEN leases.fence ELSE nextval('lease_fences') END,
        expires_at = excluded.expires_at
      WHERE leases.node_id = excluded.node_id OR leases.expires_at <= ${now}
      RETURNING resource, node_id, fence, expires_at`
    return row ? leaseOf(row) : undefined
  }

  /**
   * Gives a lease up (a node stopping cleanly), if it still has this number; whether it did. It runs out now, under a
   * new number (nothing written under the old one passes any more), and says when it ran out (what a printer's
   * condition counts from): free for another node at once.
   */
  async release(resource: string, nodeId: string, fence: number): Promise<boolean> {
    const now = this.sql.unsafe(DB_NOW)
    const rows = await this.sql`UPDATE leases SET expires_at = ${now}, fence = nextval('lease_fences')
      WHERE resource = ${resource} AND node_id = ${nodeId} AND fence = ${fence} AND expires_at > ${now}
      RETURNING resource`
    return rows.length === 1
  }

  /** Who holds the lease of `resource` now (an expired one too: until another node takes it). */
  async holder(resource: string): Promise<Lease | undefined> {
    const [row] = await this.sql<LeaseRow[]>`SELECT resource, node_id, fence, expires_at FROM leases
      WHERE resource = ${resource}`
    return row ? leaseOf(row) : undefined
  }

  /** The database's clock now, in ms since the epoch (what leases run out by). */
  async clock(): Promise<number> {
    const [row] = await this.sql<{ now: Big }[]>`SELECT ${this.sql.unsafe(DB_NOW)} AS now`
    return int(row!.now)
  }

  /** The resources whose leases hold now, by the database's clock (what is driven, and by some node). */
  async live(): Promise<Set<string>> {
    const rows = await this.sql<{ resource: string }[]>`SELECT resource FROM leases
      WHERE expires_at > ${this.sql.unsafe(DB_NOW)}`
    return new Set(rows.map((row) => row.resource))
  }

  /**
   * The leases that hold now, and when each of the others ran out (a node that died or stalled leaves its leases to
   * run out; one that stops cleanly gives them up, and they are gone), by the database's clock.
   */
  async states(): Promise<LeaseStates> {
    const rows = await this.sql<{ resource: string; fence: Big; expires_at: Big; ago: Big }[]>`SELECT resource, fence,
      expires_at, ${this.sql.unsafe(DB_NOW)} - expires_at AS ago FROM leases`
    const live = new Set<string>()
    const ranOut = new Map<string, RanOut>()
    for (const row of rows) {
      const ago = int(row.ago)
      if (ago < 0) live.add(row.resource)
      else ranOut.set(row.resource, { at: int(row.expires_at), agoMs: ago, fence: int(row.fence) })
    }
    return { live, ranOut }
  }

  /** Whether the lease of `resource` still has the number `fence`: a write that follows from it may be made. */
  async holds(resource: string, fence: number): Promise<boolean> {
    const rows = await this.sql`SELECT 1 FROM leases WHERE resource = ${resource} AND fence = ${fence}`
    return rows.length === 1
  }
}
