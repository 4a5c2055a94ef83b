// A stock OpenPrinter v1 agent, scripted by tests and written from the protocol reference alone
// (printhub's OpenPrinter v1 interoperability reference, sections 2 to 4 and 7; that document is
// not part of this repository): it imports nothing of the hub.
// It pairs, answers the challenge, says hello, reports printers and acknowledges jobs when told to,
// and it checks every frame the hub sends the way a strict agent (OPPA) would: against the official
// JSON Schema, and against the wire rules the schema cannot express (order, correlation, sizes).
import { getPublicKeyAsync, signAsync, utils } from '@noble/ed25519'
import type { PrinterDescriptor as WirePrinterDescriptor } from '../../src/protocol/frames.ts'
import { validators } from './schema.ts'
import { waitFor } from './wait.ts'

export const GATEWAY_PATH = '/.well-known/printservice/gateway'
export const PAIR_PATH = '/printservice/pair'

/** Auth frames are capped at 16 KiB, normal frames at 2 MiB (reference 3.1 and 4.1). */
export const MAX_AUTH_FRAME_BYTES = 16_384
export const MAX_FRAME_BYTES = 2_097_152

// Frames are JSON as the hub sent it; tests read fields the schema has already vouched for.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Frame = Record<string, any>

export interface AgentCredentials {
  agentId: string
  keyId: string
  serverId: string
  secretKey: Uint8Array
  /** The public key `x`, unpadded base64url. */
  publicKey: string
}

export interface PrinterDescriptor {
  id: string
  kind: 'virtual'
  fingerprint: string
  name: string
  enabled: boolean
  availability: 'online' | 'offline' | 'unknown'
  connection: { type: 'virtual' }
}

/** A virtual printer as OPPA would describe it. */
export function virtualPrinter(id: string, overrides: Partial<PrinterDescriptor> = {}): PrinterDescriptor {
  return {
    id,
    kind: 'virtual',
    fingerprint: `virtual:${id}`,
    name: 'Fake',
    enabled: true,
    availability: 'online',
    connection: { type: 'virtual' },
    ...overrides,
  }
}

export const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url')
export const fromBase64url = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64url'))
export const isoNow = (): string => new Date().toISOString()
/** Message IDs as OPPA makes them for connection messages. */
export const newMessageId = (): string => `message_${crypto.randomUUID()}`

let installations = 0

/** Pairs a new agent with a pairing code (reference section 2), as OPPA does: a fresh Ed25519 key. */
export async function pairAgent(hubUrl: string, code: string, name = 'Fake agent'): Promise<AgentCredentials> {
  const secretKey = utils.randomSecretKey()
  const publicKey = base64url(await getPublicKeyAsync(secretKey))
  const response = await fetch(hubUrl + PAIR_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      protocolVersion: '1',
      code,
      agent: { name, version: '0.2.5', platform: 'linux', installationId: `installation_fake_${++installations}` },
      credential: { algorithm: 'Ed25519', publicKey: { kty: 'OKP', crv: 'Ed25519', x: publicKey } },
    }),
  })
  const body = (await response.json()) as Frame
  if (response.status !== 200) throw new Error(`pairing failed: ${response.status} ${JSON.stringify(body)}`)
  const errors = validators.pairingResponse(body) ? [] : validators.pairingResponse.errors
  if (errors?.length) throw new Error(`the pairing response breaks the schema: ${JSON.stringify(errors)}`)
  return { agentId: body.agentId, keyId: body.keyId, serverId: body.serverId, secretKey, publicKey }
}

export interface ReceivedFrame {
  /** Position among every frame this connection received. */
  index: number
  /** performance.now() at arrival. */
  at: number
  /** The exact text, to compare redeliveries byte for byte. */
  text: string
  frame: Frame
}

export interface SchemaFailure {
  type: string
  errors: unknown[]
  text: string
}

type Phase = 'challenge' | 'response' | 'accepted' | 'connected' | 'rejected'

/** What the auth.response will carry; anything left out is the agent's own correct value. */
export interface AuthOverrides {
  challengeId?: string
  agentId?: string
  keyId?: string
  algorithm?: string
  /** Signs with another key. */
  secretKey?: Uint8Array
  /** Signs these bytes instead of the challenge payload. */
  signed?: Uint8Array
}

