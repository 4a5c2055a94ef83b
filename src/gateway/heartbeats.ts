// A connected session's protocol heartbeats (OpenPrinter v1 section 4): one every
// `heartbeatIntervalMs`, each to be answered; an agent that answers none within
// `heartbeatTimeoutMs` is timed out.
import { newMessageId } from './message-ids.ts'
import type { GatewaySettings } from './session-types.ts'

export class Heartbeats {
  /** Heartbeats sent and not yet answered, the oldest first. */
  private readonly pending = new Set<string>()
  private interval: Timer | undefined
  private deadline: Timer | undefined

  constructor(
    private readonly settings: Pick<GatewaySettings, 'heartbeatIntervalMs' | 'heartbeatTimeoutMs'>,
    /** Sends the heartbeat of this message ID. */
    private readonly send: (messageId: string) => void,
    /** No heartbeat was answered in time. */
    private readonly timedOut: () => void,
  ) {}

  /** The first heartbeat now, then one every interval. */
  start(): void {
    this.armDeadline()
    this.beat()
    this.interval = setInterval(() => this.beat(), this.settings.heartbeatIntervalMs)
  }

  /** An answer to heartbeat `correlationId`; false when it answers none that may still be answered. */
  answered(correlationId: string): boolean {
    if (!this.pending.delete(correlationId)) return false
    this.armDeadline()
    return true
  }

  stop(): void {
    clearTimeout(this.deadline)
    this.deadline = undefined
    clearInterval(this.interval)
    this.interval = undefined
  }

  private beat(): void {
    const messageId = newMessageId()
    this.pending.add(messageId)
    // Heartbeats older than the timeout can no longer be answered in time: forget them.
    const keep = Math.ceil(this.settings.heartbeatTimeoutMs / this.settings.heartbeatIntervalMs) + 1
    for (const old of this.pending) {
      if (this.pending.size <= keep) break
      this.pending.delete(old)
    }
    this.send(messageId)
  }

  private armDeadline(): void {
    clearTimeout(this.deadline)
    this.deadline = setTimeout(this.timedOut, this.settings.heartbeatTimeoutMs)
  }
}
