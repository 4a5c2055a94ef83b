// The printers' lanes on a node of a cluster (docs/decisions.md, "Delivery across nodes"), the cluster's dispatcher's
// core (cluster.ts hears the agents and extends this). A node drives the printers of the agents connected to it, each
// agent under a lease: it claims a printer's head in one statement under that lease, sends it, and waits for its
// agent to confirm it stored the job, as one hub does (queues.ts). The lane itself is the database's: one DISPATCHING
// job per printer whatever a node believes, every write fenced by the lease's number. Before each send the node also
// checks, by its own monotonic clock, that its lease has not run out: a printer's agent cannot check a number.
import { backoffDelay } from '../domain/backoff.ts'
import type { AttachedConnection, PollingConnection } from '../domain/connection-uri.ts'
import type { GatewaySession } from '../gateway/session.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { Attempt, UnitRunner, WriteOptions } from '../storage/repositories.ts'
import type { ClusterStore } from '../storage/cluster-store.ts'
import { documentAsSent, documentsReady, printJobPayload } from './agent-documents.ts'
import { configurationInvalidated } from './cancel-frame.ts'
import { AttemptsInFlight, type InFlight } from './attempts-in-flight.ts'
import type { PrinterLease } from './cluster-printers.ts'
import { HELD_PER_PRINTER } from './held-window.ts'
import type { DispatcherSettings } from './settings.ts'
import { printJobMessageId } from './wire-identity.ts'

/** An agent this node holds: its session here, its lease, and its printers (record ID → the agent's own ID). */
export interface HeldAgent {
  agentId: string
  session: GatewaySession
  fence: number
  /** The store, its job state steps fenced by this agent's lease. */
  units: UnitRunner
  /** Until when (performance.now()) the lease surely holds: taken before it was asked for, plus its length. */
  validUntil: number
  printers: Map<string, string>
  /** Its reports, handled one after another in the order they came. */
  reports: Promise<void>
  /**
   * The node's own agent (the cluster's built-in agent in this process): each printer under a lease of its own, which
   * its writes are fenced by (cluster-printers.ts), instead of the agent's.
   */
  printerLeases?: ReadonlyMap<string, PrinterLease>
}

/** What a printer's writes are fenced by, and until when its lease surely holds. */
type LaneLease = Pick<HeldAgent, 'units' | 'validUntil'>

/** What a node's delivery is set up with: a dispatcher's settings, and the cluster's. */
export interface ClusterSettings extends DispatcherSettings {
  nodeId: string
  /** How long a lease lasts (the setting `cluster-lease-seconds`), read at each renewal. */
  leaseMs: () => number
  /** How often every printer this node drives is looked at, whatever hints it heard. */
  pollMs: number
  /**
   * When this node last heard a printer that polls it, by the node's clock, and how often that printer polls;
   * undefined for one never heard here.
   */
  heardPolling?: (connection: PollingConnection) => { at: number; intervalMs: number } | undefined
  /** Whether a printer attached to one machine (a device, a file) is attached to this node's machine now. */
  attachedHere?: (connection: AttachedConnection) => boolean | Promise<boolean>
}

/**
 * A job's state step locks its row first (and, through its triggers and event, its project's): run on those locks
 * (storage/repositories.ts, WriteOptions).
 */
export const LOCKED_ROWS: WriteOptions = { lockedRows: true }

/** Jobs of one printer asked about again when a printhub agent connects (as one hub does: dispatcher.ts). */
const MAX_RESYNC_PER_PRINTER = 256

/** The lease of an agent, held by the node it is connected to. */
export const agentLease = (agentId: string): string => `agent:${agentId}`

const isDispatchable = (printer: PrinterDescriptor | undefined): boolean =>
  printer !== undefined && printer.enabled && printer.availability !== 'offline'

export class ClusterLanes {
  /** The agents this node holds, and which of them each printer is driven through. */
  protected readonly agents = new Map<string, HeldAgent>()
  protected readonly printerAgents = new Map<string, string>()
  protected readonly inFlight: AttemptsInFlight
  /** Printers whose look is running (a look is awaited); looked at again after it when asked meanwhile. */
  private readonly looking = new Set<string>()
  private readonly again = new Set<string>()
  private readonly waits = new Map<string, Timer>()
  protected stopped = false
  private renewal: Timer | undefined

  constructor(
    protected readonly store: ClusterStore,
    protected readonly settings: ClusterSettings,
  ) {
    this.inFlight = new AttemptsInFlight(settings.ackTimeoutMs, (jobId, flight, reason) => {
      void this.failAttempt(jobId, flight, reason)
    })
  }

  /** A job of the printer may be due: look at its lane, if this node drives it. */
  scheduleDispatch(printerId: string): void {
    if (this.stopped || this.agents.size === 0) return
    if (this.looking.has(printerId)) return void this.again.add(printerId)
    this.looking.add(printerId)
    this.look(printerId)
      .catch((error: unknown) =>
        this.settings.log.warn(
          "a printer's lane could not be looked at; it is looked at again shortly",
          { printer: printerId, error: String(error) },
          { limit: `lane ${printerId}` },
        ),
      )
      .finally(() => {
        this.looking.delete(printerId)
        if (this.again.delete(printerId)) this.scheduleDispatch(printerId)
      })
  }

