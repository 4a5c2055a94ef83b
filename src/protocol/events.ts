// A project's events, as applications follow them (`GET /v1/projects/:projectId/events`, and
// webhooks): what happened to a job or a printer, with its projection at that moment.
import { type Job, JOB_STATES, jobRule, type JobState } from './job.ts'
import { MAX_MESSAGE_LENGTH } from './limits.ts'
import {
  PROJECT_PRINTER_STATES,
  type ProjectPrinter,
  projectPrinterRule,
  type ProjectPrinterState,
} from './project-printer.ts'
import { integer, nullable, object, oneOf, type Rule, string, union } from './rules.ts'
import { timestamp } from './values.ts'

export const EVENT_TYPES = ['job.created', 'job.state_changed', 'job.moved', 'printer.state_changed'] as const
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

/** A waiting job moved to another printer of its destination (failover): its printerId changed, its state did not. */
export interface JobMovedEvent extends EventBase {
  type: 'job.moved'
  previousPrinterId: string
  /** What its ticket says of it: "Printed at bar: kitchen is out of paper". */
  note: string
  job: Job
}

export type ProjectEvent = JobCreatedEvent | JobStateChangedEvent | JobMovedEvent | PrinterStateChangedEvent

/** What a stream says first when the position it was asked to resume from has been pruned: list again. */
export const RESET_EVENT = 'reset'

const eventId = integer({ min: 1, max: Number.MAX_SAFE_INTEGER })
const jobState = oneOf(JOB_STATES)
const printerState = oneOf(PROJECT_PRINTER_STATES)

/** The events as rules: what the stream's `data:` and a webhook's body carry, checked by clients and tests. */
export const projectEventRule: Rule<ProjectEvent> = union('type', {
  'job.created': object({ id: eventId, type: oneOf(['job.created']), occurredAt: timestamp, job: jobRule }),
  'job.state_changed': object({
    id: eventId,
    type: oneOf(['job.state_changed']),
    occurredAt: timestamp,
    state: jobState,
    previousState: jobState,
    attemptCount: integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    lastErrorCode: nullable(string({ max: MAX_MESSAGE_LENGTH })),
    job: jobRule,
  }),
  'job.moved': object({
    id: eventId,
    type: oneOf(['job.moved']),
    occurredAt: timestamp,
    previousPrinterId: string({ min: 1, max: 256 }),
    note: string({ max: MAX_MESSAGE_LENGTH }),
    job: jobRule,
  }),
  'printer.state_changed': object({
    id: eventId,
    type: oneOf(['printer.state_changed']),
    occurredAt: timestamp,
    state: printerState,
    previousState: nullable(printerState),
    printer: projectPrinterRule,
  }),
}) as Rule<ProjectEvent>