/** One connection of an agent to the hub's gateway. */
export class FakeAgent {
  readonly received: ReceivedFrame[] = []
  /** Frames that broke the JSON Schema. A stock agent would have dropped the connection. */
  readonly schemaFailures: SchemaFailure[] = []
  /** Frames that broke a wire rule the schema cannot express (order, correlation, size, binary). */
  readonly protocolFailures: string[] = []
  /** Every frame this agent sent, in order. */
  readonly sent: Frame[] = []
  /** Answer each server.heartbeat at once, as OPPA does; set false to stay silent. */
  answerHeartbeats = true
  /** How the socket closed, once it has. */
  closeEvent: { code: number; reason: string } | undefined
  challenge: Frame | undefined
  helloMessageId: string | undefined
  revision = 0
  printers: PrinterDescriptor[] = []
  private phase: Phase = 'challenge'
  private readonly taken = new Set<number>()
  private readonly startedAt = performance.now()

  private constructor(
    readonly url: string,
    readonly credentials: AgentCredentials,
    private readonly ws: WebSocket,
  ) {
    ws.binaryType = 'arraybuffer'
    ws.addEventListener('message', (event) => this.onMessage(event.data))
    ws.addEventListener('close', (event) => {
      this.closeEvent = { code: event.code, reason: event.reason }
    })
  }

  /** Opens a WebSocket to the hub's gateway and waits for the challenge, which must come first. */
  static async connect(hubUrl: string, credentials: AgentCredentials): Promise<FakeAgent> {
    const ws = new WebSocket(hubUrl.replace(/^http/, 'ws') + GATEWAY_PATH)
    const agent = new FakeAgent(hubUrl, credentials, ws)
    await agent.next('auth.challenge')
    return agent
  }

  /** Pairs nothing: connects, authenticates, says hello and reports `printers` (revision 1). */
  static async online(
    hubUrl: string,
    credentials: AgentCredentials,
    printers: PrinterDescriptor[] = [virtualPrinter('printer_fake_1')],
  ): Promise<FakeAgent> {
    const agent = await FakeAgent.connect(hubUrl, credentials)
    const outcome = await agent.authenticate()
    if (outcome.type !== 'auth.accepted') throw new Error(`authentication failed: ${JSON.stringify(outcome)}`)
    await agent.hello()
    await agent.inventory(printers)
    return agent
  }

  get agentId(): string {
    return this.credentials.agentId
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN
  }

  /**
   * Answers the challenge (section 3.3: sign the decoded payload bytes); resolves with auth.accepted or auth.rejected.
   */
  async authenticate(overrides: AuthOverrides = {}): Promise<Frame> {
    const challenge = this.challenge
    if (!challenge) throw new Error('no challenge yet')
    const signature = await signAsync(
      overrides.signed ?? fromBase64url(challenge.payload),
      overrides.secretKey ?? this.credentials.secretKey,
    )
    this.send({
      type: 'auth.response',
      challengeId: overrides.challengeId ?? challenge.challengeId,
      agentId: overrides.agentId ?? this.credentials.agentId,
      keyId: overrides.keyId ?? this.credentials.keyId,
      algorithm: overrides.algorithm ?? 'Ed25519',
      signature: base64url(signature),
    })
    return this.next(['auth.accepted', 'auth.rejected'])
  }

  /** Sends agent.hello and waits for server.hello (checked to answer it). */
  async hello(payload: Partial<Frame> = {}): Promise<Frame> {
    const hello = this.envelope('agent.hello', {
      agentId: this.credentials.agentId,
      agentVersion: '0.2.5',
      productId: 'oppa',
      productVersion: '0.2.5',
      supportedProtocolVersions: ['1'],
      ...payload,
    })
    this.helloMessageId = hello.messageId
    this.send(hello)
    return this.next('server.hello')
  }

