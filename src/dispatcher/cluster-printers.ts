// The built-in agent's printers on a node of a cluster (docs/decisions.md, "Delivery across nodes"): each is driven by
// one node at a time, under a lease `printer:ID` renewed every third of its length. A node takes a printer whose lease
// is free or ran out (its node stopped, died or stalled), while it drives fewer than its share of the printers over
// the nodes alive (or once no other node took it for a whole lease length); a printer attached to one machine only on
// that machine (while its device is there), one that polls only while it polls this node. Before it drives it, the
// jobs whose intent to print the last node recorded and never said how they ended fail as "may have printed", and the
// others that node held are sent again. Each intent to print is recorded under the lease before the first byte
// (recordIntent): a node whose lease was taken prints nothing more.
import type { CatalogPrinter } from '../agent/catalog.ts'
import type { LedgerJob } from '../agent/ledger-rows.ts'
import {
  type AttachedConnection,
  isAttached,
  parseConnectionUri,
  type PollingConnection,
  polls,
} from '../domain/connection-uri.ts'
import type { PrinterRecord } from '../domain/records.ts'
import type { ClusterStore } from '../storage/cluster-store.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import type { ClusterSettings } from './cluster-lanes.ts'
import { parseWireJobId } from './wire-identity.ts'

/** The lease of a printer of the built-in agent, held by the node that drives it. */
export const printerLease = (printerId: string): string => `printer:${printerId}`

/** A printer of the built-in agent this node drives: its record, its lease, and its writes fenced by it. */
export interface PrinterLease {
  record: PrinterRecord
  fence: number
  units: UnitRunner
  /** Until when (performance.now()) the lease surely holds: taken before it was asked for, plus its length. */
  validUntil: number
}

/** What the node's dispatcher is told: a printer it now drives (its jobs recovered), or one it no longer does. */
export type PrinterChanged = (printerId: string) => void

export class NodePrinters {
  /** The printers this node drives, by record ID. */
  readonly leases = new Map<string, PrinterLease>()
  private round: Promise<void> = Promise.resolve()
  /** Printers no node drives, seen so by this node since then (performance.now()), while it has its share. */
  private readonly freeSince = new Map<string, number>()
  /** The node stops: no printer is taken any more (a round under way when it stopped takes none). */
  private released = false

  constructor(
    private readonly store: ClusterStore,
    private readonly settings: ClusterSettings,
    /** The cluster's built-in agent. */
    readonly agentId: string,
    private readonly changed: PrinterChanged,
  ) {}

  /** The node's agent's printers: those this node drives. */
  catalog(): CatalogPrinter[] {
    return [...this.leases.values()].map(({ record }) => ({
      id: record.agentPrinterId,
      name: record.name ?? record.remoteId,
      connection: record.connection,
      profile: record.profile,
      width: record.width,
    }))
  }

  /** The lease of the printer the node's agent calls `agentPrinterId`. */
  ofAgentPrinter(agentPrinterId: string): PrinterLease | undefined {
    for (const lease of this.leases.values()) if (lease.record.agentPrinterId === agentPrinterId) return lease
    return undefined
  }

  /**
   * Renews the leases this node holds and takes the free ones, one round at a time (a round still running when the
   * next is due is not doubled).
   */
  renew(): Promise<void> {
    this.round = this.round.then(() =>
      this.renewOnce().catch((error: unknown) =>
        this.settings.log.warn(
          "the built-in agent's printers' leases could not be renewed; they are tried again shortly",
          { error: String(error) },
          { limit: 'printer leases' },
        ),
      ),
    )
    return this.round
  }

