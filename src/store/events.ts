// Each project's event log, for applications that follow their jobs and printers: job.created,
// job.state_changed and printer.state_changed, each with a monotonic ID (never reused), written in
// the same transaction as the change it tells of, so none is lost or told of a change rolled back.
// Kept at least EVENT_RETENTION_DAYS (the housekeeping prunes older ones, and the oldest beyond
// MAX_EVENTS); each project remembers the newest ID pruned, so a reader resuming from before it
// learns that it missed some. Readers in the process hear of new events once they are committed.
import type { Database } from 'bun:sqlite'
import type { GroupCommit } from '../sqlite/group-commit.ts'
import type { EventType, ProjectEvent } from '../protocol/events.ts'
import type { Job, JobState } from '../protocol/job.ts'
import { iso } from '../storage/time.ts'
import type { Webhooks } from './webhooks.ts'
import { bound } from '../sqlite/bound.ts'
import { type EventBody, eventFrame, eventOf, type EventRowOf, jobEvent, webhookBody } from '../storage/event-bodies.ts'
import type { EventRepository } from '../storage/repositories.ts'

/** Events are kept at least this long. */
export const EVENT_RETENTION_DAYS = 7
/** Events the hub keeps at most (about 70 kB a 100 events): the oldest go first beyond it. */
export const MAX_EVENTS = 300_000

export type { EventBody }

type EventRow = EventRowOf & { id: number; occurred_at: number }

export class Events implements EventRepository {
  private readonly insert
  private readonly listeners = new Set<(projectId: string) => void>()
  /** The transaction in which each project's listeners were last set to be told of its events. */
  private readonly announcedIn = new Map<string, number>()

  constructor(
    private readonly db: Database,
    private readonly commits: GroupCommit,
    private readonly now: () => number,
    /** Where each event is queued for the project's webhooks that want it. */
    private readonly webhooks?: Webhooks,
  ) {
    // The new ID from the connection's last rowid, not RETURNING: that is 5 µs less an event (12 → 7).
    this.insert = db.query<never, [string, string, number, string]>(
      'INSERT INTO events (project_id, type, occurred_at, data) VALUES (?, ?, ?, ?)',
    )
  }

  /** Appends an event to the project's log, in the open transaction (or on its own). */
  append(projectId: string, type: EventType, body: EventBody): number {
    const at = this.now()
    const data = JSON.stringify(body)
    const id = Number(this.insert.run(projectId, type, at, data).lastInsertRowid)
    if (this.webhooks?.wanted(projectId)) {
      this.webhooks.queue(projectId, type, `evt_${id}`, webhookBody(id, type, iso(at), data))
    }
    this.announce(projectId)
    return id
  }

  /**
   * Tells the listeners of the project's new events once they are committed: once a commit for all
   * of that commit's events (a job's five events of a group commit wake a reader once, not five
   * times), never for a commit rolled back.
   */
  private announce(projectId: string): void {
    const transaction = this.commits.transaction
    if (transaction !== undefined) {
      // A transaction rolled back takes its announcement with it; the next one has a new number.
      if (this.announcedIn.get(projectId) === transaction) return
      this.announcedIn.set(projectId, transaction)
    }
    this.commits.afterCommit(() => {
      for (const listener of this.listeners) {
        try {
          listener(projectId)
        } catch {
          // A reader's failure is its own.
        }
      }
    })
  }

  /** A job was created (`from` is `new`) or changed state: its event, with the job as it is now. */
  jobChanged(from: JobState | 'new', job: Job): void {
    const event = jobEvent(from, job)
    if (event) this.append(job.projectId, event.type, event.body)
  }

  /** Hears of each project that has new committed events, until the returned function is called. */
  listen(listener: (projectId: string) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The project's events after `afterId`, oldest first, at most `limit`. */
  after(projectId: string, afterId: number, limit: number): ProjectEvent[] {
    return this.db
      .query<EventRow, [string, number, number]>(
        `SELECT id, type, occurred_at, data FROM events WHERE project_id = ${bound()} AND id > ? ORDER BY id LIMIT ?`,
      )
      .all(projectId, afterId, limit)
      .map(eventOf)
  }

  /**
   * The project's events after `afterId` as Server-Sent Event frames (`id:`, `event:`, `data:` the
   * event as JSON), oldest first, at most `limit`: written as stored, without parsing them again.
   */
  frames(projectId: string, afterId: number, limit: number): { id: number; frame: string }[] {
    return this.db
      .query<EventRow, [string, number, number]>(
        `SELECT id, type, occurred_at, data FROM events WHERE project_id = ${bound()} AND id > ? ORDER BY id LIMIT ?`,
      )
      .all(projectId, afterId, limit)
      .map(eventFrame)
  }

  /** The newest event ID the project's log ever had (0: none yet). */
  newest(projectId: string): number {
    return (
      this.db
        .query<{ id: number | null }, [string]>('SELECT max(id) AS id FROM events WHERE project_id = ?')
        .get(projectId)?.id ?? 0
    )
  }

  /** The newest ID pruned from the project's log: a reader resuming from before it missed events. */
  prunedThrough(projectId: string): number {
    return (
      this.db
        .query<{ n: number }, [string]>('SELECT events_pruned_through AS n FROM projects WHERE id = ?')
        .get(projectId)?.n ?? 0
    )
  }

  /**
   * Deletes at most `limit` of the oldest events: those older than `before`, and beyond `max`
   * events in all; each project remembers the newest ID it lost. Returns how many went. Only the
   * oldest `limit` are read: the log is in the order of time, so nothing newer needs looking at.
   */
  prune(before: number, max: number, limit: number): number {
    return this.commits.defer(() => {
      const span = this.db
        .query<{ lo: number | null; hi: number | null }, []>('SELECT min(id) AS lo, max(id) AS hi FROM events')
        .get()!
      if (span.lo === null || span.hi === null) return 0
      // IDs are appended in order and deleted from the oldest: the span counts the events.
      const over = Math.max(0, span.hi - span.lo + 1 - max)
      const oldest = this.db
        .query<{ id: number; project_id: string; occurred_at: number }, [number]>(
          'SELECT id, project_id, occurred_at FROM events ORDER BY id LIMIT ?',
        )
        .all(limit)
      const gone = oldest.filter((row, i) => i < over || row.occurred_at < before)
      if (gone.length === 0) return 0
      const newest = new Map<string, number>()
      for (const row of gone) newest.set(row.project_id, Math.max(newest.get(row.project_id) ?? 0, row.id))
      this.db.run('DELETE FROM events WHERE id IN (SELECT value FROM json_each(?))', [
        JSON.stringify(gone.map((row) => row.id)),
      ])
      for (const [projectId, id] of newest)
        this.db.run('UPDATE projects SET events_pruned_through = max(events_pruned_through, ?) WHERE id = ?', [
          id,
          projectId,
        ])
      return gone.length
    })
  }
}
