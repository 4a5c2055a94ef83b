// Printer records on PostgreSQL and their status history: the same records and rules as the SQLite store's
// (store/printers.ts, printer-states.ts). A project's live printers are unique by remote ID (a partial index).
import type { SQL } from 'bun'
import type { PrinterState } from '../domain/printer-state.ts'
import type { PrinterRecord, PrinterStateChange } from '../domain/records.ts'
import { newId } from '../storage/ids.ts'
import type {
  NewPrinter,
  PrinterRepository,
  PrinterSettingsChange,
  PrinterStateRepository,
} from '../storage/repositories.ts'
import { type Big, printerOf, type PrinterRow, time } from '../storage/rows.ts'

const COLUMNS = 'id, project_id, remote_id, name, connection, profile, width, agent_id, agent_printer_id, created_at'

export class PgPrinters implements PrinterRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  private get columns() {
    return this.sql.unsafe(COLUMNS)
  }

  async get(id: string): Promise<PrinterRecord | undefined> {
    const [row] = await this.sql<PrinterRow[]>`SELECT ${this.columns} FROM printers WHERE id = ${id}`
    return row ? printerOf(row) : undefined
  }

  async resolve(projectId: string, printerId: string): Promise<PrinterRecord | undefined> {
    // The record ID first, then the project-local ID, as the SQLite store looks them up.
    const [row] = await this.sql<PrinterRow[]>`SELECT ${this.columns} FROM printers
      WHERE project_id = ${projectId} AND removed_at IS NULL AND (id = ${printerId} OR remote_id = ${printerId})
      ORDER BY id = ${printerId} DESC LIMIT 1`
    return row ? printerOf(row) : undefined
  }

  async list(projectId: string): Promise<PrinterRecord[]> {
    const rows = await this.sql<PrinterRow[]>`SELECT ${this.columns} FROM printers
      WHERE project_id = ${projectId} AND removed_at IS NULL ORDER BY created_at, id`
    return rows.map(printerOf)
  }

  async listAll(): Promise<PrinterRecord[]> {
    const rows = await this.sql<PrinterRow[]>`SELECT ${this.columns} FROM printers
      WHERE removed_at IS NULL ORDER BY created_at, id`
    return rows.map(printerOf)
  }

  async ofAgent(agentId: string, agentPrinterId?: string): Promise<PrinterRecord[]> {
    const rows = await this.sql<PrinterRow[]>`SELECT ${this.columns} FROM printers
      WHERE agent_id = ${agentId} AND removed_at IS NULL
        AND (${agentPrinterId ?? null}::text IS NULL OR agent_printer_id = ${agentPrinterId ?? null}::text)
      ORDER BY created_at, id`
    return rows.map(printerOf)
  }

  async add(printer: NewPrinter): Promise<PrinterRecord | undefined> {
    const id = newId('prn')
    const [row] = await this.sql<PrinterRow[]>`INSERT INTO printers
        (id, project_id, remote_id, name, connection, profile, width, agent_id, agent_printer_id, created_at)
      VALUES (${id}, ${printer.projectId}, ${printer.remoteId}, ${printer.name}, ${printer.connection},
        ${printer.profile}, ${printer.width}, ${printer.agentId}, ${printer.agentPrinterId ?? id}, ${this.now()})
      ON CONFLICT DO NOTHING RETURNING ${this.columns}`
    return row ? printerOf(row) : undefined
  }

  async update(id: string, change: PrinterSettingsChange): Promise<PrinterRecord | undefined> {
    const [row] = await this.sql<PrinterRow[]>`UPDATE printers SET name = ${change.name},
        connection = ${change.connection}, profile = ${change.profile}, width = ${change.width}
      WHERE id = ${id} AND removed_at IS NULL RETURNING ${this.columns}`
    return row ? printerOf(row) : undefined
  }

  async remove(id: string): Promise<boolean> {
    const rows = await this.sql`UPDATE printers SET removed_at = ${this.now()}
      WHERE id = ${id} AND removed_at IS NULL RETURNING id`
    return rows.length === 1
  }
}

export class PgPrinterStates implements PrinterStateRepository {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
  ) {}

  private async latest(agentId: string, printerId: string): Promise<{ at: Big; state: PrinterState } | undefined> {
    const [row] = await this.sql<{ at: Big; state: PrinterState }[]>`SELECT at, state FROM printer_states
      WHERE agent_id = ${agentId} AND printer_id = ${printerId} ORDER BY at DESC, seq DESC LIMIT 1`
    return row
  }

  async record(
    agentId: string,
    printerId: string,
    state: PrinterState,
  ): Promise<false | { from: PrinterState | undefined }> {
    const from = (await this.latest(agentId, printerId))?.state
    if (from === state) return false
    await this.sql`INSERT INTO printer_states (agent_id, printer_id, at, state)
      VALUES (${agentId}, ${printerId}, ${this.now()}, ${state})`
    return { from }
  }

  async since(agentId: string, printerId: string): Promise<string | undefined> {
    const latest = await this.latest(agentId, printerId)
    return latest ? time(latest.at) : undefined
  }

  async history(agentId: string, printerId: string, limit: number): Promise<PrinterStateChange[]> {
    const rows = await this.sql<{ at: Big; state: PrinterState }[]>`SELECT at, state FROM printer_states
      WHERE agent_id = ${agentId} AND printer_id = ${printerId} ORDER BY at DESC, seq DESC LIMIT ${limit}`
    return rows.map((row) => ({ at: time(row.at), state: row.state }))
  }
}
