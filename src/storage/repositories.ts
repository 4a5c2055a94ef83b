// The repositories every store implements, as the services' units of work call them (unit.ts): SQLite's answer at
// once (store/), PostgreSQL's are awaited (pgstore/). What they store and answer are the records of domain/.
import type { AdminSession, AdminToken, AuditEntry, User } from '../domain/accounts.ts'
import type { AdminRole } from '../protocol/admin-api.ts'
import type {
  AgentPrinter,
  AgentRecord,
  ApiKey,
  DeliveryRecord,
  Destination,
  DestinationMode,
  NewAgent,
  PairedAgent,
  PrinterRecord,
  PrinterStateChange,
  Project,
  StoredImage,
  Webhook,
} from '../domain/records.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import type { PrinterState } from '../domain/printer-state.ts'
import type { ImageMediaType } from '../protocol/image.ts'
import type { ApiKeyScope } from '../protocol/api-key.ts'
import type { EventRepository, FanOutRepository, JobRepository, JobStateRepository } from './job-repositories.ts'
import { type Unit, type UnitStore, unitStore } from './unit.ts'

export type {
  Attempt,
  CancelAsked,
  CancelView,
  ExpiredJob,
  Fence,
  EventRepository,
  FanOutRepository,
  JobInsert,
  JobRepository,
  JobStateRepository,
  NewFanOut,
  OpenLoad,
  QueueHead,
} from './job-repositories.ts'

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

/** A new printer record; without `agentPrinterId` the printer is the agent's own (the built-in agent's). */
export type NewPrinter = Omit<PrinterRecord, 'id' | 'createdAt' | 'agentPrinterId'> & { agentPrinterId?: string }

/** What may change of a printer record. */
export type PrinterSettingsChange = Pick<PrinterRecord, 'name' | 'connection' | 'profile' | 'width'>

/** Printer records: each a project's, driven by one agent's printer; removed ones kept for their jobs. */
export interface PrinterRepository {
  /** A record (a removed one too), by its record ID. */
  get(id: string): Answer<PrinterRecord | undefined>
  /** A live printer of the project by its record ID or its project-local ID (the record ID first). */
  resolve(projectId: string, printerId: string): Answer<PrinterRecord | undefined>
  /** A project's live printers, oldest first. */
  list(projectId: string): Answer<PrinterRecord[]>
  /** Every live printer of every project, oldest first. */
  listAll(): Answer<PrinterRecord[]>
  /** The live records of an agent's printers, optionally of one agent printer, oldest first. */
  ofAgent(agentId: string, agentPrinterId?: string): Answer<PrinterRecord[]>
  /** Adds a record; undefined when the project already has a live printer with that remote ID. */
  add(printer: NewPrinter): Answer<PrinterRecord | undefined>
  /** Changes a live printer's settings; undefined when there is no such live printer. */
  update(id: string, change: PrinterSettingsChange): Answer<PrinterRecord | undefined>
  /** Removes a printer; its jobs keep their record. False when there is no such live printer. */
  remove(id: string): Answer<boolean>
}

/** Each agent printer's status history: a row when it changes. */
export interface PrinterStateRepository {
  /** Records `state` unless it is the printer's latest already; when recorded, the state it follows (none: first). */
  record(agentId: string, printerId: string, state: PrinterState): Answer<false | { from: PrinterState | undefined }>
  /** When the printer's state last changed (its latest record), if anything was ever recorded. */
  since(agentId: string, printerId: string): Answer<string | undefined>
  /** The newest changes first, at most `limit`. */
  history(agentId: string, printerId: string, limit: number): Answer<PrinterStateChange[]>
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
  /** Every project's destinations of a mode. */
  ofMode(mode: DestinationMode): Answer<Destination[]>
  /** The printers jobs wait at (PENDING) for the destination. */
  waitingAt(destinationId: string): Answer<string[]>
  /**
   * Moves the jobs still waiting (PENDING) at the destination on printer `from` to printer `to`, each with `note` for
   * its ticket and a line in its timeline; their IDs. A job dispatched, delivered or printing is never moved.
   */
  moveWaiting(destinationId: string, from: string, to: string, note: string): Answer<string[]>
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
  /** The image itself (base64), to place in a document. */
  data(projectId: string, name: string): Answer<{ mediaType: ImageMediaType; data: string } | undefined>
  count(projectId: string): Answer<number>
  /** False when the project had none of this name. */
  delete(projectId: string, name: string): Answer<boolean>
}

/** What a change of an account sets (what it leaves out stays). */
export interface UserChange {
  role?: AdminRole
  disabled?: boolean
  passwordHash?: string
  language?: string | null
}

