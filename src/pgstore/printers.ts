// Printer records on PostgreSQL: the same records as the SQLite store's (store/printers.ts); the methods units call.
import type { SQL } from 'bun'
import type { PrinterRecord } from '../domain/records.ts'
import type { PaperWidth } from '../protocol/document.ts'
import type { PrinterRepository } from '../storage/repositories.ts'
import { time } from './rows.ts'

interface PrinterRow {
  id: string
  project_id: string
  remote_id: string
  name: string | null
  connection: string
  profile: string
  width: PaperWidth
  agent_id: string
  agent_printer_id: string
  created_at: string
}

const COLUMNS = 'id, project_id, remote_id, name, connection, profile, width, agent_id, agent_printer_id, created_at'

const toPrinter = (row: PrinterRow): PrinterRecord => ({
  id: row.id,
  projectId: row.project_id,
  remoteId: row.remote_id,
  name: row.name,
  connection: row.connection,
  profile: row.profile,
  width: row.width,
  agentId: row.agent_id,
  agentPrinterId: row.agent_printer_id,
  createdAt: time(row.created_at),
})

export class PgPrinters implements PrinterRepository {
  constructor(private readonly sql: SQL) {}

  async get(id: string): Promise<PrinterRecord | undefined> {
    const [row] = await this.sql<PrinterRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM printers WHERE id = ${id}`
    return row ? toPrinter(row) : undefined
  }

  async resolve(projectId: string, printerId: string): Promise<PrinterRecord | undefined> {
    // The record ID first, then the project-local ID, as the SQLite store looks them up.
    const [row] = await this.sql<PrinterRow[]>`SELECT ${this.sql.unsafe(COLUMNS)} FROM printers
      WHERE project_id = ${projectId} AND removed_at IS NULL AND (id = ${printerId} OR remote_id = ${printerId})
      ORDER BY id = ${printerId} DESC LIMIT 1`
    return row ? toPrinter(row) : undefined
  }
}
