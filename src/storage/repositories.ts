// The repositories every store implements, as the services' units of work call them (unit.ts): SQLite's answer at
// once (store/), PostgreSQL's are awaited (pgstore/). What they store and answer are the records of domain/.
import type { AuditEntry } from '../domain/accounts.ts'
import type { ApiKey, Destination, DestinationMode, PrinterRecord, Project, StoredImage } from '../domain/records.ts'
import type { ImageMediaType } from '../protocol/image.ts'
import type { ApiKeyScope } from '../protocol/api-key.ts'
import { type Unit, type UnitStore, unitStore } from './unit.ts'

/** What one store call may answer: at once (SQLite) or later (PostgreSQL). */
type Answer<T> = T | Promise<T>

export interface ProjectRepository {
  create(name: string): Answer<Project>
  get(id: string): Answer<Project | undefined>
  list(): Answer<Project[]>
}

export interface ApiKeyRepository {
  /** Creates a key; its secret is answered here once and stored only as a hash. */
  create(
    projectId: string,
    scopes: readonly ApiKeyScope[],
    name: string | null,
  ): Answer<{ key: ApiKey; secret: string }>
  /** The active key with this secret, its use recorded; undefined for a malformed, unknown or revoked one. */
  use(secret: string): Answer<ApiKey | undefined>
  get(id: string): Answer<ApiKey | undefined>
  list(projectId: string): Answer<ApiKey[]>
  /** Revokes a key; false when there is no such key. Revoking twice keeps the first time. */
  revoke(id: string): Answer<boolean>
}

/** An entry of the audit log as an operation writes it. */
export interface NewAuditEntry {
  userId: string | null
  user: string | null
  action: string
  target?: string | null
  address?: string | null
}

export interface AuditRepository {
  /** Appends an entry, in the change's transaction. */
  record(entry: NewAuditEntry): Answer<void>
  /** Entries newest first, older than entry `before` when given, at most `limit`. */
  page(limit: number, before?: number): Answer<AuditEntry[]>
  /** Deletes at most `limit` of the entries older than `before` (retention); how many went. */
  prune(before: number, limit: number): Answer<number>
}

/** Small named values of the hub itself (its server ID, the settings changed while it runs). */
export interface SettingsRepository {
  get(key: string): Answer<string | undefined>
  /** Stores `value` unless the key has one already; answers the stored value either way. */
  getOrSet(key: string, value: string): Answer<string>
  set(key: string, value: string): Answer<void>
  delete(key: string): Answer<void>
}

/** Printer records (the methods units call so far). */
export interface PrinterRepository {
  get(id: string): Answer<PrinterRecord | undefined>
  /** A live printer of the project by its record ID or its project-local ID (the record ID first). */
  resolve(projectId: string, printerId: string): Answer<PrinterRecord | undefined>
}

/** A project's destinations (the methods units call so far). */
export interface DestinationRepository {
  create(projectId: string, name: string, mode: DestinationMode, printers: readonly string[]): Answer<Destination>
  update(
    projectId: string,
    name: string,
    mode: DestinationMode,
    printers: readonly string[],
  ): Answer<Destination | undefined>
  get(projectId: string, name: string): Answer<Destination | undefined>
  list(projectId: string): Answer<Destination[]>
  /** Deletes it; the jobs waiting at it stay where they wait. False when there was none. */
  delete(projectId: string, name: string): Answer<boolean>
}

/** A project's stored images (logos). */
export interface ImageRepository {
  /** Stores or replaces the image of this name; whether it is new. */
  put(
    projectId: string,
    name: string,
    image: { mediaType: ImageMediaType; data: string; width: number; height: number },
  ): Answer<{ created: boolean; image: StoredImage }>
  list(projectId: string): Answer<StoredImage[]>
  get(projectId: string, name: string): Answer<StoredImage | undefined>
  count(projectId: string): Answer<number>
  /** False when the project had none of this name. */
  delete(projectId: string, name: string): Answer<boolean>
}

/** The repositories a unit of work may call, by the names both stores give them. */
export interface Repositories {
  settings: SettingsRepository
  printers: PrinterRepository
  destinations: DestinationRepository
  images: ImageRepository
  projects: ProjectRepository
  apiKeys: ApiKeyRepository
  audit: AuditRepository
}

/** The store as units of work see it. */
export type Db = UnitStore<Repositories>

/** The one Db every unit is given (it holds nothing). */
export const DB: Db = unitStore<Repositories>()

/**
 * Runs units of work on a store: a change in one transaction with everything it writes (its audit entry too), a
 * read on its own. Both answer asynchronously whatever the store (SQLite runs the unit at once).
 */
export interface UnitRunner {
  write<T>(work: (db: Db) => Unit<T>): Promise<T>
  read<T>(work: (db: Db) => Unit<T>): Promise<T>
}
