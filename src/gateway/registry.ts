// The agents connected to the gateway: the newest session of each agent, and the one listener
// (the dispatcher) that hears what they say. A second connection of an agent replaces the first.
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { GatewayEvents, GatewaySession, JobReport } from './session.ts'
import type { Logger } from '../platform/log.ts'

/** Ends of a session that are nobody's problem: the hub stops, the agent came back, was revoked, or closed politely. */
const ORDINARY_ENDS = /^(server_shutdown|session_replaced|credential_revoked|closed by the agent \((1000|1001)\))$/

/** What the registry passes on: connections, inventories of current sessions, reports, closes. */
export interface AgentListener {
  connected(session: GatewaySession): void
  inventory(session: GatewaySession, printers: readonly PrinterDescriptor[]): void
  report(session: GatewaySession, report: JobReport): void
  /** A session ended (the current one of its agent, or one replaced before). */
  closed(session: GatewaySession): void
}

export class SessionRegistry implements GatewayEvents {
  private readonly byAgent = new Map<string, GatewaySession>()
  private listener: AgentListener | undefined

  /** `log`: where agents' connections and disconnections are told (component gateway). */
  constructor(private readonly log?: Logger) {}

  /** The one listener; set before sessions connect. */
  listen(listener: AgentListener): void {
    this.listener = listener
  }

  /** The live session of an agent, if it is connected. */
  session(agentId: string): GatewaySession | undefined {
    return this.byAgent.get(agentId)
  }

  isConnected(agentId: string): boolean {
    return this.byAgent.has(agentId)
  }

  /** The agents connected now, with their sessions. */
  connected(): IterableIterator<[string, GatewaySession]> {
    return this.byAgent.entries()
  }

  /** Ends an agent's session for good (its credential was revoked): it is told not to come back. */
  disconnect(agentId: string, code: string, reason: string): void {
    this.byAgent.get(agentId)?.disconnect(code, reason, false)
  }

  /** Ends every session, asking the agents to come back after `retryAfterMs` (the hub stops). */
  disconnectAll(code: string, reason: string, retryAfterMs: number): void {
    for (const session of this.byAgent.values()) session.disconnect(code, reason, true, retryAfterMs)
  }

  // ---- Gateway events ----

  sessionConnected(session: GatewaySession): void {
    const agentId = session.agentId!
    const previous = this.byAgent.get(agentId)
    this.byAgent.set(agentId, session)
    if (previous && previous !== session)
      previous.disconnect('session_replaced', 'A newer connection of this agent replaced this one.', false)
    const { agentName, address } = session.described
    // One budget per agent: an agent that keeps coming and going cannot fill the log.
    this.log?.info('agent connected', { agent: agentId, name: agentName, address }, { limit: `agent ${agentId}` })
    this.listener?.connected(session)
  }

  sessionInventory(session: GatewaySession, printers: readonly PrinterDescriptor[]): void {
    // A replaced session's last words about its printers are out of date.
    if (this.byAgent.get(session.agentId!) !== session) return
    this.listener?.inventory(session, printers)
  }

  sessionReport(session: GatewaySession, report: JobReport): void {
    this.listener?.report(session, report)
  }

  sessionClosed(session: GatewaySession): void {
    const agentId = session.agentId!
    if (this.byAgent.get(agentId) === session) this.byAgent.delete(agentId)
    const { agentName, address, endReason } = session.described
    const ordinary = ORDINARY_ENDS.test(endReason ?? '')
    this.log?.[ordinary ? 'info' : 'warn'](
      'agent disconnected',
      { agent: agentId, name: agentName, address, reason: endReason },
      { limit: `agent ${agentId}` },
    )
    this.listener?.closed(session)
  }
}
