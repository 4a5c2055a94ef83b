// Which node of a cluster does its maintenance (expiry, the jobs of agents gone for good, retention): the one that
// holds the lease `maintenance`, taken or renewed every third of its length as the sweep asks.
import type { ClusterStore } from '../storage/cluster-store.ts'
import type { ClusterSettings } from './cluster-lanes.ts'

/** The lease of the node that does the cluster's maintenance. */
const MAINTENANCE = 'maintenance'

export class MaintenanceLease {
  /** The lease as this node last found it. */
  private held = false
  private fence = 0
  private checkedAt = Number.NEGATIVE_INFINITY
  private until = 0

  constructor(
    private readonly store: ClusterStore,
    private readonly settings: ClusterSettings,
  ) {}

  /** Whether this node did the cluster's maintenance at its last look. */
  get maintaining(): boolean {
    return this.held && performance.now() < this.until
  }

  /** Whether this node does the cluster's maintenance now: the lease taken or renewed, at most every third of it. */
  async maintains(): Promise<boolean> {
    const now = performance.now()
    const ttl = this.settings.leaseMs()
    if (now < this.checkedAt + ttl / 3) return this.held && now < this.until
    this.checkedAt = now
    const lease = await this.store.takeLease(MAINTENANCE, this.settings.nodeId, ttl).catch(() => undefined)
    this.held = lease !== undefined
    this.fence = lease?.fence ?? 0
    this.until = now + ttl
    return this.held
  }

  /** Gives the lease up (the node stops), so that another node takes the maintenance at once. */
  async release(): Promise<void> {
    if (this.held) await this.store.releaseLease(MAINTENANCE, this.settings.nodeId, this.fence)
    this.held = false
  }
}
