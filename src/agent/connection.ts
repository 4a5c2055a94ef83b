// One connection of an agent to a hub, on the agent's side of OpenPrinter v1: answer the
// challenge, say hello, then pass the hub's frames on. The same code runs over a WebSocket (a
// remote agent) and over the in-memory pipe (the built-in agent).
import { decodeFrame, encodeFrame } from '../protocol/codec.ts'
import {
  isPrinthubServer,
  PRINTHUB_PRODUCT_ID,
  printhubAgentMessageRule,
  type PrinthubAgentMessage,
  printhubServerMessageRule,
} from '../protocol/extensions.ts'
import {
  authAcceptedRule,
  authChallengeRule,
  authRejectedRule,
  authResponseRule,
  serverMessageRule,
  type ServerMessage,
} from '../protocol/frames.ts'
import { MAX_AUTH_FRAME_BYTES, MAX_FRAME_BYTES, PROTOCOL_VERSION } from '../protocol/limits.ts'
import { union } from '../protocol/rules.ts'
import { decodeBase64Url } from '../protocol/values.ts'
import type { AgentKey } from './identity.ts'

export interface AgentTransport {
  send(text: string): void
  close(code: number, reason: string): void
  /**
   * The hub is this program in this process (the built-in agent's), which checks every frame it reads: see encodeFrame.
   */
  readonly inProcess?: boolean
}

export interface TransportHandlers {
  message(data: string | Uint8Array): void
  closed(code: number, reason: string): void
}

/** Opens a transport to the hub's gateway. */
export type Connector = (handlers: TransportHandlers) => Promise<AgentTransport>

export interface Credentials {
  agentId: string
  keyId: string
}

/** How a connection ended, and whether to try again. */
export interface Ending {
  reason: string
  reconnect: boolean
  /** The hub asked to wait this long first. */
  retryAfterMs?: number
  /** The hub refused the credential: the agent must be paired again. */
  rejected?: string
}

export interface ConnectionEvents {
  /** After server.hello: the connection carries jobs now. */
  ready(connection: AgentConnection): void
  /** `size`: the length of the frame's text. */
  frame(
    connection: AgentConnection,
    message: Exclude<ServerMessage, { type: 'server.hello' | 'server.heartbeat' | 'server.disconnect' }>,
    size: number,
  ): void
}

/** What a connection is made with: who the agent is, and who hears what comes of it. */
export interface ConnectionOptions {
  credentials: Credentials
  key: AgentKey
  /** The agent's version, in its hello. */
  version: string
  /** How long the agent has run, in its heartbeats' answers. */
  uptimeSeconds: () => number
  events: ConnectionEvents
}

const authFrameRule = union('type', {
  'auth.challenge': authChallengeRule,
  'auth.accepted': authAcceptedRule,
  'auth.rejected': authRejectedRule,
})

/** How long the hub may take to say hello back (the reference agent waits as long). */
export const HELLO_TIMEOUT_MS = 20_000

export const newMessageId = (): string =>
  `msg_${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex')}`

/** A new agent frame of `type`, stamped now. */
export function agentFrame<T extends PrinthubAgentMessage['type']>(
  type: T,
  payload: Extract<PrinthubAgentMessage, { type: T }>['payload'],
  correlationId?: string,
): Extract<PrinthubAgentMessage, { type: T }> {
  return {
    protocolVersion: PROTOCOL_VERSION,
    messageId: newMessageId(),
    sentAt: new Date().toISOString(),
    ...(correlationId === undefined ? {} : { correlationId }),
    type,
    payload,
  } as Extract<PrinthubAgentMessage, { type: T }>
}

type Phase = 'challenge' | 'accepted' | 'hello' | 'ready' | 'ended'

export class AgentConnection {
  private phase: Phase = 'challenge'
  private transport: AgentTransport | undefined
  private helloId = ''
  private printhubServer = false
  private queue: Promise<void> = Promise.resolve()
  private timer: Timer | undefined
  private endingResolve!: (ending: Ending) => void
  /** Settles when the connection is over. */
  readonly ended = new Promise<Ending>((resolve) => (this.endingResolve = resolve))

  private readonly credentials: Credentials
  private readonly key: AgentKey
  private readonly version: string
  private readonly uptimeSeconds: () => number
  private readonly events: ConnectionEvents

  constructor({ credentials, key, version, uptimeSeconds, events }: ConnectionOptions) {
    this.credentials = credentials
    this.key = key
    this.version = version
    this.uptimeSeconds = uptimeSeconds
    this.events = events
  }

  /** True when the hub is a printhub: the extension frames may be sent. */
  get toPrinthub(): boolean {
    return this.printhubServer
  }

  get isReady(): boolean {
    return this.phase === 'ready'
  }

  /** The hub reads this connection's frames in this process (and checks them there). */
  get hubInProcess(): boolean {
    return this.transport?.inProcess === true
  }

