// The repositories of jobs every store implements, as the services' units of work call them (repositories.ts has the
// others): jobs, fan-outs and each project's events.
import type { JobEvent, JobFilter, JobPage, JobQuery, ParentQuery } from '../domain/job-queries.ts'
import type { PrintDocument } from '../protocol/document.ts'
import type { EventType, ProjectEvent } from '../protocol/events.ts'
import type { EventBody } from './event-bodies.ts'
import type { Failure, FailureCode } from '../protocol/failures.ts'
import type { Job, JobState } from '../protocol/job.ts'
import type { CancelRequest } from '../domain/job-transitions.ts'

/** What one store call may answer: at once (SQLite) or later (PostgreSQL). */
type Answer<T> = T | Promise<T>

/** A new PENDING job as stored: its printer resolved, its document with its text as stored. */
export interface JobInsert {
  projectId: string
  /** The printer's record ID. */
  printerId: string
  idempotencyKey: string
  document: PrintDocument
  /** The document as JSON text, as stored (its bytes count against the project's limit). */
  serialised: string
  /** Its length in bytes (UTF-8). */
  bytes: number
  metadata: Record<string, string> | null
  expiresInMs: number
  maxAttempts: number
  reprintOf: string | null
  destinationId: string | null
  fanOutId: string | null
}

/** A project's unfinished jobs and their documents' bytes, and how many of each it may have. */
export interface OpenLoad {
  jobs: number
  bytes: number
  jobLimit: number
  bytesLimit: number
}

/**
 * Jobs: each written with its first timeline entry and its project's event, in the change's transaction (the methods
 * units call so far).
 */
export interface JobRepository {
  /** The job (or fan-out) a project made with `idempotencyKey`, as it is now. */
  byIdempotencyKey(projectId: string, idempotencyKey: string): Answer<Job | undefined>
  openLoad(projectId: string): Answer<OpenLoad>
  /** A new PENDING job (no checks: the unit that calls it made them). */
  insert(job: JobInsert): Answer<Job>
  get(id: string): Answer<Job | undefined>
  document(id: string): Answer<PrintDocument | undefined>
  /** A note in the job's timeline at its state now (attempt 0), with a failure family's code: no state changes. */
  note(id: string, code: FailureCode, message: string): Answer<void>
  /** A project's newest jobs, newest first, optionally of one state (the specification's list). */
  newest(projectId: string, state?: JobState): Answer<Job[]>
  /** A page of a project's jobs, or of its fan-out parents (`fanOut`), newest first. */
  page(query: JobQuery, limit: number): Answer<JobPage>
  /** The dashboard's search: jobs of any project matching `filter`, newest first, at most `limit`. */
  find(filter: JobFilter, limit: number): Answer<Job[]>
  /** Every state the job went through, oldest first. */
  timeline(id: string): Answer<JobEvent[]>
  /** The job a reprint was made from; null for a job that is not a reprint (undefined: no such job). */
  reprintOf(id: string): Answer<string | null | undefined>
  /** The reprints made of a job, oldest first. */
  reprintsOf(id: string): Answer<string[]>
  /** Whether retention deleted the project's job of this ID (remembered for a while). */
  wasPruned(projectId: string, id: string): Answer<boolean>
  /** The newest job of a printer that printed, for its last receipt. */
  lastCompleted(printerId: string): Answer<Job | undefined>
  /** How many jobs created since `since` (ms since the epoch) are in each state. */
  countByState(since: number): Answer<Partial<Record<JobState, number>>>
  /** Jobs of each printer not yet with its agent (its queue), by printer record ID. */
  queueLengths(): Answer<Map<string, number>>
  /** Jobs each printer's agent holds (DELIVERED or PRINTING), by printer record ID. */
  withAgentCounts(): Answer<Map<string, number>>
}

/** A fan-out's parent as stored: what the application sent that is not its document. */
export interface NewFanOut {
  id: string
  projectId: string
  /** The destination's name, as posted. */
  destination: string
  idempotencyKey: string
  metadata: Record<string, string> | null
  expiresInMs: number
  maxAttempts: number
}

/** Fan-outs: a parent read as a job whose state its children make, and one child job per printer. */
export interface FanOutRepository {
  /** A new fan-out with its children (no checks: the unit that calls it made them). */
  insert(fanOut: NewFanOut, children: readonly JobInsert[]): Answer<{ job: Job; children: Job[] }>
  get(id: string): Answer<Job | undefined>
  /** Its children, in the destination's order of printers. */
  children(id: string): Answer<Job[]>
  /** A page of the parents matching `query`, newest first, as jobs. */
  page(query: ParentQuery, limit: number): Answer<JobPage>
  /** A parent's position in the newest-first order (for the page after it); undefined when `id` is none. */
  position(id: string): Answer<number | undefined>
  /** The fan-out a job is a child of; null when it is none's. */
  parentOf(jobId: string): Answer<string | null>
}

