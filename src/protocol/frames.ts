// Every OpenPrinter v1 frame (reference sections 3 and 4), as closed rules: the gateway and the
// agent decode inbound frames and check outbound ones with these.
import { wireDocumentRule } from './document.ts'
import { brandNameRule } from './discovery.ts'
import { MAX_MESSAGE_LENGTH, PROTOCOL_VERSION } from './limits.ts'
import {
  array,
  boolean,
  type Infer,
  integer,
  object,
  oneOf,
  optional,
  record,
  type Rule,
  string,
  tagged,
} from './rules.ts'
import { identifier, shortString, timestamp } from './values.ts'

const SAFE_INTEGER = { min: 0, max: Number.MAX_SAFE_INTEGER }
const protocolVersions = array(oneOf([PROTOCOL_VERSION]), { min: 1, max: 8, unique: true })
const base64url = string({ min: 1, max: 4_096, pattern: /^[A-Za-z0-9_-]+$/, patternHint: 'unpadded base64url' })
export const idempotencyKey = string({ min: 1, max: 256 })
const wireMetadata = record(
  string({
    min: 1,
    max: 64,
    pattern: /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
    patternHint: 'a letter or digit, then letters, digits, ".", "_", ":" or "-"',
  }),
  string({ max: 1_024 }),
  { maxEntries: 32 },
)

// ---- Authentication frames: no envelope ------------------------------------------------------

export const AUTH_REJECTION_CODES = [
  'challenge_expired',
  'challenge_invalid',
  'challenge_consumed',
  'credential_not_found',
  'credential_revoked',
  'invalid_signature',
  'unsupported_algorithm',
  'authentication_timeout',
] as const
export type AuthRejectionCode = (typeof AUTH_REJECTION_CODES)[number]

export const authChallengeRule = object({
  type: oneOf(['auth.challenge']),
  challengeId: identifier,
  payload: base64url,
  expiresAt: timestamp,
})
export const authResponseRule = object({
  type: oneOf(['auth.response']),
  challengeId: identifier,
  agentId: identifier,
  keyId: identifier,
  algorithm: oneOf(['Ed25519']),
  signature: string({
    min: 86,
    max: 86,
    pattern: /^[A-Za-z0-9_-]{86}$/,
    patternHint: 'a 64-byte signature in unpadded base64url',
  }),
})
export const authAcceptedRule = object({
  type: oneOf(['auth.accepted']),
  sessionId: identifier,
  agentId: identifier,
  heartbeatIntervalMs: integer({ min: 5_000, max: 300_000 }),
})
export const authRejectedRule = object({
  type: oneOf(['auth.rejected']),
  code: oneOf(AUTH_REJECTION_CODES),
  message: string({ min: 1, max: 512 }),
})

export type AuthChallenge = Infer<typeof authChallengeRule>
export type AuthResponse = Infer<typeof authResponseRule>
export type AuthAccepted = Infer<typeof authAcceptedRule>
export type AuthRejected = Infer<typeof authRejectedRule>

// ---- Normal frames: the envelope around a payload --------------------------------------------

type Correlation = 'required' | 'optional' | 'forbidden'

/** The envelope of one message type, without `type` (the discriminator of the unions below). */
export function envelope<P>(payload: Rule<P>, correlation: 'forbidden'): ReturnType<typeof envelopeOf<P>>
export function envelope<P>(payload: Rule<P>, correlation: 'required'): ReturnType<typeof correlatedOf<P>>
export function envelope<P>(payload: Rule<P>, correlation: 'optional'): ReturnType<typeof maybeCorrelatedOf<P>>
export function envelope<P>(payload: Rule<P>, correlation: Correlation) {
  if (correlation === 'forbidden') return envelopeOf(payload)
  return correlation === 'required' ? correlatedOf(payload) : maybeCorrelatedOf(payload)
}

const envelopeFields = <P>(payload: Rule<P>) => ({
  protocolVersion: oneOf([PROTOCOL_VERSION]),
  messageId: identifier,
  sentAt: timestamp,
  payload,
})
const envelopeOf = <P>(payload: Rule<P>) => object(envelopeFields(payload))
const correlatedOf = <P>(payload: Rule<P>) => object({ ...envelopeFields(payload), correlationId: identifier })
const maybeCorrelatedOf = <P>(payload: Rule<P>) =>
  object({ ...envelopeFields(payload), correlationId: optional(identifier) })

const capabilities = object({
  mediaWidths: array(oneOf([58, 80]), { min: 1, max: 2, unique: true }),
  raster: boolean(),
  cut: boolean(),
  qr: boolean(),
  barcode: boolean(),
})
const descriptorFields = {
  id: identifier,
  fingerprint: string({ min: 1, max: 256 }),
  name: shortString,
  capabilities: optional(capabilities),
  enabled: boolean(),
  availability: oneOf(['online', 'offline', 'unknown']),
}
/** A printer as an agent describes it; `kind` and `connection` go together. */
export const printerDescriptorRule = tagged('kind', {
  local: object({
    ...descriptorFields,
    connection: object({ type: oneOf(['system']), systemName: string({ min: 1, max: 256 }) }),
  }),
  network: object({
    ...descriptorFields,
    connection: object({
      type: oneOf(['tcp']),
      host: string({ min: 1, max: 253 }),
      port: integer({ min: 1, max: 65_535 }),
    }),
  }),
  virtual: object({ ...descriptorFields, connection: object({ type: oneOf(['virtual']) }) }),
})
export type PrinterDescriptor = Infer<typeof printerDescriptorRule>