  async open(connector: Connector): Promise<void> {
    try {
      this.transport = await connector({
        message: (data) => {
          this.queue = this.queue
            .then(() => this.handle(data))
            .catch((error: Error) => this.end({ reason: error.message, reconnect: true }, 4400))
        },
        closed: (code, reason) =>
          this.end({ reason: `connection closed (${code}${reason ? ` ${reason}` : ''})`, reconnect: true }),
      })
    } catch (error) {
      this.end({ reason: `cannot connect: ${(error as Error).message}`, reconnect: true })
      return
    }
    if (this.phase === 'ended') this.transport.close(1000, 'closed')
  }

  /** Sends an agent frame; false when the connection cannot carry it now. */
  send(frame: PrinthubAgentMessage): boolean {
    if (this.phase !== 'ready' || !this.transport) return false
    return this.sendText(encodeFrame(printhubAgentMessageRule, frame, MAX_FRAME_BYTES, this.hubInProcess))
  }

  /** Sends a frame already encoded (a report from the outbox). */
  sendText(text: string): boolean {
    if (!this.transport || this.phase === 'ended') return false
    try {
      this.transport.send(text)
      return true
    } catch {
      this.end({ reason: 'the connection failed while sending', reconnect: true })
      return false
    }
  }

  close(reason = 'agent stopping'): void {
    this.end({ reason, reconnect: false }, 1000)
  }

  private async handle(data: string | Uint8Array): Promise<void> {
    if (this.phase === 'ended') return
    if (typeof data !== 'string') throw new Error('the hub sent a binary frame')
    if (this.phase === 'challenge' || this.phase === 'accepted') return this.authenticate(data)
    // After hello, a printhub hub may send documents with printhub's extensions.
    const decoded = decodeFrame(
      this.printhubServer ? printhubServerMessageRule : serverMessageRule,
      data,
      MAX_FRAME_BYTES,
    )
    if (!decoded.ok)
      throw new Error(
        `the hub sent a frame outside the protocol: ${decoded.reason} ` +
          `${decoded.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      )
    const message = decoded.message
    if (this.phase === 'hello') {
      if (message.type !== 'server.hello' || message.correlationId !== this.helloId)
        throw new Error('the hub did not answer hello')
      clearTimeout(this.timer)
      this.printhubServer = isPrinthubServer(message.payload.serverVersion)
      this.phase = 'ready'
      this.events.ready(this)
      return
    }
    switch (message.type) {
      case 'server.hello':
        throw new Error('the hub said hello twice')
      case 'server.heartbeat':
        this.send(agentFrame('agent.heartbeat', { uptimeSeconds: this.uptimeSeconds() }, message.messageId))
        return
      case 'server.disconnect':
        return this.end(
          {
            reason: `the hub disconnected: ${message.payload.code}`,
            reconnect: message.payload.reconnect,
            retryAfterMs: message.payload.retryAfterMs,
          },
          1000,
        )
      default:
        this.events.frame(this, message, data.length)
    }
  }

  private async authenticate(text: string): Promise<void> {
    const decoded = decodeFrame(authFrameRule, text, MAX_AUTH_FRAME_BYTES)
    if (!decoded.ok) throw new Error('the hub sent an invalid authentication frame')
    const frame = decoded.message
    if (this.phase === 'challenge') {
      if (frame.type !== 'auth.challenge')
        return this.end(
          { reason: 'the hub did not start with a challenge', reconnect: false, rejected: 'no_challenge' },
          4400,
        )
      const payload = decodeBase64Url(frame.payload)
      if (!payload) throw new Error('the challenge payload is not base64url')
      const signature = await this.key.sign(payload)
      this.phase = 'accepted'
      this.sendText(
        encodeFrame(
          authResponseRule,
          {
            type: 'auth.response',
            challengeId: frame.challengeId,
            agentId: this.credentials.agentId,
            keyId: this.credentials.keyId,
            algorithm: 'Ed25519',
            signature,
          },
          MAX_AUTH_FRAME_BYTES,
        ),
      )
      return
    }
    if (frame.type === 'auth.rejected')
      return this.end(
        { reason: `the hub refused the agent: ${frame.code}`, reconnect: false, rejected: frame.code },
        1000,
      )
    if (frame.type !== 'auth.accepted' || frame.agentId !== this.credentials.agentId) {
      return this.end(
        { reason: 'the hub answered the challenge unexpectedly', reconnect: false, rejected: 'unexpected_answer' },
        4400,
      )
    }
    this.phase = 'hello'
    const hello = agentFrame('agent.hello', {
      agentId: this.credentials.agentId,
      agentVersion: this.version,
      productId: PRINTHUB_PRODUCT_ID,
      productVersion: this.version,
      supportedProtocolVersions: [PROTOCOL_VERSION],
    })
    this.helloId = hello.messageId
    this.timer = setTimeout(
      () => this.end({ reason: 'the hub did not answer hello in time', reconnect: true }, 4400),
      HELLO_TIMEOUT_MS,
    )
    this.sendText(encodeFrame(printhubAgentMessageRule, hello, MAX_FRAME_BYTES))
  }

  private end(ending: Ending, code?: number): void {
    if (this.phase === 'ended') return
    this.phase = 'ended'
    clearTimeout(this.timer)
    if (code !== undefined) {
      try {
        this.transport?.close(code, ending.reason.slice(0, 120))
      } catch {
        // Already gone.
      }
    }
    this.endingResolve(ending)
  }
}
