// What the agent tells its hub first on each connection, once the hub said hello: its queued
// reports, then an acknowledgement of every job whose end the hub has not been told, then its
// inventory. The hub dispatches nothing before it has the inventory, so by then it knows every job
// this agent already has, and never sends one of them again under a new attempt (another wire ID,
// which the ledger would take as a new job: the ticket would print twice).
//
// Every such job, not only the waiting ones: a job begun may never have been acknowledged. A crash
// between its store and its acknowledgement leaves it stored, the hub gives that attempt up (the
// agent disconnected before it confirmed it), and the next start prints it before the connection
// is back. So is one that ended and whose reports have not left yet (made after the reports were
// sent here, or waiting for their commit). And no inventory goes out on the connection before the
// acknowledgements, though a printer or the catalog may change meanwhile (the job just printed
// says its printer is online): the hub would dispatch on that one (docs/delivery.md).
import { type AgentConnection, agentFrame } from './connection.ts'
import type { AgentLedger } from './agent-ledger.ts'
import type { ReportSender } from './report-sender.ts'

export class Resumption {
  /**
   * Connections whose jobs are not yet acknowledged again, with the inventory the hub asked for meanwhile (its message
   * ID).
   */
  private readonly resuming = new WeakMap<AgentConnection, { asked?: string }>()

  constructor(
    private readonly ledger: Pick<AgentLedger, 'durable' | 'unreportedJobs'>,
    private readonly reports: Pick<ReportSender, 'flush'>,
    /** The agent's connection now. */
    private readonly current: () => AgentConnection | undefined,
    /** Sends the agent's inventory as it is now. */
    private readonly sendInventory: (connection: AgentConnection, correlationId?: string) => void,
  ) {}

  /** The connection is ready: reports, acknowledgements, then the inventory. */
  async resume(connection: AgentConnection): Promise<void> {
    const resuming: { asked?: string } = {}
    this.resuming.set(connection, resuming)
    try {
      await this.reports.flush()
      // What is acknowledged must be on disk; jobs stored in this very turn may not be yet.
      await this.ledger.durable()
      if (connection !== this.current() || !connection.isReady) return
      // With their original correlation (a job the hub knows received is unchanged by it).
      for (const job of this.ledger.unreportedJobs()) {
        connection.send(
          agentFrame(
            'agent.job_received',
            {
              jobId: job.jobId,
              idempotencyKey: job.idempotencyKey,
              status: 'received',
              receivedAt: new Date(job.receivedAt).toISOString(),
            },
            job.sourceMessageId,
          ),
        )
      }
    } finally {
      // Also when the ledger could not be made durable: the inventory then goes with its next change.
      this.resuming.delete(connection)
    }
    this.sendInventory(connection, resuming.asked)
  }

  /** Sends the inventory on the connection, unless it is resuming: then it goes once the jobs are acknowledged. */
  inventory(connection: AgentConnection, correlationId?: string): void {
    const resuming = this.resuming.get(connection)
    if (resuming) resuming.asked = correlationId ?? resuming.asked
    else this.sendInventory(connection, correlationId)
  }
}
