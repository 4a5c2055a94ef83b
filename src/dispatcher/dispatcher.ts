// The dispatcher: one queue per printer, jobs in creation order, one attempt in flight per
// printer until its agent confirms it stored the job; the agents' reports move the job states.
// Which agents are connected it learns from the gateway's session registry.
import { type Backoff, backoffDelay } from '../domain/backoff.ts'
import type { AgentListener, SessionRegistry } from '../gateway/registry.ts'
import { type GatewaySession, type JobReport, newMessageId } from '../gateway/session.ts'
import { documentForAgent, documentsReady, printJobPayload } from './agent-documents.ts'
import type { PrintDocument } from '../protocol/document.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { Job } from '../protocol/job.ts'
import type { Attempt } from '../store/job-states.ts'
import type { Store } from '../store/store.ts'
import type { Logger } from '../platform/log.ts'
import { HeldWindow, isHeldOrOut } from './held-window.ts'
import { InventoryWrites } from './inventory-writes.ts'
import { parseWireJobId, printJobMessageId, wireJobId } from './wire-identity.ts'

export interface DispatcherSettings {
  /** How long an agent has to confirm it stored a job before the attempt counts as failed. */
  ackTimeoutMs: number
  /** The wait before a failed job is tried again. */
  retry: Backoff
  /** How long a stock agent, which never answers a cancellation, has before it is taken as done. */
  cancelGraceMs: number
  /** How often expiry and operators' cancellations are looked for. */
  sweepMs: number
  /**
   * How long an agent that holds jobs may stay away (after the hub started, or since it was last
   * connected) before the hub gives up on those of them whose time ran out.
   */
  agentReturnGraceMs: number
  now: () => number
  /** Reports that make no sense (component dispatcher); jobs' state changes are the store's to log. */
  log: Logger
  /** Told when an agent connected, reported its printers, or went away (the dashboard's printer states). */
  agentChanged?: (agentId: string) => void
}

interface InFlight {
  printerId: string
  attempt: number
  sessionId: string
  timer: Timer
}

/**
 * Jobs of one printer asked about again when a printhub agent reconnects: a printer rarely holds
 * more than a few, and the pass must never hold the hub up.
 */
const MAX_RESYNC_PER_PRINTER = 256

/** Jobs expired in one step; a backlog (a hub that was off for days) is worked off step by step. */
const EXPIRE_PER_STEP = 64

const isDispatchable = (printer: PrinterDescriptor | undefined): boolean => printer !== undefined && printer.enabled && printer.availability !== 'offline'

export class Dispatcher implements AgentListener {
  private readonly inFlight = new Map<string, InFlight>()
  /** Printers with an attempt in flight: their queue waits, so a new job needs no look at it. */
  private readonly busyPrinters = new Set<string>()
  private readonly waits = new Map<string, Timer>()
  private readonly cancelsSent = new Set<string>()
  /** Sessions whose agent was already asked about the jobs it holds. */
  private readonly resynced = new WeakSet<object>()
  private readonly inventories = new InventoryWrites((session, printers) => this.takeInventory(session, printers))
  private readonly window: HeldWindow
  private readonly due = new Set<string>()
  private dispatchScheduled = false
  private sweeper: Timer | undefined
  private startedAt = 0
  private stopped = false

  constructor(
    private readonly store: Store,
    private readonly sessions: SessionRegistry,
    private readonly settings: DispatcherSettings,
  ) {
    this.window = new HeldWindow((printerId, atMost) => store.jobStates.heldCount(printerId, atMost))
    sessions.listen(this)
  }

  start(): void {
    this.startedAt = this.settings.now()
    this.sweeper = setInterval(() => this.sweep(), this.settings.sweepMs)
  }

  stop(): void {
    this.stopped = true
    this.inventories.stop()
    clearInterval(this.sweeper)
    for (const flight of this.inFlight.values()) clearTimeout(flight.timer)
    for (const timer of this.waits.values()) clearTimeout(timer)
    this.sessions.disconnectAll('server_shutdown', 'The hub is shutting down.', 1_000)
  }

  /**
   * A job was just written, maybe not yet committed. An agent whose ledger commits with the hub
   * (the built-in one) gets it in this same turn, so that the job's creation, dispatch, receipt
   * and claim share one disk flush; any other agent only once it is on disk.
   */
  jobCreated(printerId: string): void {
    // A printer with an attempt in flight takes its next job when that one is settled.
    if (this.stopped || this.busyPrinters.has(printerId)) return
    if (this.sessionOfPrinter(printerId)?.sharesCommits) queueMicrotask(() => this.dispatchNext(printerId))
    else this.scheduleDispatch(printerId)
  }