/** Each project's event log (the methods units call so far). */
export interface EventRepository {
  /** Appends an event to the project's log, in the change's transaction; its ID. */
  append(projectId: string, type: EventType, body: EventBody): Answer<number>
  /** The project's events after `afterId`, oldest first, at most `limit`. */
  after(projectId: string, afterId: number, limit: number): Answer<ProjectEvent[]>
  /**
   * The project's events after `afterId` as Server-Sent Event frames (`id:`, `event:`, `data:` the event as JSON),
   * oldest first, at most `limit`: written as stored, without parsing them again.
   */
  frames(projectId: string, afterId: number, limit: number): Answer<{ id: number; frame: string }[]>
  /** The newest event ID the project's log ever had (0: none yet). */
  newest(projectId: string): Answer<number>
  /** The newest ID pruned from the project's log: a reader resuming from before it missed events. */
  prunedThrough(projectId: string): Answer<number>
  /**
   * Deletes at most `limit` of the oldest events: those older than `before`, and beyond `max` events in all; each
   * project remembers the newest ID it lost. How many went.
   */
  prune(before: number, max: number, limit: number): Answer<number>
}

/** A job as a cancellation reads it: the job, and whether its agent was asked to stop it already. */
export interface CancelView {
  job: Job
  cancelRequested: boolean
}

/** A job waiting at the head of its printer's queue, with what dispatching it needs. */
export interface QueueHead {
  id: string
  state: 'PENDING' | 'DISPATCHING'
  notBefore: number | null
  expiresAt: number
}

/** An attempt out to a printer's agent: the job as it was sent, and what sending it again the same way needs. */
export interface Attempt {
  job: Job
  attempt: number
  dispatchedAt: number
  /** What its ticket says of its move to another printer of its destination (null: it did not move). */
  movedNote: string | null
}

/**
 * A lease a node holds (a printer it drives, an agent connected to it) and its fencing number: a cluster's delivery
 * writes are conditioned on the lease still having that number (pgstore/leases.ts). One SQLite hub holds no leases.
 */
export interface Fence {
  resource: string
  fence: number
}

/** A dispatched job whose cancellation was asked for and not yet settled, with its attempt. */
export interface CancelAsked {
  id: string
  printerId: string
  attempt: number
  requestedAt: number
}

/** A job whose time ran out, as it was (its agent, when it had it, is asked to drop it). */
export interface ExpiredJob {
  id: string
  printerId: string
  state: 'PENDING' | 'DISPATCHING'
  attempt: number
}

/**
 * The job state machine's steps, each a statement guarded by the table's states (domain/job-transitions.ts), so
 * duplicate, late and replayed reports change nothing; and what delivery reads of jobs' states.
 */
export interface JobStateRepository {
  forCancel(id: string): Answer<CancelView | undefined>
  /** CANCELLED at once, from `from`, the state it was read in; undefined when the step no longer applies. */
  cancelNow(id: string, from: JobState): Answer<Job | undefined>
  /** Its agent is to be asked to stop it, when `request` applies to its state; the job, marked. */
  requestCancel(id: string, request: CancelRequest): Answer<Job | undefined>
  /** The oldest job of a printer not yet with its agent: the only one that may be dispatched. */
  queueHead(printerId: string): Answer<QueueHead | undefined>
  /**
   * Claims the head of a printer's queue when it is PENDING and due: a new attempt starts (DISPATCHING). Undefined
   * when the head is none, out already, waiting for its retry, or expired.
   */
  claim(printerId: string): Answer<Attempt | undefined>
  /** The latest attempt of a job still out to its agent, to send again exactly as before. */
  currentAttempt(id: string): Answer<Attempt | undefined>
  /** How many jobs a printer's agent holds, counted up to `atMost`. */
  heldCount(printerId: string, atMost: number): Answer<number>
  /** The oldest jobs (at most `limit`) a printer's agent holds and has not reported finished. */
  withAgent(printerId: string, limit: number): Answer<string[]>
  /** The agent stored the attempt: DELIVERED. */
  markReceived(id: string, attempt: number, receivedAt: number): Answer<Job | undefined>
  /** The printer backend took every byte: PRINTING while a confirmation is expected, else COMPLETED. */
  markSubmitted(
    id: string,
    attempt: number,
    submittedAt: number,
    confirmationExpected: boolean,
  ): Answer<Job | undefined>
  /** The printer printed the job (the report says when it took the bytes, else that moment is the completion's). */
  markCompleted(id: string, attempt: number, completedAt: number, submittedAt?: number): Answer<Job | undefined>
  /** The current attempt failed: back to PENDING after `backoffMs`, or FAILED, EXPIRED or CANCELLED. */
  failAttempt(id: string, attempt: number, failure: Failure, backoffMs: number): Answer<Job | undefined>
  /** The agent stopped a job whose cancellation was asked for. */
  markCancelled(id: string): Answer<Job | undefined>
  /** Settles a cancellation asked for before `requestedBefore` that the agent never answered. */
  cancelUnanswered(id: string, requestedBefore: number): Answer<Job | undefined>
  /** Dispatched jobs whose cancellation was asked for and not yet settled, oldest request first. */
  cancelRequests(): Answer<CancelAsked[]>
  /** PENDING or DISPATCHING jobs whose time ran out become EXPIRED, at most `limit`; as they were. */
  expire(limit: number): Answer<ExpiredJob[]>
  /** The printers that have jobs not yet with their agent. */
  printersWithQueuedJobs(): Answer<string[]>
}
