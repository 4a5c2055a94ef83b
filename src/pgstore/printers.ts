// Printer records on PostgreSQL: the same records as the SQLite store's (store/printers.ts); the methods units call.
import type { SQL } from 'bun'
import type { PrinterRecord } from '../domain/records.ts'
import type { PrinterRepository } from '../storage/repositories.ts'
import { printerOf, type PrinterRow } from '../storage/rows.ts'

const COLUMNS = 'id, project_id, remote_id, name, connection, profile, width, agent_id, agent_printer_id, created_at'

export class PgPrinters implements PrinterRepository {
  constructor(private readonly sql: SQL) {}

  async get(id: string): Promise<PrinterRecord | undefined> {
    const [row] = await this.sql<PrinterRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM printers WHERE id = ${id}`
    return row ? printerOf(row) : undefined
  }

  async resolve(projectId: string, printerId: string): Promise<PrinterRecord | undefined> {
    // The record ID first, then the project-local ID, as the SQLite store looks them up.
    const [row] = await this.sql<PrinterRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM printers
      WHERE project_id = ${projectId} AND removed_at IS NULL AND (id = ${printerId} OR remote_id = ${printerId})
      ORDER BY id = ${printerId} DESC LIMIT 1`
    return row ? printerOf(row) : undefined
  }
}
