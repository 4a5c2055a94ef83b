// A project's events as both stores write and serve them: the body kept as JSON text, the event and a webhook's body
// made from its stored parts without parsing them again, and which event a job's change leaves.
import type { EventType, ProjectEvent } from '../protocol/events.ts'
import type { Job, JobState } from '../protocol/job.ts'
import { iso } from './time.ts'

/** What an event says beyond its ID, type and time (the job or printer projection and the change). */
export type EventBody = Omit<ProjectEvent, 'id' | 'type' | 'occurredAt'>

/** An event as JSON, from its stored parts without parsing them: what JSON.stringify of the event gives. */
export const eventJson = (id: number, type: string, occurredAt: string, data: string): string =>
  `{"id":${id},"type":"${type}","occurredAt":"${occurredAt}",${data.slice(1)}`

/** A webhook's body (Standard Webhooks): the type, the time, and the event as the stream says it. */
export const webhookBody = (id: number, type: string, occurredAt: string, data: string): string =>
  `{"type":"${type}","timestamp":"${occurredAt}","data":${eventJson(id, type, occurredAt, data)}}`

/** The event a job's change leaves (`from` is `new` for a job just made); none when its state stayed. */
export function jobEvent(from: JobState | 'new', job: Job): { type: EventType; body: EventBody } | undefined {
  if (from === 'new') return { type: 'job.created', body: { job } as EventBody }
  if (from === job.state) return undefined
  return {
    type: 'job.state_changed',
    body: {
      state: job.state,
      previousState: from,
      attemptCount: job.attemptCount,
      lastErrorCode: job.lastErrorCode,
      job,
    } as EventBody,
  }
}

/** An event's row as both stores answer it. */
export interface EventRowOf {
  id: number | string
  type: EventType
  occurred_at: number | string
  data: string
}

/** An event as applications read it, from its row. */
export const eventOf = (row: EventRowOf): ProjectEvent =>
  ({
    id: Number(row.id),
    type: row.type,
    occurredAt: iso(Number(row.occurred_at)),
    ...(JSON.parse(row.data) as EventBody),
  }) as ProjectEvent

/** An event as a Server-Sent Event frame, from its row without parsing it. */
export function eventFrame(row: EventRowOf): { id: number; frame: string } {
  const id = Number(row.id)
  const json = eventJson(id, row.type, iso(Number(row.occurred_at)), row.data)
  return { id, frame: `id: ${id}\nevent: ${row.type}\ndata: ${json}\n\n` }
}