const printers = array(printerDescriptorRule, { max: 512 })

const agentMessages = {
  'agent.hello': envelope(
    object({
      agentId: identifier,
      agentVersion: shortString,
      productId: identifier,
      productVersion: shortString,
      supportedProtocolVersions: protocolVersions,
    }),
    'forbidden',
  ),
  'agent.heartbeat': envelope(object({ uptimeSeconds: integer(SAFE_INTEGER) }), 'required'),
  'agent.printer_inventory': envelope(object({ revision: integer(SAFE_INTEGER), printers }), 'optional'),
  'agent.printer_inventory_changed': envelope(
    object({
      revision: integer(SAFE_INTEGER),
      added: printers,
      updated: printers,
      removedPrinterIds: array(identifier, { max: 512, unique: true }),
    }),
    'forbidden',
  ),
  'agent.job_received': envelope(
    object({ jobId: identifier, idempotencyKey, status: oneOf(['received']), receivedAt: timestamp }),
    'required',
  ),
  'agent.job_submitted': envelope(
    object({
      jobId: identifier,
      idempotencyKey,
      printerId: identifier,
      status: oneOf(['submitted']),
      submittedAt: timestamp,
    }),
    'required',
  ),
  'agent.job_failed': envelope(
    object({
      jobId: identifier,
      idempotencyKey,
      status: oneOf(['failed']),
      failedAt: timestamp,
      error: object({ code: identifier, message: string({ min: 1, max: MAX_MESSAGE_LENGTH }), retryable: boolean() }),
    }),
    'required',
  ),
  'agent.diagnostics': envelope(
    object({
      agentId: identifier,
      collectedAt: timestamp,
      health: oneOf(['healthy', 'degraded', 'unhealthy']),
      queueDepth: integer(SAFE_INTEGER),
      printersOnline: integer({ min: 0, max: 512 }),
      printersTotal: integer({ min: 0, max: 512 }),
      issues: array(
        object({
          code: identifier,
          message: string({ min: 1, max: MAX_MESSAGE_LENGTH }),
          severity: oneOf(['info', 'warning', 'error']),
        }),
        { max: 64 },
      ),
    }),
    'forbidden',
  ),
}

export const agentMessageRule = tagged('type', agentMessages)

/**
 * The frames a server sends, its print jobs' documents checked by `documents`: OpenPrinter's own
 * here; printhub's, with its extensions, between two printhub ends (extensions.ts).
 */
export function serverMessageRuleWith(documents: typeof wireDocumentRule) {
  return tagged('type', {
    'server.hello': envelope(
      object({
        serverId: identifier,
        serverVersion: shortString,
        brand: object({ name: brandNameRule }),
        sessionId: identifier,
        supportedProtocolVersions: protocolVersions,
        selectedProtocolVersion: oneOf([PROTOCOL_VERSION]),
        heartbeatIntervalMs: integer({ min: 5_000, max: 300_000 }),
        maxMessageBytes: integer({ min: 1_024, max: 2_097_152 }),
      }),
      'required',
    ),
    'server.heartbeat': envelope(object({ timeoutMs: integer({ min: 1_000, max: 120_000 }) }), 'forbidden'),
    'server.print_job': envelope(
      object({
        jobId: identifier,
        idempotencyKey,
        printerId: identifier,
        createdAt: timestamp,
        document: documents,
        metadata: optional(wireMetadata),
      }),
      'forbidden',
    ),
    'server.cancel_job': envelope(
      object({ jobId: identifier, reason: optional(string({ min: 1, max: 512 })) }),
      'forbidden',
    ),
    'server.request_printer_inventory': envelope(object({}), 'forbidden'),
    'server.configuration_invalidated': envelope(
      object({ scope: oneOf(['agent', 'printers', 'all']), revision: optional(string({ min: 1, max: 128 })) }),
      'forbidden',
    ),
    'server.disconnect': envelope(
      object({
        code: identifier,
        reason: string({ min: 1, max: MAX_MESSAGE_LENGTH }),
        reconnect: boolean(),
        retryAfterMs: optional(integer({ min: 0, max: 86_400_000 })),
      }),
      'forbidden',
    ),
  })
}

export const serverMessageRule = serverMessageRuleWith(wireDocumentRule)

export type AgentMessage = Infer<typeof agentMessageRule>
export type ServerMessage = Infer<typeof serverMessageRule>

/** The agent frames of OpenPrinter v1 plus `extensions`, for peers that agreed to more. */
export function agentMessageRuleWith<E extends Record<string, Rule<object>>>(extensions: E) {
  return tagged('type', { ...agentMessages, ...extensions })
}
