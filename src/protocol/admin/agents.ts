// Agents and pairing, for technicians: the paired agents with the printers they reported, revoking
// one, and a pairing code for the next (with the command that uses it and its QR code; printed on
// a printer when asked).
import { jobRule } from '../job.ts'
import { PAIRING_CODE_TTL_MS } from '../pairing.ts'
import { array, boolean, type Infer, integer, nullable, object, oneOf, optional, string } from '../rules.ts'
import { identifier, shortString, timestamp } from '../values.ts'
import { type AdminOperation, json, MAX_LISTED, recordId, text } from './contract.ts'

export const PAIRING_BODY_BYTES = 1_024

export const pairingCodeRequestRule = object({
  ttlSeconds: optional(integer({ min: PAIRING_CODE_TTL_MS.min / 1000, max: PAIRING_CODE_TTL_MS.max / 1000 })),
  /** A printer's record ID: the code is printed there too. */
  printOn: optional(identifier),
})

const agentFields = {
  id: recordId,
  keyId: string({ min: 1, max: 256 }),
  name: string({ min: 1, max: 256 }),
  version: shortString,
  platform: string({ min: 1, max: 256 }),
  /** The hub's own agent, which drives the printers attached to the hub. */
  builtin: boolean(),
  pairedAt: timestamp,
  lastSeenAt: nullable(timestamp),
  revokedAt: nullable(timestamp),
}

/** A paired agent (or the hub's built-in one). */
export const agentRecordRule = object(agentFields)
export type AgentRecordView = Infer<typeof agentRecordRule>

/** A printer as its agent last reported it. */
export const reportedPrinterRule = object({
  id: identifier,
  name: shortString,
  availability: oneOf(['online', 'offline', 'unknown']),
  enabled: boolean(),
  /** How the agent reaches it (OpenPrinter's descriptor kinds). */
  kind: oneOf(['local', 'network', 'virtual']),
})

/** An agent with whether it is connected now and the printers it reported. */
export const adminAgentRule = object({
  ...agentFields,
  online: boolean(),
  printers: array(reportedPrinterRule, { max: 512 }),
})
export type AdminAgent = Infer<typeof adminAgentRule>

export const pairingCodeRule = object({
  code: string({ min: 1, max: 64 }),
  expiresAt: timestamp,
  /** The command that pairs an agent with it, on the agent's machine. */
  command: text,
  /** A QR code of the command, as SVG. */
  qrSvg: string({ min: 1, max: 1_048_576 }),
  /** The job that prints it, when it was asked to be printed. */
  printed: nullable(jobRule),
})
export type PairingCodeAnswer = Infer<typeof pairingCodeRule>

export const agentOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/agents',
    operationId: 'listAgents',
    summary: 'The paired agents (and the built-in one), with their printers and whether they are connected',
    role: 'technician',
    answers: { 200: json(object({ agents: array(adminAgentRule, { max: MAX_LISTED }) }), 'The agents') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/agents/:id/revoke',
    operationId: 'revokeAgent',
    summary: 'Revoke a paired agent: it is disconnected at once (the built-in agent cannot be)',
    role: 'technician',
    answers: { 200: json(object({ agent: agentRecordRule }), 'The agent, revoked') },
    errors: [404, 409],
  },
  {
    method: 'POST',
    path: '/pairing-codes',
    operationId: 'createPairingCode',
    summary: 'A pairing code for the next agent, with the command that uses it; printed too with printOn',
    role: 'technician',
    body: { rule: pairingCodeRequestRule, maxBytes: PAIRING_BODY_BYTES },
    answers: { 201: json(pairingCodeRule, 'The code, until when it is valid, its command and QR code') },
    errors: [404, 413, 429, 507],
  },
]