  /** A job of the printer may be due: look at its queue soon. */
  scheduleDispatch(printerId: string): void {
    if (this.stopped) return
    this.due.add(printerId)
    if (this.dispatchScheduled) return
    this.dispatchScheduled = true
    // Coalesced: jobs committed together wake their printers once.
    setImmediate(() => {
      this.dispatchScheduled = false
      if (this.stopped) return
      const printers = [...this.due]
      this.due.clear()
      for (const printerId of printers) this.dispatchNext(printerId)
    })
  }

  // ---- What the agents say (through the session registry) ----

  connected(session: GatewaySession): void {
    const agentId = session.agentId!
    this.store.agents.seen(agentId)
    this.settings.agentChanged?.(agentId)
  }

  inventory(session: GatewaySession, printers: readonly PrinterDescriptor[]): void {
    if (this.stopped) return
    this.inventories.offer(session, printers)
  }

  private takeInventory(session: GatewaySession, printers: readonly PrinterDescriptor[]): void {
    const agentId = session.agentId!
    if (this.stopped) return
    if (this.store.agents.replacePrinters(agentId, printers)) this.settings.agentChanged?.(agentId)
    const firstInventory = !this.resynced.has(session)
    this.resynced.add(session)
    for (const record of this.store.printers.ofAgent(agentId)) {
      // Reports sent just before a hub restart or a dropped connection may never have arrived. A
      // printhub agent answers a job sent again with the reports of how it ended.
      if (firstInventory && session.isPrinthubAgent) {
        for (const jobId of this.store.jobStates.withAgent(record.id, MAX_RESYNC_PER_PRINTER)) {
          const attempt = this.store.jobStates.currentAttempt(jobId)
          const document = attempt && documentForAgent(this.store, true, record.id, jobId, attempt.movedNote)
          if (attempt && document && 'document' in document) this.send(session, record.agentPrinterId, attempt, document.document)
        }
      }
      this.scheduleDispatch(record.id)
    }
  }

  closed(session: GatewaySession): void {
    const agentId = session.agentId!
    if (this.stopped) return
    this.store.agents.seen(agentId)
    this.settings.agentChanged?.(agentId)
    // Attempts not yet confirmed on this session failed: the agent may never have seen them.
    for (const [jobId, flight] of this.inFlight) {
      if (flight.sessionId !== session.id) continue
      this.failAttempt(jobId, flight, failure('agent.disconnected', 'The agent disconnected before it confirmed it received the job.'))
    }
  }

  report(session: GatewaySession, report: JobReport): void {
    if (this.stopped) return
    const wire = parseWireJobId(report.jobId)
    if (!wire) return this.settings.log.warn('a report on a job this hub did not send', { agent: session.agentId, job: report.jobId, report: report.kind }, { limit: `reports ${session.agentId}` })
    const { jobId, attempt } = wire
    // An agent reports only on jobs sent to its own printers.
    const printerId = this.store.jobs.printerOf(jobId)
    if (!printerId || this.store.printers.get(printerId)?.agentId !== session.agentId) {
      return this.settings.log.warn('a report on a job not sent to this agent', { agent: session.agentId, job: report.jobId, report: report.kind }, { limit: `reports ${session.agentId}` })
    }
    const states = this.store.jobStates
    let job: Job | undefined
    switch (report.kind) {
      case 'received':
        job = states.markReceived(jobId, attempt, report.receivedAt)
        break
      case 'submitted':
        job = states.markSubmitted(jobId, attempt, report.submittedAt, session.isPrinthubAgent)
        break
      case 'completed':
        job = states.markCompleted(jobId, attempt, report.completedAt, report.submittedAt)
        break
      case 'failed': {
        if (this.inFlight.get(jobId)?.attempt === attempt) this.clearInFlight(jobId)
        const failed = states.failAttempt(jobId, attempt, report.failure, this.retryDelay(attempt))
        if (failed) this.jobChanged(failed)
        return
      }
      case 'cancelled':
        job = states.markCancelled(jobId)
        break
    }
    // An older attempt printed after all while a newer one is out (its submission told, alone or with its end): stop the newer one.
    if (job && job.attemptCount > attempt && (report.kind === 'submitted' || (report.kind === 'completed' && report.submittedAt !== undefined))) {
      session.send(this.cancelFrame(wireJobId(jobId, job.attemptCount), 'An earlier attempt of this job already printed.'))
    }
    // A job that leaves DISPATCHING frees its printer for the next, and one that leaves its agent a full window.
    if (job && job.state !== 'DISPATCHING' && this.clearInFlight(job.id)) this.scheduleDispatch(job.printerId)
    else if (!job && report.kind === 'received') this.receiptRepeated(jobId, attempt)
    if (job && !isHeldOrOut(job) && this.window.left(job.printerId)) this.scheduleDispatch(job.printerId)
  }

  // ---- Queues ----

