// The records the hub keeps, as every part reads them: projects and their API keys, agents and the
// printers they report, printer records, destinations, webhooks and their deliveries, stored
// images, printer states. Plain values: the SQLite store (and any other) reads and writes these
// shapes, the services and the edges pass them on.
import type { ApiKeyScope } from '../protocol/api-key.ts'
import type { PaperWidth } from '../protocol/document.ts'
import type { WebhookView } from '../protocol/webhooks.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { ImageMediaType } from '../protocol/image.ts'
import type { PrinterState } from './printer-state.ts'

export interface Project {
  id: string
  name: string
  openJobs: number
  createdAt: string
}

export interface ApiKey {
  id: string
  projectId: string
  name: string | null
  keyPrefix: string
  scopes: ApiKeyScope[]
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}

export interface AgentRecord {
  id: string
  keyId: string
  name: string
  version: string
  platform: string
  builtin: boolean
  pairedAt: string
  lastSeenAt: string | null
  revokedAt: string | null
}

/** An agent as it pairs: what it says it is, and its public key. */
export interface NewAgent {
  name: string
  version: string
  platform: string
  installationId: string
  /** The Ed25519 public key `x` (unpadded base64url, 32 bytes). */
  publicKey: string
}

/** An agent just paired: its ID, its credential's key ID, when. */
export interface PairedAgent {
  id: string
  keyId: string
  pairedAt: string
}

/** A printer as its agent last reported it. */
export interface AgentPrinter {
  agentId: string
  printerId: string
  name: string
  availability: PrinterDescriptor['availability']
  enabled: boolean
  descriptor: PrinterDescriptor
  updatedAt: string
}

export interface PrinterRecord {
  id: string
  projectId: string
  /** The project-local name of the agent printer, e.g. `kitchen`. */
  remoteId: string
  name: string | null
  connection: string
  profile: string
  width: PaperWidth
  /** The agent that owns the printer, and the printer's ID in that agent's inventory. */
  agentId: string
  agentPrinterId: string
  createdAt: string
}

/** One state a printer was in, from when. */
export interface PrinterStateChange {
  at: string
  state: PrinterState
}

export type DestinationMode = 'failover' | 'all'

export interface Destination {
  id: string
  projectId: string
  name: string
  mode: DestinationMode
  /** Printer record IDs, in order of preference. */
  printers: string[]
  createdAt: string
  updatedAt: string
}

/** A webhook as its project's applications see it, and the project it belongs to. */
export interface Webhook extends WebhookView {
  projectId: string
}

export interface DeliveryRecord {
  messageId: string
  /** The event's type (`job.created`, … or `webhook.test`). */
  type: string
  attempts: number
  lastStatus: number | null
  lastError: string | null
  deliveredAt: string | null
  createdAt: string
}

export interface StoredImage {
  name: string
  mediaType: ImageMediaType
  width: number
  height: number
  /** Bytes of the image (decoded from its base64). */
  bytes: number
  updatedAt: string
}
