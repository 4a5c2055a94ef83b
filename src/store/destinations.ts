// A project's destinations: names applications post jobs to instead of a printer (`kitchen`),
// each with its printers in order and a mode; and the jobs waiting at one, moved from a printer
// that cannot print to another of the same destination (services/failover.ts decides when).
import type { Database } from 'bun:sqlite'
import { newId } from '../storage/ids.ts'
import { destinationOf, type DestinationRow } from '../storage/rows.ts'
import { bound } from '../sqlite/bound.ts'
import type { Destination, DestinationMode } from '../domain/records.ts'
import type { DestinationRepository } from '../storage/repositories.ts'

export type { Destination, DestinationMode }

export class Destinations implements DestinationRepository {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  create(projectId: string, name: string, mode: DestinationMode, printers: readonly string[]): Destination {
    const now = this.now()
    return destinationOf(
      this.db
        .query<DestinationRow, [string, string, string, string, string, number, number]>(
          `INSERT INTO destinations (id, project_id, name, mode, printers,
            created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(newId('dst'), projectId, name, mode, JSON.stringify(printers), now, now)!,
    )
  }

  update(projectId: string, name: string, mode: DestinationMode, printers: readonly string[]): Destination | undefined {
    const row = this.db
      .query<DestinationRow, [string, string, number, string, string]>(
        'UPDATE destinations SET mode = ?, printers = ?, updated_at = ? WHERE project_id = ? AND name = ? RETURNING *',
      )
      .get(mode, JSON.stringify(printers), this.now(), projectId, name)
    return row ? destinationOf(row) : undefined
  }

  get(projectId: string, name: string): Destination | undefined {
    const row = this.db
      .query<DestinationRow, [string, string]>('SELECT * FROM destinations WHERE project_id = ? AND name = ?')
      .get(projectId, name)
    return row ? destinationOf(row) : undefined
  }

  list(projectId: string): Destination[] {
    return this.db
      .query<DestinationRow, [string]>(`SELECT * FROM destinations WHERE project_id = ${bound()} ORDER BY name`)
      .all(projectId)
      .map(destinationOf)
  }

  /** Every project's destinations of a mode (the failover watch). */
  ofMode(mode: DestinationMode): Destination[] {
    return this.db
      .query<DestinationRow, [string]>(`SELECT * FROM destinations WHERE mode = ${bound()} ORDER BY project_id, name`)
      .all(mode)
      .map(destinationOf)
  }

  /** Deletes it; the jobs waiting at it stay where they wait (their printer is theirs). */
  delete(projectId: string, name: string): boolean {
    return this.db.run('DELETE FROM destinations WHERE project_id = ? AND name = ?', [projectId, name]).changes === 1
  }

  /** The printers jobs wait at (PENDING) for the destination. */
  waitingAt(destinationId: string): string[] {
    return this.db
      .query<{ printer_id: string }, [string]>(
        `SELECT DISTINCT printer_id FROM jobs INDEXED BY
          jobs_waiting_at_destinations WHERE destination_id = ? AND state
          = 'PENDING'`,
      )
      .all(destinationId)
      .map((row) => row.printer_id)
  }

  /**
   * Moves the jobs still waiting (PENDING) at the destination on printer `from` to printer `to`,
   * each with `note` for its ticket and a line in its timeline; their IDs. A job dispatched,
   * delivered or printing is never moved: it may print where it is.
   */
  moveWaiting(destinationId: string, from: string, to: string, note: string): string[] {
    const moved = this.db
      .query<{ id: string }, [string, string, number, string, string]>(
        `UPDATE jobs INDEXED BY jobs_waiting_at_destinations
         SET printer_id = ?1, moved_note = ?2, not_before = NULL, updated_at = ?3
         WHERE destination_id = ?4 AND printer_id = ?5 AND state = 'PENDING' RETURNING id`,
      )
      .all(to, note, this.now(), destinationId, from)
      .map((row) => row.id)
    for (const id of moved) {
      this.db.run(
        `INSERT INTO job_events (job_seq, at, state, attempt, error_code,
          error_message) SELECT seq, ?, state, 0, 'job.moved', ? FROM jobs
          WHERE id = ?`,
        [this.now(), note, id],
      )
    }
    return moved
  }
}