  /** A job left DISPATCHING (or finished): its printer may take the next one. */
  private jobChanged(job: Job): void {
    if (job.state !== 'DISPATCHING') this.clearInFlight(job.id)
    if (!isHeldOrOut(job)) this.window.left(job.printerId)
    this.scheduleDispatch(job.printerId)
  }

  /** A receipt that changed nothing (a repeat) still ends the wait for it. */
  private receiptRepeated(jobId: string, attempt: number): void {
    const flight = this.inFlight.get(jobId)
    if (!flight || flight.attempt !== attempt) return
    this.clearInFlight(jobId)
    this.scheduleDispatch(flight.printerId)
  }

  /** Sends the head of the printer's queue, if the printer can take a job now. */
  private dispatchNext(printerId: string): void {
    if (this.stopped || this.busyPrinters.has(printerId)) return
    const record = this.store.printers.get(printerId)
    if (!record) return
    const session = this.sessions.session(record.agentId)
    if (!session?.isConnected || !isDispatchable(session.printers.get(record.agentPrinterId))) return
    const head = this.store.jobStates.queueHead(printerId)
    if (!head) return
    const now = this.settings.now()
    // Never sent once its time ran out, even before the sweep came by (a hub started in the morning).
    if (head.expiresAt <= now) {
      this.expireDue()
      return this.scheduleDispatch(printerId)
    }
    // For an agent that is not printhub, the drawing of what OpenPrinter lacks is loaded first.
    const ready = documentsReady(session.isPrinthubAgent)
    if (ready) return void ready.then(() => this.scheduleDispatch(printerId), (error: unknown) => this.settings.log.error('the drawing of documents for agents that are not printhub did not load', { error: String(error) }))
    if (head.state === 'DISPATCHING') {
      if (this.inFlight.has(head.id)) return
      // Out before a restart or on a closed session: send it again exactly as it was.
      const attempt = this.store.jobStates.currentAttempt(head.id)
      if (attempt) this.deliver(session, printerId, record.agentPrinterId, attempt)
      return
    }
    if (head.notBefore !== null && head.notBefore > now) return this.waitUntil(printerId, head.notBefore - now)
    // Nothing leaves the hub before it is on disk, unless its receiver commits with the hub.
    if (!session.sharesCommits && this.store.jobs.isUncommitted(head.id)) {
      const later = () => this.scheduleDispatch(printerId)
      return void this.store.commits.durable().then(later, later)
    }
    // Its agent holds as many jobs as it may: this one waits here (a job leaving the agent, or the sweep, looks again).
    if (!this.window.take(printerId)) return
    const attempt = this.store.jobStates.startAttempt(head.id)
    if (attempt) this.deliver(session, printerId, record.agentPrinterId, attempt)
    else this.scheduleDispatch(printerId)
  }

  /** Sends an attempt; every field comes from what is stored (and made from it the same way), so sending it again is byte-identical. */
  private send(session: GatewaySession, agentPrinterId: string, { job, attempt, dispatchedAt }: Attempt, document: PrintDocument): boolean {
    const payload = printJobPayload(agentPrinterId, job, attempt, document)
    return session.send({ messageId: printJobMessageId(payload.jobId), sentAt: new Date(dispatchedAt).toISOString(), type: 'server.print_job', payload })
  }

  private deliver(session: GatewaySession, printerId: string, agentPrinterId: string, delivery: Attempt): void {
    const { job, attempt } = delivery
    const document = documentForAgent(this.store, session.isPrinthubAgent, printerId, job.id, delivery.movedNote)
    if ('refused' in document) {
      const named = document.refused.map((issue) => `${issue.path} ${issue.message}`).join('; ')
      this.store.jobStates.failAttempt(job.id, attempt, failure('agent.extension_unsupported', `The printer's agent is not printhub and takes OpenPrinter v1 documents only: ${named}.`), 0)
      return this.scheduleDispatch(printerId)
    }
    const sent = this.send(session, agentPrinterId, delivery, document.document)
    const timer = setTimeout(() => {
      const flight = this.inFlight.get(job.id)
      if (flight?.timer !== timer) return
      this.failAttempt(job.id, flight, failure('agent.ack_timeout', `The agent did not confirm it received the job within ${Math.round(this.settings.ackTimeoutMs / 1000)} s.`))
    }, sent ? this.settings.ackTimeoutMs : 0)
    this.inFlight.set(job.id, { printerId, attempt, sessionId: session.id, timer })
    this.busyPrinters.add(printerId)
  }

  /** The attempt of `jobId` is no longer waited for: its printer is free for the next. False when none was. */
  private clearInFlight(jobId: string): boolean {
    const flight = this.inFlight.get(jobId)
    if (!flight) return false
    clearTimeout(flight.timer)
    this.inFlight.delete(jobId)
    this.busyPrinters.delete(flight.printerId)
    return true
  }