  /** A full inventory snapshot; the revision goes up by one unless given. */
  async inventory(printers: PrinterDescriptor[], revision = this.revision + 1, correlationId?: string): Promise<void> {
    this.revision = revision
    this.printers = printers
    this.send(this.envelope('agent.printer_inventory', { revision, printers }, correlationId))
  }

  /** The envelope of section 4.1 around a payload. */
  envelope(type: string, payload: Frame, correlationId?: string): Frame {
    return {
      protocolVersion: '1',
      messageId: newMessageId(),
      sentAt: isoNow(),
      ...(correlationId === undefined ? {} : { correlationId }),
      type,
      payload,
    }
  }

  /** Sends a frame as compact JSON text. */
  send(frame: Frame): void {
    this.sent.push(frame)
    this.sendRaw(JSON.stringify(frame))
  }

  /** Sends raw bytes or text, for frames no well-behaved agent would send. */
  sendRaw(data: string | Uint8Array<ArrayBuffer>): void {
    // Whatever answers the challenge (well-formed or not) may be followed by an auth outcome.
    if (this.phase === 'challenge' && this.challenge) this.phase = 'response'
    this.ws.send(data)
  }

  // ---- Job reports (section 4.3); `job` is the server.print_job frame being answered ----

  jobReceived(job: Frame, receivedAt = isoNow()): void {
    const { jobId, idempotencyKey } = job.payload
    this.send(
      this.envelope('agent.job_received', { jobId, idempotencyKey, status: 'received', receivedAt }, job.messageId),
    )
  }

  jobSubmitted(job: Frame, submittedAt = isoNow()): void {
    const { jobId, idempotencyKey, printerId } = job.payload
    this.send(
      this.envelope(
        'agent.job_submitted',
        { jobId, idempotencyKey, printerId, status: 'submitted', submittedAt },
        job.messageId,
      ),
    )
  }

  jobFailed(job: Frame, error: { code: string; message: string; retryable: boolean }, failedAt = isoNow()): void {
    const { jobId, idempotencyKey } = job.payload
    this.send(
      this.envelope('agent.job_failed', { jobId, idempotencyKey, status: 'failed', failedAt, error }, job.messageId),
    )
  }

  // ---- Waiting ----

  /**
   * The oldest received frame of one of `types` (and matching `where`) not yet returned by next(),
   * waiting for it when there is none yet. Fails fast when the socket closes first.
   */
  async next(
    types: string | string[],
    options: { timeoutMs?: number; where?: (frame: Frame) => boolean } = {},
  ): Promise<Frame> {
    const wanted = typeof types === 'string' ? [types] : types
    const found = await waitFor(() => {
      const hit = this.received.find(
        (r) => !this.taken.has(r.index) && wanted.includes(r.frame.type) && (options.where?.(r.frame) ?? true),
      )
      if (hit) return hit
      if (this.closeEvent)
        throw new Error(
          `the socket closed (${this.closeEvent.code} ${this.closeEvent.reason}) ` +
            `before a ${wanted.join(' or ')} arrived`,
        )
      return undefined
    }, options.timeoutMs ?? 3_000).catch((error: Error) => {
      throw new Error(
        `${error.message} (waiting for ${wanted.join(' or ')}; received ` +
          `${this.received.map((r) => r.frame.type).join(', ') || 'nothing'})`,
      )
    })
    this.taken.add(found.index)
    return found.frame
  }

  /** Every frame received of `type`. */
  all(type: string): Frame[] {
    return this.received.filter((r) => r.frame.type === type).map((r) => r.frame)
  }

  /** Waits for the socket to close and says how. */
  async closed(timeoutMs = 3_000): Promise<{ code: number; reason: string }> {
    return waitFor(() => this.closeEvent, timeoutMs)
  }

  /** Closes the socket normally, as OPPA does on shutdown. */
  async close(): Promise<void> {
    if (this.closeEvent) return
    if (this.ws.readyState === WebSocket.CONNECTING || this.ws.readyState === WebSocket.OPEN)
      this.ws.close(1000, 'Agent shutdown')
    await this.closed().catch(() => {})
  }

  // ---- Inbound frames ----

