// Each printer's queue on the hub, the dispatcher's core (dispatcher.ts hears what the agents say
// and extends this): jobs in creation order, the head sent once its printer can take it, one attempt
// in flight per printer until its agent confirms it stored the job (or the wait for that runs out),
// at most HELD_PER_PRINTER jobs with its agent (held-window.ts), and a failed attempt tried again
// after its backoff. Every field of an attempt comes from what is stored, so sending it again is
// byte-identical.
import { backoffDelay } from '../domain/backoff.ts'
import type { SessionRegistry } from '../gateway/registry.ts'
import type { GatewaySession } from '../gateway/session.ts'
import type { PrintDocument } from '../protocol/document.ts'
import { type Failure, failure } from '../protocol/failures.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { Job } from '../protocol/job.ts'
import type { Attempt } from '../store/job-state-reads.ts'
import type { Store } from '../store/store.ts'
import { documentForAgent, documentsReady, printJobPayload } from './agent-documents.ts'
import { AttemptsInFlight, type InFlight } from './attempts-in-flight.ts'
import { HeldWindow, isHeldOrOut } from './held-window.ts'
import type { DispatcherSettings } from './settings.ts'
import { Sweep } from './sweep.ts'
import { printJobMessageId } from './wire-identity.ts'

const isDispatchable = (printer: PrinterDescriptor | undefined): boolean =>
  printer !== undefined && printer.enabled && printer.availability !== 'offline'

export class DispatchQueues {
  protected readonly inFlight: AttemptsInFlight
  protected readonly waits = new Map<string, Timer>()
  protected readonly window: HeldWindow
  /** Expiry, cancellations, agents gone for good (sweep.ts). */
  protected readonly sweeper: Sweep
  private readonly due = new Set<string>()
  private dispatchScheduled = false
  protected startedAt = 0
  protected stopped = false

  constructor(
    protected readonly store: Store,
    protected readonly sessions: SessionRegistry,
    protected readonly settings: DispatcherSettings,
  ) {
    this.inFlight = new AttemptsInFlight(settings.ackTimeoutMs, (jobId, flight, reason) =>
      this.failAttempt(jobId, flight, reason),
    )
    this.window = new HeldWindow((printerId, atMost) => store.jobStates.heldCount(printerId, atMost))
    this.sweeper = new Sweep({
      store,
      sessions,
      settings,
      window: this.window,
      stopped: () => this.stopped,
      startedAt: () => this.startedAt,
      scheduleDispatch: (printerId) => this.scheduleDispatch(printerId),
      jobChanged: (job) => this.jobChanged(job),
      clearInFlight: (jobId) => this.clearInFlight(jobId),
      sessionOfPrinter: (printerId) => this.sessionOfPrinter(printerId),
    })
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

  /** A job left DISPATCHING (or finished): its printer may take the next one. */
  protected jobChanged(job: Job): void {
    if (job.state !== 'DISPATCHING') this.clearInFlight(job.id)
    if (!isHeldOrOut(job)) this.window.left(job.printerId)
    this.scheduleDispatch(job.printerId)
  }

  /** A receipt that changed nothing (a repeat) still ends the wait for it. */
  protected receiptRepeated(jobId: string, attempt: number): void {
    const flight = this.inFlight.get(jobId)
    if (!flight || flight.attempt !== attempt) return
    this.clearInFlight(jobId)
    this.scheduleDispatch(flight.printerId)
  }

  /** Sends the head of the printer's queue, if the printer can take a job now. */
  protected dispatchNext(printerId: string): void {
    if (this.stopped || this.inFlight.isBusy(printerId)) return
    const record = this.store.printers.get(printerId)
    if (!record) return
    const session = this.sessions.session(record.agentId)
    if (!session?.isConnected || !isDispatchable(session.printers.get(record.agentPrinterId))) return
    const head = this.store.jobStates.queueHead(printerId)
    if (!head) return
    const now = this.settings.now()
    // Never sent once its time ran out, even before the sweep came by (a hub started in the morning).
    if (head.expiresAt <= now) {
      this.sweeper.expireDue()
      return this.scheduleDispatch(printerId)
    }
    // For an agent that is not printhub, the drawing of what OpenPrinter lacks is loaded first.
    const ready = documentsReady(session.isPrinthubAgent)
    if (ready)
      return void ready.then(
        () => this.scheduleDispatch(printerId),
        (error: unknown) =>
          this.settings.log.error('the drawing of documents for agents that are not printhub did not load', {
            error: String(error),
          }),
      )
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

  /**
   * Sends an attempt; every field comes from what is stored (and made from it the same way), so sending it again is
   * byte-identical.
   */
  protected send(
    session: GatewaySession,
    agentPrinterId: string,
    { job, attempt, dispatchedAt }: Attempt,
    document: PrintDocument,
  ): boolean {
    const payload = printJobPayload(agentPrinterId, job, attempt, document)
    return session.send({
      messageId: printJobMessageId(payload.jobId),
      sentAt: new Date(dispatchedAt).toISOString(),
      type: 'server.print_job',
      payload,
    })
  }

  private deliver(session: GatewaySession, printerId: string, agentPrinterId: string, delivery: Attempt): void {
    const { job, attempt } = delivery
    const document = documentForAgent(this.store, session.isPrinthubAgent, printerId, delivery)
    if ('refused' in document) {
      const named = document.refused.map((issue) => `${issue.path} ${issue.message}`).join('; ')
      this.store.jobStates.failAttempt(
        job.id,
        attempt,
        failure(
          'agent.extension_unsupported',
          `The printer's agent is not printhub and takes OpenPrinter v1 documents only: ${named}.`,
        ),
        0,
      )
      return this.scheduleDispatch(printerId)
    }
    const sent = this.send(session, agentPrinterId, delivery, document.document)
    this.inFlight.wait(job.id, { printerId, attempt, sessionId: session.id }, sent)
  }

  /** The attempt of `jobId` is no longer waited for: its printer is free for the next. False when none was. */
  protected clearInFlight(jobId: string): boolean {
    return this.inFlight.clear(jobId)
  }

  protected failAttempt(jobId: string, flight: InFlight, reason: Failure): void {
    this.clearInFlight(jobId)
    // At shutdown the attempt stays DISPATCHING: the next start sends it again, unchanged.
    if (this.stopped) return
    const job = this.store.jobStates.failAttempt(jobId, flight.attempt, reason, this.retryDelay(flight.attempt))
    this.scheduleDispatch(job?.printerId ?? flight.printerId)
  }

  protected retryDelay(attempt: number): number {
    return backoffDelay(this.settings.retry(), attempt - 1)
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

  protected sessionOfPrinter(printerId: string): GatewaySession | undefined {
    const record = this.store.printers.get(printerId)
    return record ? this.sessions.session(record.agentId) : undefined
  }
}