  private async renewOnce(): Promise<void> {
    if (this.released) return
    const records = await this.store.read((db) => db.printers.ofAgent(this.agentId))
    const present = new Set(records.map((record) => record.id))
    // Removed from the cluster: given up.
    for (const [printerId, lease] of this.leases)
      if (!present.has(printerId)) {
        this.lose(printerId)
        await this.store.releaseLease(printerLease(printerId), this.settings.nodeId, lease.fence)
      }
    const ttl = this.settings.leaseMs()
    // The printers are spread over the nodes alive: a node takes a free one while it drives fewer than its share.
    const share = Math.ceil(records.length / (await this.store.nodesAlive(this.settings.nodeId, ttl)))
    const live = await this.store.liveLeases()
    for (const record of records) {
      const asked = performance.now()
      const held = this.leases.get(record.id)
      if (this.released) return
      const connection = parseConnectionUri(record.connection)
      const found = connection.ok ? connection.connection : undefined
      const polled = found && polls(found) ? this.polled(found, ttl) : undefined
      // A printer that polls is driven by the node it polls (the proxy in front routes its requests to one node): a
      // node that no longer hears it gives it up, for the node it polls now.
      if (polled === false) {
        if (held) await this.giveUp(record.id, held)
        continue
      }
      // A printer attached to one machine is taken by a node on that machine only (kept while it is gone a moment).
      const attached = !held && found && isAttached(found) ? await this.attachedHere(found) : undefined
      if (attached === false) continue
      const pinned = polled ?? attached
      if (!held && (pinned ? live.has(printerLease(record.id)) : !this.mayTake(record.id, live, share, ttl))) continue
      const taken = await this.store.takeLease(printerLease(record.id), this.settings.nodeId, ttl)
      if (this.released) {
        if (taken) await this.store.releaseLease(printerLease(record.id), this.settings.nodeId, taken.fence)
        return
      }
      if (held && taken?.fence === held.fence) {
        held.validUntil = asked + ttl
        held.record = record
        continue
      }
      if (held) {
        this.settings.log.warn("another node took this printer's lease: this node stops driving it", {
          printer: record.id,
        })
        this.lose(record.id)
      }
      if (!taken) continue
      const fence = { resource: printerLease(record.id), fence: taken.fence }
      const uncertain = await this.store.takeOverPrinter(fence, record.id)
      if (uncertain.length > 0)
        this.settings.log.warn('a printer taken over: its jobs that may have printed end as uncertain', {
          printer: record.id,
          jobs: uncertain.map((job) => job.id).join(', '),
        })
      this.leases.set(record.id, {
        record,
        fence: taken.fence,
        units: this.store.fenced(fence),
        validUntil: asked + ttl,
      })
      this.changed(record.id)
    }
  }

  /**
   * Whether to take a printer this node does not drive: not while another node holds it; at once while this node
   * drives fewer than its share; else once it stayed free a whole lease length (the nodes under their share had
   * their turn, or there are none).
   */
  private mayTake(printerId: string, live: ReadonlySet<string>, share: number, ttl: number): boolean {
    if (live.has(printerLease(printerId))) {
      this.freeSince.delete(printerId)
      return false
    }
    if (this.leases.size < share) return true
    const since = this.freeSince.get(printerId) ?? performance.now()
    this.freeSince.set(printerId, since)
    if (performance.now() - since < ttl) return false
    this.freeSince.delete(printerId)
    return true
  }

  /** Whether this node heard a printer that polls lately (within a lease length, or three poll intervals if longer). */
  private polled(connection: PollingConnection, ttl: number): boolean {
    const heard = this.settings.heardPolling?.(connection)
    return heard !== undefined && this.settings.now() - heard.at <= Math.max(ttl, 3 * heard.intervalMs)
  }

  /** Whether the printer is attached to this node's machine now (its device there); asked of none: not here. */
  private async attachedHere(connection: AttachedConnection): Promise<boolean> {
    return (await this.settings.attachedHere?.(connection)) ?? false
  }

  private async giveUp(printerId: string, lease: PrinterLease): Promise<void> {
    this.settings.log.info('a printer that polls is heard by this node no more: given up for the node it polls', {
      printer: printerId,
    })
    this.lose(printerId)
    await this.store.releaseLease(printerLease(printerId), this.settings.nodeId, lease.fence)
  }

  private lose(printerId: string): void {
    if (this.leases.delete(printerId)) this.changed(printerId)
  }

  /**
   * Records the node's agent's intent to print a job, under its printer's lease, before its first byte: false (and
   * the agent prints nothing) when the lease may have run out, or another node took it.
   */
  async recordIntent(job: LedgerJob): Promise<boolean> {
    const wire = parseWireJobId(job.jobId)
    const lease = this.ofAgentPrinter(job.printerId)
    if (!wire || !lease || performance.now() >= lease.validUntil) return false
    const fence = { resource: printerLease(lease.record.id), fence: lease.fence }
    if (!(await this.store.recordIntent(fence, wire.jobId, wire.attempt))) return false
    // The bytes follow at once: not when the lease may have run out meanwhile.
    return this.leases.get(lease.record.id) === lease && performance.now() < lease.validUntil
  }

  /** Gives every lease up (the node stops), so that other nodes take the printers at once. */
  async release(): Promise<void> {
    this.released = true
    const held = [...this.leases.entries()]
    this.leases.clear()
    await Promise.allSettled(
      held.map(([printerId, lease]) =>
        this.store.releaseLease(printerLease(printerId), this.settings.nodeId, lease.fence),
      ),
    )
  }
}
