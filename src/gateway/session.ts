// One agent connection on the hub's side of OpenPrinter v1 (reference sections 3 and 4): the
// challenge, the handshake, heartbeats, inventories and job reports. It speaks through a
// transport (a WebSocket, or the in-memory pipe of the built-in agent), so every agent goes
// through this same code. Its challenge is in challenge.ts, its heartbeats in heartbeats.ts, what
// it hears of jobs in job-reports.ts.
import { decodeFrame, encodeFrame } from '../protocol/codec.ts'
import {
  type AuthRejectionCode,
  authAcceptedRule,
  authRejectedRule,
  agentMessageRule,
  type PrinterDescriptor,
  serverMessageRule,
  type ServerMessage,
} from '../protocol/frames.ts'
import {
  PRINTHUB_PRODUCT_ID,
  printhubAgentMessageRule,
  type PrinthubAgentMessage,
  printhubServerMessageRule,
} from '../protocol/extensions.ts'
import { MAX_AUTH_FRAME_BYTES, MAX_FRAME_BYTES, PROTOCOL_VERSION } from '../protocol/limits.ts'
import { Challenge } from './challenge.ts'
import { CLOSE_AUTH_FAILED, CLOSE_AUTH_TIMEOUT, CLOSE_PROTOCOL, CLOSE_REASONS, sanitize } from './close-codes.ts'
import { Heartbeats } from './heartbeats.ts'
import { jobReport } from './job-reports.ts'
import { applyDelta, type Inventory, InventoryPace, replaceSnapshot } from './inventory.ts'
import { newMessageId, randomHex } from './message-ids.ts'
import type { GatewayEvents, GatewaySettings, GatewayTransport, SessionOptions } from './session-types.ts'

export type {
  AgentCredential,
  GatewayEvents,
  GatewaySettings,
  GatewayTransport,
  JobReport,
  SessionOptions,
} from './session-types.ts'

type State = 'authenticating' | 'handshaking' | 'connected' | 'closed'

const AUTH_FAILED = 'Gateway authentication failed.'
const PROTOCOL_ERROR = 'The connection violated the OpenPrinter protocol.'

class ProtocolViolation extends Error {}

export class GatewaySession {
  readonly id = `session_${randomHex(16)}`
  private state: State = 'authenticating'
  private readonly challenge: Challenge
  private agent: string | undefined
  /** For the log: the name the agent paired with (once authenticated), and why the session ended. */
  private name: string | undefined
  private ending: string | undefined
  /** True when the agent named itself printhub: it may send the extension frames. */
  private printhubPeer = false
  private inventoryState: Inventory | undefined
  private readonly inventoryPace = new InventoryPace()
  private readonly heartbeats: Heartbeats
  private timers = new Set<Timer>()
  /** Frames are handled strictly one after another, as they arrived. */
  private queue: Promise<void> = Promise.resolve()

  constructor(
    private readonly transport: GatewayTransport,
    private readonly settings: GatewaySettings,
    private readonly events: GatewayEvents,
    private readonly options: SessionOptions,
  ) {
    const own = options.ownCredential
    this.challenge = new Challenge(
      own
        ? {
            ...settings,
            credential: (agentId, keyId) =>
              agentId === own.agentId && keyId === own.keyId ? own.credential : undefined,
          }
        : settings,
      this.id,
    )
    this.heartbeats = new Heartbeats(
      settings,
      (messageId) => {
        try {
          this.sendServer('server.heartbeat', { timeoutMs: this.settings.heartbeatTimeoutMs }, messageId)
        } catch {
          this.close(CLOSE_PROTOCOL, 'Transport error')
        }
      },
      () =>
        this.disconnect(
          'heartbeat_timeout',
          'The agent did not answer protocol heartbeats in time.',
          true,
          this.settings.heartbeatIntervalMs,
        ),
    )
  }

  get sharesCommits(): boolean {
    return this.options.sharesCommits
  }

  /** The authenticated agent; undefined before authentication. */
  get agentId(): string | undefined {
    return this.agent
  }

  /** Who this is and where from, for the log; once closed, why. */
  get described(): { agentName: string | undefined; address: string; endReason: string | undefined } {
    return {
      agentName: this.name,
      address: this.transport.remoteAddress ?? 'unknown',
      endReason: this.state === 'closed' ? (this.ending ?? 'closed') : undefined,
    }
  }

  /** A cluster node's own agent, in its process (SessionOptions.ownCredential): it drives the node's printers. */
  get isNodeAgent(): boolean {
    return this.options.ownCredential !== undefined
  }

