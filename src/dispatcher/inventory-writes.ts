// What an agent says of its printers, written to the store at a bounded pace: an agent may send
// inventories often (a printer that flaps between online and offline), or flood them; the hub
// writes the first at once and then the newest at most once a second, and keeps at most
// MAX_AGENT_PRINTERS printers of one agent. The store writes only the printers that changed.
import type { GatewaySession } from '../gateway/session.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'

/** An agent's inventory is written at most this often (the newest one); the first at once. */
export const INVENTORY_WRITE_INTERVAL_MS = 1_000
/** Printers the hub keeps of one agent; an inventory with more keeps its first ones. */
export const MAX_AGENT_PRINTERS = 128

type Write = (session: GatewaySession, printers: readonly PrinterDescriptor[]) => void

export class InventoryWrites {
  private readonly lastWrite = new Map<string, number>()
  private readonly pending = new Map<string, { session: GatewaySession; printers: readonly PrinterDescriptor[] }>()
  private readonly timers = new Map<string, Timer>()

  constructor(
    private readonly write: Write,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The agent's inventory now: written at once, or with the next write of that agent. */
  offer(session: GatewaySession, printers: readonly PrinterDescriptor[]): void {
    const agentId = session.agentId!
    const kept = printers.length > MAX_AGENT_PRINTERS ? printers.slice(0, MAX_AGENT_PRINTERS) : printers
    const waitMs = (this.lastWrite.get(agentId) ?? -Infinity) + INVENTORY_WRITE_INTERVAL_MS - this.now()
    if (waitMs <= 0 && !this.timers.has(agentId)) return this.writeNow(agentId, session, kept)
    this.pending.set(agentId, { session, printers: kept })
    if (this.timers.has(agentId)) return
    this.timers.set(
      agentId,
      setTimeout(
        () => {
          this.timers.delete(agentId)
          const next = this.pending.get(agentId)
          this.pending.delete(agentId)
          // A session that ended meanwhile has nothing to say any more: its successor sends its own.
          if (next?.session.isConnected) this.writeNow(agentId, next.session, next.printers)
        },
        Math.max(0, waitMs),
      ),
    )
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
    this.pending.clear()
  }

  private writeNow(agentId: string, session: GatewaySession, printers: readonly PrinterDescriptor[]): void {
    this.lastWrite.set(agentId, this.now())
    // Remembered per agent for as long as the hub runs: agents are few (each one paired by a person).
    this.write(session, printers)
  }
}