  private onMessage(data: string | ArrayBuffer): void {
    if (typeof data !== 'string') {
      this.protocolFailures.push(`a binary frame of ${data.byteLength} bytes (text frames only)`)
      return
    }
    let frame: Frame
    try {
      frame = JSON.parse(data) as Frame
    } catch {
      this.protocolFailures.push(`a frame that is not JSON: ${data.slice(0, 80)}`)
      return
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      this.protocolFailures.push(`a frame that is not an object: ${data.slice(0, 80)}`)
      return
    }
    this.received.push({ index: this.received.length, at: performance.now(), text: data, frame })
    this.check(data, frame)
    if (!this.isOpen) return
    // What OPPA answers by itself (reference 4.4, 4.7).
    if (frame.type === 'server.heartbeat' && this.answerHeartbeats) {
      this.send(
        this.envelope(
          'agent.heartbeat',
          { uptimeSeconds: Math.floor((performance.now() - this.startedAt) / 1000) },
          frame.messageId,
        ),
      )
    } else if (frame.type === 'server.request_printer_inventory') {
      void this.inventory(this.printers, this.revision, frame.messageId)
    } else if (frame.type === 'server.configuration_invalidated') {
      void this.inventory(this.printers)
    }
  }

  /** The checks of a strict agent: the schema, then what the schema cannot say (sections 3, 4). */
  private check(text: string, frame: Frame): void {
    const type = String(frame.type)
    const bytes = Buffer.byteLength(text, 'utf8')
    const fail = (problem: string) => this.protocolFailures.push(`${type}: ${problem}`)
    if (type.startsWith('auth.')) {
      const validator = {
        'auth.challenge': validators.authChallenge,
        'auth.accepted': validators.authAccepted,
        'auth.rejected': validators.authRejected,
      }[type]
      if (!validator)
        return void this.schemaFailures.push({ type, errors: [`${type} is not a server auth frame`], text })
      if (!validator(frame)) this.schemaFailures.push({ type, errors: validator.errors ?? [], text })
      if (bytes > MAX_AUTH_FRAME_BYTES) fail(`${bytes} bytes, above the auth frame limit`)
      if (type === 'auth.challenge') {
        if (this.phase !== 'challenge' || this.challenge) fail('a challenge that is not the first frame')
        this.challenge = frame
        const decoded = typeof frame.payload === 'string' ? fromBase64url(frame.payload).length : 0
        if (decoded < 1 || decoded > 4096) fail(`a payload of ${decoded} decoded bytes`)
      } else if (this.phase !== 'response') {
        fail('an auth outcome before any auth.response')
      } else if (type === 'auth.accepted') {
        if (frame.agentId !== this.credentials.agentId) fail(`accepted as ${frame.agentId}`)
        this.phase = 'accepted'
      } else {
        this.phase = 'rejected'
      }
      return
    }
    if (!validators.serverMessage(frame))
      this.schemaFailures.push({ type, errors: validators.serverMessage.errors ?? [], text })
    if (bytes > MAX_FRAME_BYTES) fail(`${bytes} bytes, above the frame limit`)
    if (this.received.length === 1) fail('the first frame is not auth.challenge')
    if (type === 'server.hello') {
      if (this.phase !== 'accepted') fail('server.hello twice, or before auth.accepted')
      if (this.helloMessageId === undefined || frame.correlationId !== this.helloMessageId)
        fail(`correlationId ${frame.correlationId} does not answer agent.hello ${this.helloMessageId}`)
      this.phase = 'connected'
      return
    }
    if (this.phase !== 'connected') fail(`sent before server.hello (phase ${this.phase})`)
    if ('correlationId' in frame) fail('a correlationId on a message that forbids it')
  }
}

/** A CUPS queue as a stock OpenPrinter agent reports it: a system name, not a printhub URI. */
export const CUPS_QUEUE: WirePrinterDescriptor = {
  id: 'front-desk',
  kind: 'local',
  fingerprint: 'system:EPSON_TM_T20',
  name: 'Front desk',
  enabled: true,
  availability: 'online',
  connection: { type: 'system', systemName: 'EPSON_TM_T20' },
  capabilities: { mediaWidths: [58], raster: true, cut: true, qr: true, barcode: true },
}
