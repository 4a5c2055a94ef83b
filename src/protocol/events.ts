// A project's events, as applications follow them (`GET /v1/projects/:projectId/events`, and
// webhooks): what happened to a job or a printer, with its projection at that moment.
import type { Job, JobState } from './job.ts'
import type { ProjectPrinter, ProjectPrinterState } from './project-printer.ts'

export const EVENT_TYPES = ['job.created', 'job.state_changed', 'printer.state_changed'] as const
export type EventType = (typeof EVENT_TYPES)[number]

interface EventBase {
  /** Monotonic across the hub, never reused: the position to resume from. */
  id: number
  occurredAt: string
}

export interface JobCreatedEvent extends EventBase {
  type: 'job.created'
  job: Job
}

export interface JobStateChangedEvent extends EventBase {
  type: 'job.state_changed'
  state: JobState
  previousState: JobState
  attemptCount: number
  lastErrorCode: string | null
  job: Job
}

export interface PrinterStateChangedEvent extends EventBase {
  type: 'printer.state_changed'
  state: ProjectPrinterState
  /** Null when nothing was known of the printer before. */
  previousState: ProjectPrinterState | null
  printer: ProjectPrinter
}

export type ProjectEvent = JobCreatedEvent | JobStateChangedEvent | PrinterStateChangedEvent

/** What a stream says first when the position it was asked to resume from has been pruned: list again. */
export const RESET_EVENT = 'reset'
