// The agent's printers' queues: each runs its jobs one at a time, oldest first; printers run side
// by side. A job that throws fails and the queue goes on; a queue that stops on an error (its
// ledger cannot be written: a full disk) starts again after a pause, not in a loop that would hold
// the process. Each queue's last printed job's record may wait for the queue's next intent
// (held-records.ts); it is made at the latest when the queue moves on without one, or ends.
import { describeError, type Logger } from '../platform/log.ts'
import { HeldRecords } from './held-records.ts'
import type { LedgerJob } from './ledger-rows.ts'

/** How long a printer's queue that stopped on an error waits before it starts again. */
export const QUEUE_RESTART_MS = 1_000

/** What the queues ask of the agent. */
export interface QueueWork {
  /** The printer's next job to print, if one waits and none is being written. */
  next(printerId: string): LedgerJob | undefined
  print(job: LedgerJob): Promise<void>
  /** A job whose print threw (a bug): it fails, and the queue goes on. */
  failed(job: LedgerJob, error: unknown): void
  /** The printer's job left its hands (the next one may render ahead). */
  handedOver(printerId: string): void
  stopped(): boolean
  log(): Logger
}

export class PrinterQueues {
  readonly held = new HeldRecords((error) =>
    this.agent.log().error('a printed job could not be recorded', { error: describeError(error) }),
  )
  private readonly running = new Map<string, Promise<void>>()

  constructor(private readonly agent: QueueWork) {}

  /** Whether the printer's queue is running. */
  has(printerId: string): boolean {
    return this.running.has(printerId)
  }

  /** How many printers' queues are running. */
  get size(): number {
    return this.running.size
  }

  /** Settles once every queue running now has ended. */
  settled(): Promise<unknown> {
    return Promise.allSettled(this.running.values())
  }

  /** Runs the printer's queue, unless it runs already. */
  run(printerId: string): void {
    if (this.running.has(printerId)) return
    const { agent, held } = this
    const run = (async () => {
      for (let job = agent.next(printerId); job && !agent.stopped(); job = agent.next(printerId)) {
        try {
          await agent.print(job)
        } catch (error) {
          agent.failed(job, error)
        }
        // The job before it printed, and this one ended without an intent whose flush would have recorded that.
        held.make(printerId, job.seq)
        agent.handedOver(printerId)
        // A job can end without waiting for anything (a printer that refuses at once): the process's
        // other work (the API) runs between two jobs, or a long queue would hold it.
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
      .finally(() => {
        held.make(printerId)
        this.running.delete(printerId)
      })
      // A job may have come in as the queue ended.
      .then(() => {
        if (!agent.stopped() && agent.next(printerId)) this.run(printerId)
      })
      .catch((error: unknown) => {
        if (agent.stopped()) return
        agent
          .log()
          .error(
            "a printer's queue stopped; it starts again shortly",
            { printer: printerId, error: describeError(error) },
            { limit: `queue ${printerId}` },
          )
        setTimeout(() => agent.stopped() || this.run(printerId), QUEUE_RESTART_MS).unref()
      })
    this.running.set(printerId, run)
  }
}
