// The dispatcher: one queue per printer, jobs in creation order, one attempt in flight per
// printer until its agent confirms it stored the job (queues.ts); the agents' reports move the job
// states. Which agents are connected, and what they say, it learns from the gateway's session
// registry; its sweep (sweep.ts) expires jobs, asks agents to stop cancelled ones, and gives up on
// agents gone for good.
import type { AgentListener, SessionRegistry } from '../gateway/registry.ts'
import type { GatewaySession, JobReport } from '../gateway/session.ts'
import { failure } from '../protocol/failures.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { Job } from '../protocol/job.ts'
import type { Store } from '../store/store.ts'
import { documentForAgent } from './agent-documents.ts'
import { cancelFrame } from './cancel-frame.ts'
import { isHeldOrOut } from './held-window.ts'
import { InventoryWrites } from './inventory-writes.ts'
import { DispatchQueues } from './queues.ts'
import type { DispatcherSettings } from './settings.ts'
import { parseWireJobId, wireJobId } from './wire-identity.ts'

/**
 * Jobs of one printer asked about again when a printhub agent reconnects: a printer rarely holds
 * more than a few, and the pass must never hold the hub up.
 */
const MAX_RESYNC_PER_PRINTER = 256

export class Dispatcher extends DispatchQueues implements AgentListener {
  /** Sessions whose agent was already asked about the jobs it holds. */
  private readonly resynced = new WeakSet<object>()
  private readonly inventories = new InventoryWrites((session, printers) => this.takeInventory(session, printers))
  private sweepTimer: Timer | undefined

  constructor(store: Store, sessions: SessionRegistry, settings: DispatcherSettings) {
    super(store, sessions, settings)
    sessions.listen(this)
  }

  start(): void {
    this.startedAt = this.settings.now()
    this.sweepTimer = setInterval(() => this.sweep(), this.settings.sweepMs)
  }

  stop(): void {
    this.stopped = true
    this.inventories.stop()
    clearInterval(this.sweepTimer)
    this.inFlight.stop()
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
    if (this.stopped || this.inFlight.isBusy(printerId)) return
    if (this.sessionOfPrinter(printerId)?.sharesCommits) queueMicrotask(() => this.dispatchNext(printerId))
    else this.scheduleDispatch(printerId)
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
          const document = attempt && documentForAgent(this.store, true, record.id, attempt)
          if (attempt && document && 'document' in document)
            this.send(session, record.agentPrinterId, attempt, document.document)
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
      this.failAttempt(
        jobId,
        flight,
        failure('agent.disconnected', 'The agent disconnected before it confirmed it received the job.'),
      )
    }
  }

  report(session: GatewaySession, report: JobReport): void {
    if (this.stopped) return
    const wire = parseWireJobId(report.jobId)
    if (!wire)
      return this.settings.log.warn(
        'a report on a job this hub did not send',
        { agent: session.agentId, job: report.jobId, report: report.kind },
        { limit: `reports ${session.agentId}` },
      )
    const { jobId, attempt } = wire
    // An agent reports only on jobs sent to its own printers.
    const printerId = this.store.jobs.printerOf(jobId)
    if (!printerId || this.store.printers.get(printerId)?.agentId !== session.agentId) {
      return this.settings.log.warn(
        'a report on a job not sent to this agent',
        { agent: session.agentId, job: report.jobId, report: report.kind },
        { limit: `reports ${session.agentId}` },
      )
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
    // An older attempt printed after all while a newer one is out (its submission told, alone or with its end): stop
    // the newer one.
    if (
      job &&
      job.attemptCount > attempt &&
      (report.kind === 'submitted' || (report.kind === 'completed' && report.submittedAt !== undefined))
    ) {
      session.send(
        cancelFrame(
          wireJobId(jobId, job.attemptCount),
          'An earlier attempt of this job already printed.',
          this.settings.now(),
        ),
      )
    }
    // A job that leaves DISPATCHING frees its printer for the next, and one that leaves its agent a full window.
    if (job && job.state !== 'DISPATCHING' && this.clearInFlight(job.id)) this.scheduleDispatch(job.printerId)
    else if (!job && report.kind === 'received') this.receiptRepeated(jobId, attempt)
    if (job && !isHeldOrOut(job) && this.window.left(job.printerId)) this.scheduleDispatch(job.printerId)
  }

  // ---- Expiry and cancellation (sweep.ts) ----

  /** Looks for revoked agents, expired jobs and cancellations now (it runs every `sweepMs` by itself). */
  sweep(): void {
    this.sweeper.run()
  }

  /** A cancellation was asked for: the agent holding the job is asked now, not at the next sweep. */
  cancelRequested(): void {
    this.sweeper.askCancels(this.settings.now())
  }
}