/** The dashboard's accounts: a name unique whatever its case, a role, a password hash (the services hash it). */
export interface UserRepository {
  /** A new account; undefined when the name is taken (whatever its case). */
  create(name: string, role: AdminRole, passwordHash: string): Answer<User | undefined>
  get(id: string): Answer<User | undefined>
  /** The account of this name (whatever its case), with its password hash, to check a sign-in against. */
  withHash(name: string): Answer<{ user: User; passwordHash: string } | undefined>
  passwordHash(id: string): Answer<string | undefined>
  /** Every account, by name. */
  list(): Answer<User[]>
  count(): Answer<number>
  /** How many owners can sign in. */
  activeOwners(): Answer<number>
  update(id: string, change: UserChange): Answer<User | undefined>
}

/** Dashboard sessions, each one account's: the browser holds the token, the store only its hash. */
export interface AdminSessionRepository {
  create(userId: string, address: string, userAgent: string): Answer<{ session: AdminSession; token: string }>
  /**
   * The live session of this token, its use recorded; undefined when unknown, revoked, idle too long, expired, or its
   * account is disabled.
   */
  use(token: string): Answer<AdminSession | undefined>
  /** The account's sessions that may still be used, newest first. */
  listLive(userId: string): Answer<AdminSession[]>
  /** Ends one of the account's sessions; false when it has no such live one. */
  revoke(userId: string, id: string): Answer<boolean>
  /** Ends every session of the account but `keepId`; how many ended. */
  revokeAll(userId: string, keepId?: string): Answer<number>
}

/** Tokens that give scripts the admin API as one account; the secret is shown once and stored only as a hash. */
export interface AdminTokenRepository {
  create(userId: string, name: string): Answer<{ token: AdminToken; secret: string }>
  /** The active token with this secret, its use recorded; undefined when none, or its account is disabled. */
  use(secret: string): Answer<AdminToken | undefined>
  /** The account's tokens (every account's without one), oldest first. */
  list(userId?: string): Answer<AdminToken[]>
  /** Revokes one of the account's tokens (any account's, without one); false when there is no such active one. */
  revoke(id: string, userId?: string): Answer<boolean>
}

/** What the gateway needs to check an agent's authentication: its key and whether it still counts. */
export interface AgentCredential {
  publicKey: string
  revoked: boolean
  /** The name it paired with. */
  name: string
}

/** Agents paired with the hub, their public keys and their printers. Private keys never come here. */
export interface AgentRepository {
  insert(agent: NewAgent, pairedAt: number, options?: { builtin?: boolean }): Answer<PairedAgent>
  credential(agentId: string, keyId: string): Answer<AgentCredential | undefined>
  get(id: string): Answer<AgentRecord | undefined>
  /** Every agent, the first paired first. */
  list(): Answer<AgentRecord[]>
  /** The hub's own agent, once paired at the first start. */
  builtin(): Answer<AgentRecord | undefined>
  /** Revokes an agent's credential; false when there is no such agent or it is already revoked. */
  revoke(id: string): Answer<boolean>
  /** True when the agent's credential has been revoked (or the agent is unknown). */
  isRevoked(id: string): Answer<boolean>
  /** When the agent was last connected (a hint for people: it may be written later, or lost in a crash). */
  seen(id: string): Answer<void>
  /** Replaces what is known of an agent's printers with its latest inventory, writing what changed; whether any. */
  replacePrinters(agentId: string, printers: readonly PrinterDescriptor[]): Answer<boolean>
  /** Every agent's printers as last reported. */
  printers(): Answer<AgentPrinter[]>
  printer(agentId: string, printerId: string): Answer<AgentPrinter | undefined>
}

/** A pairing code as kept: until when it pairs, and when it was used (or retired, expired). */
export interface PairingCodeState {
  expiresAt: number
  consumedAt: number | null
}

/** One-time pairing codes, kept only as hashes of their normalised form. */
export interface PairingCodeRepository {
  /** A new code, valid `ttlMs`, formatted as people type it. */
  create(ttlMs: number): Answer<{ code: string; expiresAt: string }>
  /** The code of this normalised form; undefined when there is none. */
  find(normalized: string): Answer<PairingCodeState | undefined>
  /** Marks the code used at `at`. */
  consume(normalized: string, at: number): Answer<void>
}

/** A webhook to make: where it is sent, which events, what people call it, the secret its bodies are signed with. */
export interface NewWebhook {
  url: string
  events: readonly string[]
  description: string | null
  secret: string
}

/** Projects' webhooks and their outbox (the methods units call so far: what people change of them). */
/** A delivery waiting at the head of its webhook's queue, with what sending it needs. */
export interface DueDelivery {
  id: number
  webhookId: string
  url: string
  secret: string
  messageId: string
  body: string
  attempts: number
  nextAt: number
  failingSince: number | null
}

/** A delivery's failed attempt: the answer's status (none: no answer) and why, and when to try again. */
export interface DeliveryFailure {
  status: number | null
  error: string
  nextAt: number
  /** The webhook is disabled when it has failed since before this. */
  disableBefore: number
}

