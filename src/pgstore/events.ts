// A project's events on PostgreSQL, written in the change's own transaction as the SQLite store's (store/events.ts),
// each queued for the project's webhooks that want its type. A project's events are written one transaction at a
// time (its row locked first), so their IDs grow in the order they commit: a reader that has seen an ID never
// misses a smaller one committed later.
import type { SQL } from 'bun'
import type { EventType } from '../protocol/events.ts'
import type { Job, JobState } from '../protocol/job.ts'
import { type EventBody, eventFrame, eventOf, type EventRowOf, jobEvent, webhookBody } from '../storage/event-bodies.ts'
import type { EventRepository } from '../storage/repositories.ts'
import type { ProjectEvent } from '../protocol/events.ts'
import { iso } from '../storage/time.ts'
import { type Big, int } from '../storage/rows.ts'
import { eventsHint, HINTS_CHANNEL } from './hints.ts'

export class PgEvents implements EventRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  /** Appends an event to the project's log, in the open transaction; its ID. */
  async append(projectId: string, type: EventType, body: EventBody): Promise<number> {
    const at = this.now()
    const data = JSON.stringify(body)
    // NO KEY UPDATE, as the triggers' own updates of the project take: FOR UPDATE would wait for the key share
    // every new job of the project takes on it (its foreign key), and two new jobs would each wait for the other.
    await this.sql`SELECT 1 FROM projects WHERE id = ${projectId} FOR NO KEY UPDATE`
    const [row] = await this.sql<{ id: string }[]>`INSERT INTO events (project_id, type, occurred_at, data)
      VALUES (${projectId}, ${type}, ${at}, ${data}) RETURNING id`
    const id = Number(row!.id)
    await this.sql`INSERT INTO webhook_deliveries (webhook_id, message_id, body, next_at, created_at)
      SELECT id, ${`evt_${id}`}, ${webhookBody(id, type, iso(at), data)}, ${at}, ${at} FROM webhooks
      WHERE project_id = ${projectId} AND deleted_at IS NULL AND disabled_at IS NULL AND events ? ${type}`
    // Delivered when the transaction commits (once, however many of the project's events it wrote).
    await this.sql.notify(HINTS_CHANNEL, eventsHint(projectId))
    return id
  }

  /** A job was created (`from` is `new`) or changed state: its event, with the job as it is now. */
  async jobChanged(from: JobState | 'new', job: Job): Promise<void> {
    const event = jobEvent(from, job)
    if (event) await this.append(job.projectId, event.type, event.body)
  }

  private rows(projectId: string, afterId: number, limit: number): Promise<EventRowOf[]> {
    return this.sql<EventRowOf[]>`SELECT id, type, occurred_at, data FROM events
      WHERE project_id = ${projectId} AND id > ${afterId} ORDER BY id LIMIT ${limit}`
  }

  async after(projectId: string, afterId: number, limit: number): Promise<ProjectEvent[]> {
    return (await this.rows(projectId, afterId, limit)).map(eventOf)
  }

  async frames(projectId: string, afterId: number, limit: number): Promise<{ id: number; frame: string }[]> {
    return (await this.rows(projectId, afterId, limit)).map(eventFrame)
  }

  /**
   * Deletes at most `limit` of the oldest events: older than `before`, or beyond `max` in all (counted by the span of
   * their IDs, which the gaps a rolled-back transaction leaves only make larger: events go sooner, never later).
   */
  async prune(before: number, max: number, limit: number): Promise<number> {
    const [span] = await this.sql<{ lo: Big | null; hi: Big | null }[]>`SELECT min(id) AS lo, max(id) AS hi
      FROM events`
    if (!span || span.lo === null || span.hi === null) return 0
    const over = Math.max(0, int(span.hi) - int(span.lo) + 1 - max)
    const oldest = await this.sql<{ id: Big; project_id: string; occurred_at: Big }[]>`SELECT id, project_id,
        occurred_at FROM events ORDER BY id LIMIT ${limit}`
    const gone = oldest.filter((row, i) => i < over || int(row.occurred_at) < before)
    if (gone.length === 0) return 0
    const newest = new Map<string, number>()
    for (const row of gone) newest.set(row.project_id, Math.max(newest.get(row.project_id) ?? 0, int(row.id)))
    await this.sql`DELETE FROM events WHERE id IN ${this.sql(gone.map((row) => int(row.id)))}`
    for (const [projectId, id] of newest)
      await this.sql`UPDATE projects SET events_pruned_through = greatest(events_pruned_through, ${id})
        WHERE id = ${projectId}`
    return gone.length
  }

  async newest(projectId: string): Promise<number> {
    const [row] = await this.sql<
      { id: string | null }[]
    >`SELECT max(id) AS id FROM events WHERE project_id = ${projectId}`
    return Number(row?.id ?? 0)
  }

  async prunedThrough(projectId: string): Promise<number> {
    const [row] = await this.sql<
      { n: string }[]
    >`SELECT events_pruned_through AS n FROM projects WHERE id = ${projectId}`
    return Number(row?.n ?? 0)
  }

  /** The projects with events after `afterId` (any project's), and the newest event ID among them. */
  async since(afterId: number): Promise<{ projects: string[]; newest: number }> {
    const rows = await this.sql<{ project_id: string; id: string }[]>`SELECT project_id, max(id) AS id FROM events
      WHERE id > ${afterId} GROUP BY project_id`
    return {
      projects: rows.map((row) => row.project_id),
      newest: rows.reduce((most, row) => Math.max(most, Number(row.id)), afterId),
    }
  }
}
