// What is asked of the jobs the hub keeps, and what is answered, as every part says it: the
// dashboard's filters, a project's pages, fan-out parents' pages, a job's timeline, and how an
// operator's cancellation went. Plain values, whichever store answers them.
import type { Job, JobState } from '../protocol/job.ts'

/** What the dashboard's job list filters by; every field narrows the list. */
export interface JobFilter {
  projectId?: string
  /** The printer record. */
  printerId?: string
  state?: JobState
  /** Created at or after, and before, in milliseconds since the epoch. */
  createdFrom?: number
  createdBefore?: number
  /** Jobs older than this one (the next page). */
  beforeId?: string
  /** Jobs with a metadata value (any key) that starts with this: an order number, a table, as typed. */
  metadataPrefix?: string
}

/** One state a job went through: the timeline of its attempts. */
export interface JobEvent {
  at: string
  state: JobState
  attempt: number
  errorCode: string | null
  errorMessage: string | null
}

export interface JobQuery {
  projectId: string
  /** The fan-out parents (jobs posted to a destination of mode "all") instead of the jobs that print. */
  fanOut?: boolean
  state?: JobState
  /** The printer's record ID; of parents, the destination's name (their printerId). */
  printerId?: string
  /** Created after this time (ms since the epoch), not at it. */
  createdAfter?: number
  /** Created before this time, not at it. */
  createdBefore?: number
  /** Metadata entries the job must all have, [key, value]. */
  metadata?: readonly (readonly [string, string])[]
  /** Only jobs older than this position (from the page before). */
  before?: number
}

export interface JobPage {
  jobs: Job[]
  /** Where the next older page starts; null when there is none. */
  next: number | null
}

/**
 * What a page of fan-out parents may be asked for: the job list's filters, and the dashboard's (any project, a child's
 * printer, a value's prefix).
 */
export interface ParentQuery {
  /** Every project's parents when left out (the dashboard's list). */
  projectId?: string
  /** The destination's name, as posted (the parents' printerId). */
  destination?: string
  /** Parents with a child at this printer (its record ID). */
  childPrinterId?: string
  /** The parent's state: its children's, as the domain summarises them. */
  state?: JobState
  createdAfter?: number
  createdBefore?: number
  metadata?: readonly (readonly [string, string])[]
  /** A metadata value (any key) that starts with this: an order number as it is typed. */
  metadataPrefix?: string
  before?: number
}

/** How an operator's cancellation went. */
export type CancelOutcome =
  | { kind: 'cancelled'; job: Job }
  | { kind: 'requested'; job: Job }
  | { kind: 'too_late'; job: Job }
  | { kind: 'finished'; job: Job }
  | { kind: 'unknown' }