export interface WebhookRepository {
  create(projectId: string, webhook: NewWebhook): Answer<Webhook>
  /** A webhook of any project; undefined when deleted or unknown. */
  get(id: string): Answer<Webhook | undefined>
  /** Every project's webhooks, oldest first. */
  all(): Answer<Webhook[]>
  /** A project's webhooks, oldest first. */
  list(projectId: string): Answer<Webhook[]>
  /** Queues one delivery for this webhook alone (a test event), behind what it already waits for. */
  queueFor(webhookId: string, messageId: string, body: string): Answer<void>
  /** Enables a disabled webhook again: what waits for it is due at once. False when it was not disabled. */
  enable(id: string): Answer<boolean>
  /** Deletes the project's webhook (its waiting deliveries are dropped); false when it has none of that ID. */
  delete(projectId: string, id: string): Answer<boolean>
  /** The webhook's newest deliveries, newest first. */
  deliveries(webhookId: string, limit: number): Answer<DeliveryRecord[]>
  /** The oldest waiting delivery of each enabled webhook (the sender's outbox). */
  heads(): Answer<DueDelivery[]>
  /** A delivery went through: the webhook is no longer failing. */
  delivered(deliveryId: number, webhookId: string, status: number): Answer<void>
  /** An attempt failed: tried again at `nextAt`; the webhook is disabled once it has failed since `disableBefore`. */
  failed(deliveryId: number, webhookId: string, failure: DeliveryFailure): Answer<{ disabled: boolean }>
  /** Deletes at most `limit` deliveries made before `before` (retention); how many. */
  prune(before: number, limit: number): Answer<number>
}

/** What the hub forgets once it is old (services/housekeeping.ts), a few rows a step. */
export interface RetentionRepository {
  /** Deletes at most `limit` finished jobs created before `before` (their documents and timelines with them). */
  pruneJobs(before: number, limit: number): Answer<number>
  /** Projects whose finished jobs' documents hold more than `limitBytes`, the largest first. */
  projectsOverBudget(limitBytes: number): Answer<{ projectId: string; finishedBytes: number }[]>
  /** The bytes of the project's finished jobs' documents. */
  finishedBytes(projectId: string): Answer<number>
  /** Deletes the project's oldest finished jobs until they made up `bytes` (or `limit` jobs); how many. */
  pruneOldestOfProject(projectId: string, bytes: number, limit: number): Answer<number>
  /** Old printer states (each printer's latest kept), spent pairing codes, ended sessions: at most `limit` of each. */
  pruneRecords(before: number, limit: number): Answer<number>
  /** Forgets at most `limit` pruned jobs (by ID) created before `before`. */
  forgetPrunedJobs(before: number, limit: number): Answer<number>
}

/** What waits for a time to come (store/clock-deadlines.ts names it): moved by `byMs`, a jump of the clock. */
export interface ClockRepository {
  shiftDeadlines(byMs: number): Answer<number>
}

/** The repositories a unit of work may call, by the names both stores give them. */
export interface Repositories {
  settings: SettingsRepository
  printers: PrinterRepository
  printerStates: PrinterStateRepository
  destinations: DestinationRepository
  images: ImageRepository
  projects: ProjectRepository
  apiKeys: ApiKeyRepository
  audit: AuditRepository
  users: UserRepository
  adminSessions: AdminSessionRepository
  adminTokens: AdminTokenRepository
  agents: AgentRepository
  pairingCodes: PairingCodeRepository
  webhooks: WebhookRepository
  jobs: JobRepository
  fanOuts: FanOutRepository
  events: EventRepository
  jobStates: JobStateRepository
  retention: RetentionRepository
  clock: ClockRepository
}

/** The store as units of work see it. */
export type Db = UnitStore<Repositories>

/** The one Db every unit is given (it holds nothing). */
export const DB: Db = unitStore<Repositories>()

/** How a change runs, where the stores differ. */
export interface WriteOptions {
  /**
   * The unit takes first the row lock its correctness rests on (a job's change: its project's row, by `openLoad` or
   * its first state step), and holds it to its end. PostgreSQL then runs it READ COMMITTED: changes of one project
   * wait for each other on that lock, in turn, instead of being refused as serializable and run again. SQLite runs
   * every change alone anyway.
   */
  lockedRows?: boolean
  /**
   * A change a crash may take back, to be done again (retention's deletions): SQLite lets it ride along with the next
   * commit instead of flushing for it (an SD card's writes).
   */
  deferred?: boolean
}

/** Runs units on a store: a change in one transaction with all it writes (its audit entry too), a read alone. */
export interface UnitRunner {
  write<T>(work: (db: Db) => Unit<T>, options?: WriteOptions): Promise<T>
  read<T>(work: (db: Db) => Unit<T>): Promise<T>
  /** Settles once every change written so far is on disk (a store that commits each change at once: at once). */
  durable(): Promise<void>
}