  /** The printers this node drives that have jobs waiting, looked at: one query whatever the number of printers. */
  protected async lookAtQueued(): Promise<void> {
    if (this.printerAgents.size === 0) return
    const queued = await this.store.read((db) => db.jobStates.printersWithQueuedJobs())
    for (const printerId of queued) if (this.printerAgents.has(printerId)) this.scheduleDispatch(printerId)
  }

  /** Sends the head of the printer's lane, if its agent is here and the printer can take a job now. */
  private async look(printerId: string): Promise<void> {
    if (this.inFlight.isBusy(printerId)) return
    const held = this.heldOf(printerId) ?? (await this.learn(printerId))
    const agentPrinterId = held?.printers.get(printerId)
    const lease = held && this.leaseOf(held, printerId)
    if (!held || !lease || agentPrinterId === undefined) return
    const { session } = held
    const { units } = lease
    if (!session.isConnected || !isDispatchable(session.printers.get(agentPrinterId))) return
    const head = await units.read((db) => db.jobStates.queueHead(printerId))
    const now = this.settings.now()
    // Its time ran out: the sweep expires it, and the lane moves on.
    if (!head || head.expiresAt <= now) return
    await documentsReady(session.isPrinthubAgent)
    if (head.state === 'DISPATCHING') {
      if (this.inFlight.has(head.id)) return
      // Out before this node held the agent (another node's, or this one's before a restart): sent again as it was.
      const attempt = await units.read((db) => db.jobStates.currentAttempt(head.id))
      if (attempt) await this.deliver(held, printerId, attempt)
      return
    }
    if (head.notBefore !== null && head.notBefore > now) return this.waitUntil(printerId, head.notBefore - now)
    // Its agent holds as many jobs as it may: this one waits here (the next look, at a report or the poll, sees).
    if ((await units.read((db) => db.jobStates.heldCount(printerId, HELD_PER_PRINTER))) >= HELD_PER_PRINTER) return
    const attempt = await units.write((db) => db.jobStates.claim(printerId), LOCKED_ROWS)
    if (attempt) await this.deliver(held, printerId, attempt)
  }

  /** What this node could not record of an agent (its database away): the agent is asked to connect again. */
  protected askAgain(session: GatewaySession, what: string, error: unknown): void {
    this.settings.log.warn(`${what}; it is asked to connect again`, { agent: session.agentId, error: String(error) })
    session.disconnect('store_unavailable', 'The hub could not record what the agent said; connect again.', true, 1_000)
  }

  /** A printer this node has not driven yet (given to a project since): whether its agent is one this node holds. */
  private async learn(printerId: string): Promise<HeldAgent | undefined> {
    const record = await this.store.read((db) => db.printers.get(printerId))
    const held = record && this.agents.get(record.agentId)
    // The node's agent's printers are its own once their leases are taken (cluster-printers.ts).
    if (!held || held.printerLeases) return undefined
    held.printers.set(printerId, record.agentPrinterId)
    this.printerAgents.set(printerId, held.agentId)
    return held
  }

  /** Sends an attempt, made from what is stored (sent again, it is byte-identical), and waits for its receipt. */
  protected async deliver(held: HeldAgent, printerId: string, delivery: Attempt): Promise<void> {
    const { job, attempt } = delivery
    const { session } = held
    const lease = this.leaseOf(held, printerId)
    if (!lease) return
    const { units } = lease
    const stored = await units.read((db) => db.jobs.document(job.id))
    if (!stored) return
    const profile = session.isPrinthubAgent
      ? undefined
      : (await units.read((db) => db.printers.get(printerId)))?.profile
    const made = documentAsSent(stored, session.isPrinthubAgent, () => profile, delivery.movedNote)
    if ('refused' in made) {
      const named = made.refused.map((issue) => `${issue.path} ${issue.message}`).join('; ')
      await units.write(
        (db) =>
          db.jobStates.failAttempt(
            job.id,
            attempt,
            failure(
              'agent.extension_unsupported',
              `The printer's agent is not printhub and takes OpenPrinter v1 documents only: ${named}.`,
            ),
            0,
          ),
        LOCKED_ROWS,
      )
      return this.scheduleDispatch(printerId)
    }
    // Nothing goes out once the lease may have run out, nor to an agent this node no longer holds (a job claimed and
    // not sent stays out: whichever node holds the agent next sends it as it was).
    const agentPrinterId = held.printers.get(printerId)
    const current = this.agents.get(held.agentId) === held && this.leaseOf(held, printerId) === lease
    if (!current || performance.now() >= lease.validUntil || this.inFlight.has(job.id)) return
    if (agentPrinterId === undefined) return
    const payload = printJobPayload(agentPrinterId, job, attempt, made.document)
    const sent = session.send({
      messageId: printJobMessageId(payload.jobId),
      sentAt: new Date(delivery.dispatchedAt).toISOString(),
      type: 'server.print_job',
      payload,
    })
    this.inFlight.wait(job.id, { printerId, attempt, sessionId: session.id }, sent)
  }

