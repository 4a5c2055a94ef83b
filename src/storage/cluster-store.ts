// What a cluster's node needs of its store beyond the repositories (docs/cluster.md): units fenced by a lease, the
// leases themselves, the maintenance it does alone, and the hints nodes send each other. PostgreSQL's store has it
// (pgstore/pg-store.ts); the dispatcher of a node knows it by this, and no PostgreSQL.
import type { Job } from '../protocol/job.ts'
import type { Fence } from './job-repositories.ts'
import type { UnitRunner } from './repositories.ts'

/** A lease a node took (pgstore/leases.ts): its fencing number, and until when by the database's clock. */
export interface HeldLease {
  fence: number
  expiresAt: number
}

/**
 * A cluster's store, as a node's delivery uses it: units run as any store's; units run under a lease it holds
 * (`fenced`), whose job state steps change nothing once another node took that lease; the leases themselves; and
 * the hints one node sends the others (`notify`: a printer has work, a cancellation was asked), heard by `listen`.
 */
export interface ClusterStore extends UnitRunner {
  fenced(fence: Fence): UnitRunner
  /** Takes (or renews) the lease of `resource` for `ttlMs`; undefined while another node holds it. */
  takeLease(resource: string, nodeId: string, ttlMs: number): Promise<HeldLease | undefined>
  /** The resources whose leases hold now, by the database's clock. */
  liveLeases(): Promise<Set<string>>
  /** Says this node is alive now; how many nodes were seen within `withinMs` (this one among them). */
  nodesAlive(nodeId: string, withinMs: number): Promise<number>
  /** Gives a lease up, if it still has this number. */
  releaseLease(resource: string, nodeId: string, fence: number): Promise<void>
  /**
   * Jobs of agents that will never report on them end FAILED `job.recovery_uncertain`: a revoked agent's; and, once
   * their time ran out, those of an agent connected to no node and not seen since `awaySince`. At most `limit`.
   */
  giveUpOnGoneAgents(awaySince: number, limit: number): Promise<Job[]>
  /**
   * The built-in agent's intent to print an attempt, recorded under its printer's lease before the first byte (the job
   * received too, if its receipt is not recorded yet); whether it was (not once another node took the printer).
   */
  recordIntent(fence: Fence, jobId: string, attempt: number): Promise<boolean>
  /**
   * Before a node drives a printer of the built-in agent it took over: the jobs whose intent to print was recorded and
   * whose end was never told end FAILED `job.recovery_uncertain`; returned.
   */
  takeOverPrinter(fence: Fence, printerId: string): Promise<Job[]>
  notify(hint: string): Promise<void>
  /** Hears every node's hints until the returned function is called. */
  listen(heard: (hint: string) => void): Promise<() => Promise<void>>
}