  get isPrinthubAgent(): boolean {
    return this.printhubPeer
  }

  get isConnected(): boolean {
    return this.state === 'connected'
  }

  /** The agent's printers as its inventory says now (empty before its first snapshot). */
  get printers(): ReadonlyMap<string, PrinterDescriptor> {
    return this.inventoryState?.printers ?? new Map()
  }

  /** Sends the challenge; call once the transport is open. */
  open(): void {
    this.sendRaw(this.challenge.open())
    this.after(this.settings.authenticationTimeoutMs, () => {
      if (this.state === 'authenticating') this.reject('authentication_timeout')
    })
  }

  /** One inbound frame; binary frames arrive as bytes. */
  receive(data: string | Uint8Array): void {
    this.queue = this.queue.then(() => this.handle(data)).catch((error) => this.fail(error))
  }

  /** The transport closed (either side; `code` is the agent's close code when it closed it). */
  transportClosed(code?: number): void {
    if (this.state === 'closed') return
    this.ending ??= code === undefined ? 'connection lost' : `closed by the agent (${code})`
    const wasConnected = this.state === 'connected'
    this.state = 'closed'
    this.options.admission?.release()
    this.stopTimers()
    if (wasConnected) this.events.sessionClosed(this)
  }

  /** Sends a server frame; false when the session cannot take it (not connected, or the send failed). */
  send(
    frame: Omit<
      Extract<
        ServerMessage,
        {
          type:
            | 'server.print_job'
            | 'server.cancel_job'
            | 'server.request_printer_inventory'
            | 'server.configuration_invalidated'
        }
      >,
      'protocolVersion'
    >,
  ): boolean {
    if (this.state !== 'connected') return false
    try {
      this.sendFrame({ protocolVersion: PROTOCOL_VERSION, ...frame } as ServerMessage)
      return true
    } catch {
      this.close(CLOSE_PROTOCOL, 'Transport error')
      return false
    }
  }

  /** Ends a connected session politely (server.disconnect), or just closes one that is not. */
  disconnect(code: string, reason: string, reconnect: boolean, retryAfterMs?: number): void {
    this.ending ??= code
    if (this.state === 'connected') {
      try {
        this.sendServer('server.disconnect', {
          code,
          reason,
          reconnect,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        })
      } catch {
        // The socket is going away anyway.
      }
    }
    this.close(CLOSE_PROTOCOL, CLOSE_REASONS[code] ?? reason)
  }

  private async handle(data: string | Uint8Array): Promise<void> {
    if (this.state === 'closed') return
    if (this.state === 'authenticating') return this.authenticate(data)
    if (typeof data !== 'string') throw new ProtocolViolation('binary frame')
    const decoded = decodeFrame(this.printhubPeer ? printhubAgentMessageRule : agentMessageRule, data, MAX_FRAME_BYTES)
    if (!decoded.ok) throw new ProtocolViolation(`${decoded.code}: ${decoded.reason}`)
    const message = decoded.message as PrinthubAgentMessage
    if (this.state === 'handshaking') return this.handshake(message)
    this.dispatch(message)
  }

  private async authenticate(data: string | Uint8Array): Promise<void> {
    const answer = await this.challenge.check(data)
    if (!answer.ok) return this.reject(answer.code, answer.agentId)
    const { agentId, credential } = answer
    if (!(await this.challenge.verify(answer.signature, credential))) return this.reject('invalid_signature', agentId)
    if (this.state !== 'authenticating') return
    this.stopTimers()
    this.agent = agentId
    this.name = credential.name
    this.state = 'handshaking'
    this.options.admission?.release()
    this.sendRaw(
      encodeFrame(
        authAcceptedRule,
        {
          type: 'auth.accepted',
          sessionId: this.id,
          agentId,
          heartbeatIntervalMs: this.settings.heartbeatIntervalMs,
        },
        MAX_AUTH_FRAME_BYTES,
      ),
    )
    this.after(this.settings.handshakeTimeoutMs, () => {
      if (this.state === 'handshaking') this.close(CLOSE_PROTOCOL, 'Handshake timeout')
    })
  }

