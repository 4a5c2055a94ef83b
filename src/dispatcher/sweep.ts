// The dispatcher's sweep (dispatcher.ts), every `sweepMs`: the sessions of agents revoked meanwhile
// (by another process: the CLI) end; jobs whose time ran out expire, a backlog of them step by
// step; agents are asked to stop the jobs whose cancellation was asked for (a stock agent's silence
// is taken as yes after a grace period); and the jobs of agents that will never report on them end
// FAILED.
import type { GatewaySession } from '../gateway/session.ts'
import type { SessionRegistry } from '../gateway/registry.ts'
import type { Job } from '../protocol/job.ts'
import type { Store } from '../store/store.ts'
import { cancelFrame } from './cancel-frame.ts'
import type { HeldWindow } from './held-window.ts'
import type { DispatcherSettings } from './settings.ts'
import { wireJobId } from './wire-identity.ts'

/** Jobs expired in one step; a backlog (a hub that was off for days) is worked off step by step. */
const EXPIRE_PER_STEP = 64

/** What the sweep works with: the dispatcher's store, sessions and settings, and its hooks into the queues. */
export interface SweepOptions {
  store: Store
  sessions: SessionRegistry
  settings: DispatcherSettings
  window: HeldWindow
  stopped: () => boolean
  /** When the dispatcher started (agents away count from then at the earliest). */
  startedAt: () => number
  /** A job of the printer may be due. */
  scheduleDispatch: (printerId: string) => void
  /** A job left DISPATCHING, or finished. */
  jobChanged: (job: Job) => void
  /** The job's attempt is no longer waited for; false when none was. */
  clearInFlight: (jobId: string) => boolean
  sessionOfPrinter: (printerId: string) => GatewaySession | undefined
}

export class Sweep {
  private readonly cancelsSent = new Set<string>()

  constructor(private readonly options: SweepOptions) {}

  /** Looks for revoked agents, expired jobs and cancellations now. */
  run(): void {
    const { store, sessions, settings, window, scheduleDispatch } = this.options
    // Revocation may come from another process (the CLI): a revoked agent's session ends here.
    for (const [agentId, session] of sessions.connected()) {
      if (store.agents.isRevoked(agentId)) session.disconnect('credential_revoked', 'This agent was revoked.', false)
    }
    this.expireDue()
    for (const printerId of window.readAgain()) scheduleDispatch(printerId)
    const now = settings.now()
    this.askCancels(now)
    this.giveUpOnGoneAgents(now)
  }

  /** Asks agents to stop the jobs whose cancellation was asked for; settles a stock agent's silence. */
  askCancels(now: number): void {
    const { store, settings, sessionOfPrinter, jobChanged } = this.options
    const open = new Set<string>()
    for (const request of store.jobStates.cancelRequests()) {
      const session = sessionOfPrinter(request.printerId)
      if (!session?.isConnected) continue
      // Asked once per session: a reconnected agent is asked again.
      const key = `${request.id}.${request.attempt}@${session.id}`
      open.add(key)
      if (
        !this.cancelsSent.has(key) &&
        session.send(cancelFrame(wireJobId(request.id, request.attempt), 'Cancelled by an operator.', settings.now()))
      )
        this.cancelsSent.add(key)
      // A stock agent never says whether it stopped the job; silence for the grace period is taken as yes.
      if (!session.isPrinthubAgent && request.requestedAt + settings.cancelGraceMs <= now) {
        const job = store.jobStates.cancelUnanswered(request.id, now - settings.cancelGraceMs)
        if (job) jobChanged(job)
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
    const { store, sessions, settings, startedAt, jobChanged } = this.options
    const awaySince = now - settings.agentReturnGraceMs
    const connected = [...sessions.connected()].map(([agentId]) => agentId)
    // Until the hub has run for the grace period, no agent counts as away: it may be on its way back.
    // Each one's line (-> FAILED job.recovery_uncertain) is the store's.
    for (const job of store.jobStates.giveUpOnGoneAgents(connected, awaySince >= startedAt() ? awaySince : -1))
      jobChanged(job)
  }

  /** Expires jobs whose time ran out; a dispatched one's agent is asked to drop it. */
  expireDue(): void {
    const { store, settings, clearInFlight, sessionOfPrinter, scheduleDispatch, stopped } = this.options
    const expired = store.jobStates.expire(EXPIRE_PER_STEP)
    for (const job of expired) {
      if (clearInFlight(job.id)) {
        // Best effort: an agent that already stored it may still print it; a printhub agent will not.
        sessionOfPrinter(job.printerId)?.send(
          cancelFrame(wireJobId(job.id, job.attempt), 'The job expired.', settings.now()),
        )
      }
      scheduleDispatch(job.printerId)
    }
    // More are due: the next step after the I/O waiting now.
    if (expired.length === EXPIRE_PER_STEP) setImmediate(() => !stopped() && this.expireDue())
  }
}
