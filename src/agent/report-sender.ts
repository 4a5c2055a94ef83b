// Sends the agent's queued reports to its hub, oldest first (agent.ts queues them with the change
// they report, ledger.ts): once the hub may be told, and each leaves the outbox only once handed to
// the connection. Frames only a printhub hub understands are dropped for any other hub.
import { describeError, type Logger } from '../platform/log.ts'
import type { AgentConnection } from './connection.ts'
import { type AgentLedger, OUTBOX_PAGE } from './agent-ledger.ts'

/** Report frames that only a printhub hub understands; dropped for any other hub. */
const EXTENSION_TYPES = new Set<string>(['printhub.job_completed', 'printhub.job_cancelled'])

export class ReportSender {
  private flushing = false
  private flushAgain = false

  constructor(
    private readonly ledger: AgentLedger,
    /** The agent's connection now, if any. */
    private readonly connection: () => AgentConnection | undefined,
    private readonly log: Logger,
  ) {}

  /**
   * Sends what is queued; a call while a send runs makes it go round once more. Never rejects:
   * what it cannot send waits for the next call (the next report, or the next connection).
   */
  async flush(): Promise<void> {
    if (this.flushing) {
      this.flushAgain = true
      return
    }
    this.flushing = true
    try {
      do {
        this.flushAgain = false
        // Reports queued up to now are told once on disk (later ones wait a round), or all at once.
        const atOnce = this.ledger.tellsHubAtOnce
        const upTo = atOnce ? Number.MAX_SAFE_INTEGER : this.ledger.lastQueuedReport()
        if (upTo === undefined) return
        if (!atOnce) await this.ledger.durable()
        const connection = this.connection()
        if (!connection?.isReady) return
        for (let more = true; more; ) {
          const page = this.ledger.outbox(upTo)
          for (const { seq, frame } of page) {
            const skip = !connection.toPrinthub && EXTENSION_TYPES.has(typeOf(frame))
            if (!skip && !connection.sendText(frame)) return
            this.ledger.sent(seq)
          }
          more = page.length === OUTBOX_PAGE
        }
      } while (this.flushAgain)
    } catch (error) {
      this.log.warn('reports wait for the next connection', { error: describeError(error) }, { limit: 'agent reports' })
    } finally {
      this.flushing = false
    }
  }
}

function typeOf(frame: string): string {
  return (JSON.parse(frame) as { type: string }).type
}
