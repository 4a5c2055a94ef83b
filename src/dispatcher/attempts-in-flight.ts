// The attempts a dispatcher has sent and waits for its agent to confirm it stored (one hub's: queues.ts; a cluster
// node's: cluster-lanes.ts): one a printer at most, so a printer with one is busy; each given up when its receipt
// has not come within the ack timeout (at once when it could not even be sent).
import { type Failure, failure } from '../protocol/failures.ts'

export interface InFlight {
  printerId: string
  attempt: number
  sessionId: string
  timer: Timer
}

export class AttemptsInFlight implements Iterable<[string, InFlight]> {
  private readonly byJob = new Map<string, InFlight>()
  private readonly busy = new Set<string>()

  constructor(
    private readonly ackTimeoutMs: number,
    /** An attempt whose receipt did not come in time (it is no longer waited for). */
    private readonly timedOut: (jobId: string, flight: InFlight, reason: Failure) => void,
  ) {}

  /** Waits for the receipt of `jobId`'s attempt, which was just `sent` (or could not be: given up at once). */
  wait(jobId: string, attempt: Omit<InFlight, 'timer'>, sent: boolean): void {
    const timer = setTimeout(
      () => {
        const flight = this.byJob.get(jobId)
        if (flight?.timer !== timer) return
        this.timedOut(
          jobId,
          flight,
          failure(
            'agent.ack_timeout',
            `The agent did not confirm it received the job within ${Math.round(this.ackTimeoutMs / 1000)} s.`,
          ),
        )
      },
      sent ? this.ackTimeoutMs : 0,
    )
    this.byJob.set(jobId, { ...attempt, timer })
    this.busy.add(attempt.printerId)
  }

  get(jobId: string): InFlight | undefined {
    return this.byJob.get(jobId)
  }

  has(jobId: string): boolean {
    return this.byJob.has(jobId)
  }

  /** Whether the printer has an attempt out: its queue waits, so a new job needs no look at it. */
  isBusy(printerId: string): boolean {
    return this.busy.has(printerId)
  }

  /** The attempt of `jobId` is no longer waited for: its printer is free for the next. False when none was. */
  clear(jobId: string): boolean {
    const flight = this.byJob.get(jobId)
    if (!flight) return false
    clearTimeout(flight.timer)
    this.byJob.delete(jobId)
    this.busy.delete(flight.printerId)
    return true
  }

  /** Waits for none any more (the dispatcher stops): what is out stays as it is stored. */
  stop(): void {
    for (const flight of this.byJob.values()) clearTimeout(flight.timer)
  }

  [Symbol.iterator](): IterableIterator<[string, InFlight]> {
    return this.byJob.entries()
  }
}
