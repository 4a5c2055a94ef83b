// Rows as both stores answer them, and the records made of them: one mapping per table for SQLite and PostgreSQL.
// A number column comes as a number from SQLite and, when PostgreSQL keeps it as bigint (times, counters), as text
// from its client; a JSON column as text from SQLite and parsed from PostgreSQL's jsonb.
import type { AuditEntry } from '../domain/accounts.ts'
import type { ApiKey, Destination, DestinationMode, PrinterRecord, Project, StoredImage } from '../domain/records.ts'
import type { ApiKeyScope } from '../protocol/api-key.ts'
import type { PaperWidth } from '../protocol/document.ts'
import type { ImageMediaType } from '../protocol/image.ts'
import { iso } from './time.ts'

/** A bigint column's value as a store answers it. */
export type Big = number | string

/** A bigint column's value as a number (times in milliseconds, counters). */
export const int = (value: Big): number => (typeof value === 'number' ? value : Number(value))

/** A time column's value as ISO 8601 UTC. */
export const time = (value: Big): string => iso(int(value))

export const timeOrNull = (value: Big | null): string | null => (value === null ? null : time(value))

/** A JSON column's value, parsed. */
export const json = <T>(value: string | T): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value)

export interface ProjectRow {
  id: string
  name: string
  open_jobs: Big
  created_at: Big
}

export const projectOf = (row: ProjectRow): Project => ({
  id: row.id,
  name: row.name,
  openJobs: int(row.open_jobs),
  createdAt: time(row.created_at),
})

export interface ApiKeyRow {
  id: string
  project_id: string
  name: string | null
  key_prefix: string
  scopes: string
  created_at: Big
  last_used_at: Big | null
  revoked_at: Big | null
}

export const apiKeyOf = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  keyPrefix: row.key_prefix,
  scopes: row.scopes.split(' ') as ApiKeyScope[],
  createdAt: time(row.created_at),
  lastUsedAt: timeOrNull(row.last_used_at),
  revokedAt: timeOrNull(row.revoked_at),
})

export interface AuditLogRow {
  id: Big
  at: Big
  user_name: string | null
  action: string
  target: string | null
  address: string | null
}

export const auditEntryOf = (row: AuditLogRow): AuditEntry => ({
  id: int(row.id),
  at: time(row.at),
  user: row.user_name,
  action: row.action,
  target: row.target,
  address: row.address,
})

export interface DestinationRow {
  id: string
  project_id: string
  name: string
  mode: DestinationMode
  /** Record IDs in order: JSON text (SQLite) or parsed (PostgreSQL). */
  printers: string | string[]
  created_at: Big
  updated_at: Big
}

export const destinationOf = (row: DestinationRow): Destination => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  mode: row.mode,
  printers: json<string[]>(row.printers),
  createdAt: time(row.created_at),
  updatedAt: time(row.updated_at),
})

export interface PrinterRow {
  id: string
  project_id: string
  remote_id: string
  name: string | null
  connection: string
  profile: string
  width: PaperWidth
  agent_id: string
  agent_printer_id: string
  created_at: Big
}

export const printerOf = (row: PrinterRow): PrinterRecord => ({
  id: row.id,
  projectId: row.project_id,
  remoteId: row.remote_id,
  name: row.name,
  connection: row.connection,
  profile: row.profile,
  width: row.width,
  agentId: row.agent_id,
  agentPrinterId: row.agent_printer_id,
  createdAt: time(row.created_at),
})

/** A stored image without its data: its length and last two characters give its size in bytes (base64). */
export interface ImageRow {
  name: string
  media_type: ImageMediaType
  data_length: Big
  data_tail: string
  width: number
  height: number
  updated_at: Big
}

const base64Bytes = (length: number, tail: string) =>
  (length / 4) * 3 - (tail === '==' ? 2 : tail.endsWith('=') ? 1 : 0)

export const imageOf = (row: ImageRow): StoredImage => ({
  name: row.name,
  mediaType: row.media_type,
  width: row.width,
  height: row.height,
  bytes: base64Bytes(int(row.data_length), row.data_tail),
  updatedAt: time(row.updated_at),
})