  private failAttempt(jobId: string, flight: InFlight, reason: Failure): void {
    this.clearInFlight(jobId)
    // At shutdown the attempt stays DISPATCHING: the next start sends it again, unchanged.
    if (this.stopped) return
    const job = this.store.jobStates.failAttempt(jobId, flight.attempt, reason, this.retryDelay(flight.attempt))
    this.scheduleDispatch(job?.printerId ?? flight.printerId)
  }

  private retryDelay(attempt: number): number {
    return backoffDelay(this.settings.retry, attempt - 1)
  }

  private waitUntil(printerId: string, ms: number): void {
    clearTimeout(this.waits.get(printerId))
    this.waits.set(
      printerId,
      setTimeout(() => {
        this.waits.delete(printerId)
        this.dispatchNext(printerId)
      }, ms),
    )
  }

  // ---- Expiry and cancellation ----

  /** Looks for revoked agents, expired jobs and cancellations now (it runs every `sweepMs` by itself). */
  sweep(): void {
    // Revocation may come from another process (the CLI): a revoked agent's session ends here.
    for (const [agentId, session] of this.sessions.connected()) {
      if (this.store.agents.isRevoked(agentId)) session.disconnect('credential_revoked', 'This agent was revoked.', false)
    }
    this.expireDue()
    for (const printerId of this.window.readAgain()) this.scheduleDispatch(printerId)
    const now = this.settings.now()
    this.askCancels(now)
    this.giveUpOnGoneAgents(now)
  }

  /** A cancellation was asked for: the agent holding the job is asked now, not at the next sweep. */
  cancelRequested(): void {
    this.askCancels(this.settings.now())
  }

  /** Asks agents to stop the jobs whose cancellation was asked for; settles a stock agent's silence. */
  private askCancels(now: number): void {
    const open = new Set<string>()
    for (const request of this.store.jobStates.cancelRequests()) {
      const session = this.sessionOfPrinter(request.printerId)
      if (!session?.isConnected) continue
      // Asked once per session: a reconnected agent is asked again.
      const key = `${request.id}.${request.attempt}@${session.id}`
      open.add(key)
      if (!this.cancelsSent.has(key) && session.send(this.cancelFrame(wireJobId(request.id, request.attempt), 'Cancelled by an operator.'))) this.cancelsSent.add(key)
      // A stock agent never says whether it stopped the job; silence for the grace period is taken as yes.
      if (!session.isPrinthubAgent && request.requestedAt + this.settings.cancelGraceMs <= now) {
        const job = this.store.jobStates.cancelUnanswered(request.id, now - this.settings.cancelGraceMs)
        if (job) this.jobChanged(job)
      }
    }
    for (const key of this.cancelsSent) if (!open.has(key)) this.cancelsSent.delete(key)
  }

  /**
   * Jobs an agent holds that it will never report on end FAILED (they may have printed): those of
   * a revoked agent at once; those of an agent that stayed away once their time ran out and the
   * agent has been away for the grace period (counted from the hub's start at the earliest).
   */
  private giveUpOnGoneAgents(now: number): void {
    const awaySince = now - this.settings.agentReturnGraceMs
    const connected = [...this.sessions.connected()].map(([agentId]) => agentId)
    // Until the hub has run for the grace period, no agent counts as away: it may be on its way back.
    // Each one's line (-> FAILED job.recovery_uncertain) is the store's.
    for (const job of this.store.jobStates.giveUpOnGoneAgents(connected, awaySince >= this.startedAt ? awaySince : -1)) this.jobChanged(job)
  }

  /** Expires jobs whose time ran out; a dispatched one's agent is asked to drop it. */
  private expireDue(): void {
    const expired = this.store.jobStates.expire(EXPIRE_PER_STEP)
    for (const job of expired) {
      if (this.inFlight.has(job.id)) {
        this.clearInFlight(job.id)
        // Best effort: an agent that already stored it may still print it; a printhub agent will not.
        this.sessionOfPrinter(job.printerId)?.send(this.cancelFrame(wireJobId(job.id, job.attempt), 'The job expired.'))
      }
      this.scheduleDispatch(job.printerId)
    }
    // More are due: the next step after the I/O waiting now.
    if (expired.length === EXPIRE_PER_STEP) setImmediate(() => !this.stopped && this.expireDue())
  }

  private sessionOfPrinter(printerId: string): GatewaySession | undefined {
    const record = this.store.printers.get(printerId)
    return record ? this.sessions.session(record.agentId) : undefined
  }

  private cancelFrame(wireId: string, reason: string) {
    return { messageId: newMessageId(), sentAt: new Date(this.settings.now()).toISOString(), type: 'server.cancel_job' as const, payload: { jobId: wireId, reason } }
  }
}
