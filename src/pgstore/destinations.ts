// A project's destinations on PostgreSQL: the same records as the SQLite store's (store/destinations.ts).
import type { SQL } from 'bun'
import type { Destination, DestinationMode } from '../domain/records.ts'
import { newId } from '../storage/ids.ts'
import type { DestinationRepository } from '../storage/repositories.ts'
import { destinationOf, type DestinationRow } from '../storage/rows.ts'

const COLUMNS = 'id, project_id, name, mode, printers, created_at, updated_at'

export class PgDestinations implements DestinationRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  async create(projectId: string, name: string, mode: DestinationMode, printers: readonly string[]) {
    const now = this.now()
    const [row] = await this.sql<DestinationRow[]>`INSERT INTO destinations
        (id, project_id, name, mode, printers, created_at, updated_at)
      VALUES (${newId('dst')}, ${projectId}, ${name}, ${mode}, ${JSON.stringify(printers)}::text::jsonb, ${now}, ${now})
      RETURNING ${this.sql.unsafe(COLUMNS)}`
    return destinationOf(row!)
  }

  async update(projectId: string, name: string, mode: DestinationMode, printers: readonly string[]) {
    const [row] = await this.sql<DestinationRow[]>`UPDATE destinations
      SET mode = ${mode}, printers = ${JSON.stringify(printers)}::text::jsonb, updated_at = ${this.now()}
      WHERE project_id = ${projectId} AND name = ${name} RETURNING ${this.sql.unsafe(COLUMNS)}`
    return row ? destinationOf(row) : undefined
  }

  async get(projectId: string, name: string): Promise<Destination | undefined> {
    const [row] = await this.sql<DestinationRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM destinations
      WHERE project_id = ${projectId} AND name = ${name}`
    return row ? destinationOf(row) : undefined
  }

  async list(projectId: string): Promise<Destination[]> {
    const rows = await this.sql<DestinationRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM destinations
      WHERE project_id = ${projectId} ORDER BY name`
    return rows.map(destinationOf)
  }

  async ofMode(mode: DestinationMode): Promise<Destination[]> {
    const rows = await this.sql<DestinationRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM destinations
      WHERE mode = ${mode} ORDER BY project_id, name`
    return rows.map(destinationOf)
  }

  async waitingAt(destinationId: string): Promise<string[]> {
    const rows = await this.sql<{ printer_id: string }[]>`SELECT DISTINCT printer_id FROM jobs
      WHERE destination_id = ${destinationId} AND state = 'PENDING'`
    return rows.map((row) => row.printer_id)
  }

  /**
   * One statement: a job a node claims meanwhile (its row locked, or no longer PENDING once the claim committed) is
   * not moved; one moved is claimed at its new printer.
   */
  async moveWaiting(destinationId: string, from: string, to: string, note: string): Promise<string[]> {
    const now = this.now()
    const rows = await this.sql<{ id: string }[]>`WITH moved AS (
        UPDATE jobs SET printer_id = ${to}, moved_note = ${note}, not_before = NULL, updated_at = ${now}
        WHERE destination_id = ${destinationId} AND printer_id = ${from} AND state = 'PENDING' RETURNING seq, id, state
      ), timeline AS (
        INSERT INTO job_events (job_seq, at, state, attempt, error_code, error_message)
        SELECT seq, ${now}, state, 0, 'job.moved', ${note} FROM moved
      )
      SELECT id FROM moved ORDER BY seq`
    return rows.map((row) => row.id)
  }

  async delete(projectId: string, name: string): Promise<boolean> {
    const rows = await this
      .sql`DELETE FROM destinations WHERE project_id = ${projectId} AND name = ${name} RETURNING id`
    return rows.length === 1
  }
}