  /** The jobs the printer's agent holds, sent to it again as they were (it answers those it knows with their end). */
  protected async sendHeldAgain(held: HeldAgent, printerId: string): Promise<void> {
    for (const jobId of await this.store.read((db) => db.jobStates.withAgent(printerId, MAX_RESYNC_PER_PRINTER))) {
      const attempt = await this.store.read((db) => db.jobStates.currentAttempt(jobId))
      if (attempt && !this.inFlight.has(jobId)) await this.deliver(held, printerId, attempt)
    }
  }

  /** The attempt of `jobId` is no longer waited for: its printer is free for the next. False when none was. */
  protected clearInFlight(jobId: string): boolean {
    return this.inFlight.clear(jobId)
  }

  /**
   * The attempt failed on this node's side (no receipt in time, the agent went away): written under the lease of its
   * agent, while this node holds it (a node that lost the lease leaves the job to the node that took it).
   */
  protected async failAttempt(jobId: string, flight: InFlight, reason: Failure): Promise<void> {
    this.clearInFlight(jobId)
    const held = this.heldOf(flight.printerId)
    const lease = held && this.leaseOf(held, flight.printerId)
    if (this.stopped || !lease) return
    await lease.units.write(
      (db) => db.jobStates.failAttempt(jobId, flight.attempt, reason, this.retryDelay(flight.attempt)),
      LOCKED_ROWS,
    )
    this.scheduleDispatch(flight.printerId)
  }

  protected retryDelay(attempt: number): number {
    return backoffDelay(this.settings.retry(), attempt - 1)
  }

  /** What the printer's writes are fenced by: its agent's lease, or its own when it is the node's agent's. */
  protected leaseOf(held: HeldAgent, printerId: string): LaneLease | undefined {
    return held.printerLeases ? held.printerLeases.get(printerId) : held
  }

  protected heldOf(printerId: string): HeldAgent | undefined {
    const agentId = this.printerAgents.get(printerId)
    return agentId === undefined ? undefined : this.agents.get(agentId)
  }

  private waitUntil(printerId: string, ms: number): void {
    clearTimeout(this.waits.get(printerId))
    this.waits.set(
      printerId,
      setTimeout(() => {
        this.waits.delete(printerId)
        this.scheduleDispatch(printerId)
      }, ms),
    )
  }

  /**
   * The node took a printer of the built-in agent, or lost it: the node's agent is told to read its printers again,
   * and its inventory says which it drives now (takeInventory).
   */
  protected printersChanged(printerId: string, nodeAgentId: string): void {
    const held = this.agents.get(nodeAgentId)
    if (!held?.printerLeases?.has(printerId)) {
      held?.printers.delete(printerId)
      this.printerAgents.delete(printerId)
      for (const [jobId, flight] of this.inFlight) if (flight.printerId === printerId) this.clearInFlight(jobId)
    }
    held?.session.send(configurationInvalidated(this.settings.now()))
    this.settings.agentChanged?.(nodeAgentId)
  }

  // ---- The agents' leases ----

  /** Renews the leases every third of their length as the setting says it now (it may change while the node runs). */
  protected scheduleRenewal(): void {
    if (this.stopped) return
    this.renewal = setTimeout(
      () => {
        this.renewLeases()
        this.scheduleRenewal()
      },
      Math.max(100, Math.floor(this.settings.leaseMs() / 3)),
    )
  }

  /** Renews every agent's lease this node holds; one taken by another node meanwhile ends its agent's session here. */
  protected renewLeases(): void {
    const ttl = this.settings.leaseMs()
    for (const held of this.agents.values()) {
      // The node's agent's printers have leases of their own (cluster-printers.ts).
      if (held.printerLeases) continue
      const asked = performance.now()
      this.store
        .takeLease(agentLease(held.agentId), this.settings.nodeId, ttl)
        .then((lease) => {
          if (this.agents.get(held.agentId) !== held) return
          if (lease?.fence === held.fence) return void (held.validUntil = asked + ttl)
          this.settings.log.warn("another node took this agent's lease: this node stops driving its printers", {
            agent: held.agentId,
          })
          this.drop(held)
          held.session.disconnect('session_replaced', 'Another node of the cluster holds this agent now.', true)
        })
        // The database is away: the lease runs out by itself, and nothing is sent after that (validUntil).
        .catch(() => {})
    }
  }

  /** This node no longer drives the agent's printers. */
  protected drop(held: HeldAgent): void {
    if (this.agents.get(held.agentId) !== held) return
    this.agents.delete(held.agentId)
    for (const printerId of held.printers.keys()) this.printerAgents.delete(printerId)
    for (const [jobId, flight] of this.inFlight) if (flight.sessionId === held.session.id) this.clearInFlight(jobId)
  }

  protected stopLanes(): void {
    this.stopped = true
    clearTimeout(this.renewal)
    this.inFlight.stop()
    for (const timer of this.waits.values()) clearTimeout(timer)
  }
}