  private handshake(message: PrinthubAgentMessage): void {
    if (message.type !== 'agent.hello') return this.close(CLOSE_PROTOCOL, 'Protocol error')
    if (message.payload.agentId !== this.agent) return this.close(CLOSE_PROTOCOL, 'Identity mismatch')
    this.stopTimers()
    this.printhubPeer = message.payload.productId === PRINTHUB_PRODUCT_ID
    this.state = 'connected'
    this.sendFrame({
      protocolVersion: PROTOCOL_VERSION,
      messageId: newMessageId(),
      sentAt: new Date(this.settings.now()).toISOString(),
      correlationId: message.messageId,
      type: 'server.hello',
      payload: {
        serverId: this.settings.serverId,
        serverVersion: this.settings.serverVersion,
        brand: { name: this.settings.serverName() },
        sessionId: this.id,
        supportedProtocolVersions: [PROTOCOL_VERSION],
        selectedProtocolVersion: PROTOCOL_VERSION,
        heartbeatIntervalMs: this.settings.heartbeatIntervalMs,
        maxMessageBytes: MAX_FRAME_BYTES,
      },
    })
    this.heartbeats.start()
    this.events.sessionConnected(this)
  }

  private dispatch(message: PrinthubAgentMessage): void {
    switch (message.type) {
      case 'agent.hello':
        throw new ProtocolViolation('a second agent.hello')
      case 'agent.heartbeat':
        if (!this.heartbeats.answered(message.correlationId))
          throw new ProtocolViolation('a heartbeat answer to no heartbeat')
        return
      case 'agent.printer_inventory':
        return this.takeInventory(replaceSnapshot(this.inventoryState, message.payload))
      case 'agent.printer_inventory_changed':
        return this.takeInventory(applyDelta(this.inventoryState, message.payload))
      case 'agent.diagnostics':
        if (message.payload.agentId !== this.agent) throw new ProtocolViolation('diagnostics of another agent')
        return
      default:
        return this.events.sessionReport(this, jobReport(message))
    }
  }

  private takeInventory(result: ReturnType<typeof replaceSnapshot>): void {
    if (!this.inventoryPace.take(this.settings.now())) throw new ProtocolViolation('printer inventories sent too often')
    if (!result.ok) throw new ProtocolViolation(result.reason)
    if (!result.changed) return
    this.inventoryState = result.inventory
    this.events.sessionInventory(this, [...result.inventory.printers.values()])
  }

  private sendServer<T extends ServerMessage['type']>(
    type: T,
    payload: Extract<ServerMessage, { type: T }>['payload'],
    messageId = newMessageId(),
  ): void {
    this.sendFrame({
      protocolVersion: PROTOCOL_VERSION,
      messageId,
      sentAt: new Date(this.settings.now()).toISOString(),
      type,
      payload,
    } as ServerMessage)
  }

  private sendFrame(frame: ServerMessage): void {
    // A printhub agent takes printhub's document extensions; another agent only OpenPrinter's documents.
    this.sendRaw(
      encodeFrame(
        this.printhubPeer ? printhubServerMessageRule : serverMessageRule,
        frame,
        MAX_FRAME_BYTES,
        this.transport.inProcess,
      ),
    )
  }

  private sendRaw(text: string): void {
    this.transport.send(text)
  }

  private reject(code: AuthRejectionCode, agentId?: string): void {
    if (this.state !== 'authenticating') return
    // One budget per address: a machine that keeps failing cannot fill the log.
    const { address } = this.described
    this.settings.log?.warn('authentication refused', { agent: agentId, address, code }, { limit: `auth ${address}` })
    const message = code === 'authentication_timeout' ? 'Gateway authentication timed out.' : AUTH_FAILED
    try {
      this.sendRaw(encodeFrame(authRejectedRule, { type: 'auth.rejected', code, message }, MAX_AUTH_FRAME_BYTES))
    } finally {
      this.close(code === 'authentication_timeout' ? CLOSE_AUTH_TIMEOUT : CLOSE_AUTH_FAILED, code)
    }
  }

  private fail(error: unknown): void {
    if (error instanceof ProtocolViolation && this.state === 'connected')
      return this.disconnect('protocol_error', PROTOCOL_ERROR, false)
    this.close(CLOSE_PROTOCOL, error instanceof ProtocolViolation ? 'Protocol error' : 'Server error')
  }

  private close(code: number, reason: string): void {
    if (this.state === 'closed') return
    this.ending ??= reason
    try {
      this.transport.close(code, sanitize(reason))
    } finally {
      this.transportClosed()
    }
  }

  private after(ms: number, run: () => void): Timer {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      run()
    }, ms)
    this.timers.add(timer)
    return timer
  }

  private stopTimers(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    this.heartbeats.stop()
  }
}
