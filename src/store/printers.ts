import type { Database } from 'bun:sqlite'
import { newId } from '../storage/ids.ts'
import { printerOf, type PrinterRow } from '../storage/rows.ts'
import { bound } from '../sqlite/bound.ts'
import { BoundedMap } from '../platform/bounded-map.ts'
import type { NewPrinter, PrinterRepository, PrinterSettingsChange } from '../storage/repositories.ts'
import type { PrinterRecord } from '../domain/records.ts'

export type { NewPrinter, PrinterRecord }

/** The prefix of printer record IDs (`prn_…`). */
const PRINTER_RECORD = 'prn'
/** Records whose project-local name is kept in memory at most (a few hundred bytes each). */
const NAMES_KEPT = 4_096

/**
 * Printers looked up in one group transaction (`GroupCommit.readEpoch`): a job's submission and
 * dispatch look up the same printer several times in one turn. Nothing else can change a printer
 * meanwhile; once this process writes one, nothing more is kept until the next transaction.
 */
interface LookUps {
  epoch: number
  byId: Map<string, PrinterRecord | undefined>
  byName: Map<string, PrinterRecord | undefined>
}

export class Printers implements PrinterRepository {
  private lookUps: LookUps | undefined
  /** The read epoch in which this process last wrote a printer: nothing is kept in it. */
  private writtenIn: number | undefined
  /** Record ID to project-local name, of records read or made: a record's name never changes. */
  private readonly names = new BoundedMap<string, string>(NAMES_KEPT, NAMES_KEPT)

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
    /** The group commit's read epoch, when look-ups may be kept (store.ts); none: never kept. */
    private readonly readEpoch: () => number | undefined = () => undefined,
  ) {}

  /** Whatever this process writes to a printer ends the keeping of look-ups until the next transaction. */
  private writing(): void {
    this.writtenIn = this.readEpoch()
    this.lookUps = undefined
  }

  private keptOr(
    map: 'byId' | 'byName',
    key: string,
    load: () => PrinterRecord | undefined,
  ): PrinterRecord | undefined {
    const epoch = this.readEpoch()
    if (epoch === undefined || epoch === this.writtenIn) return load()
    if (this.lookUps?.epoch !== epoch) this.lookUps = { epoch, byId: new Map(), byName: new Map() }
    const known = this.lookUps[map]
    if (known.has(key)) return known.get(key)
    const record = load()
    known.set(key, record && Object.freeze(record))
    return record
  }

  /** A record as read or made, its name kept on the way. */
  private recordOf(row: PrinterRow): PrinterRecord {
    this.names.set(row.id, row.remote_id, 1)
    return printerOf(row)
  }

  /**
   * The project-local name (remote ID) of record `id`, removed or not, for what names a printer
   * both ways (a job's log line). It never changes once the record is made, so it is read at most
   * once for each record this process has not read or made already.
   */
  nameOf(id: string): string | undefined {
    const kept = this.names.get(id)
    if (kept !== undefined) return kept
    const row = this.db
      .query<Pick<PrinterRow, 'remote_id'>, [string]>('SELECT remote_id FROM printers WHERE id = ?')
      .get(id)
    if (row) this.names.set(id, row.remote_id, 1)
    return row?.remote_id
  }

  /** Adds a printer record; undefined when the project already has a printer with that remote ID. */
  add(printer: NewPrinter): PrinterRecord | undefined {
    this.writing()
    const id = newId(PRINTER_RECORD)
    const row = this.db
      .query<PrinterRow, [string, string, string, string | null, string, string, number, string, string, number]>(
        `INSERT INTO printers (id, project_id, remote_id, name, connection, profile, width, agent_id, agent_printer_id,
           created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *`,
      )
      .get(
        id,
        printer.projectId,
        printer.remoteId,
        printer.name,
        printer.connection,
        printer.profile,
        printer.width,
        printer.agentId,
        printer.agentPrinterId ?? id,
        this.now(),
      )
    return row ? this.recordOf(row) : undefined
  }

  get(id: string): PrinterRecord | undefined {
    return this.keptOr('byId', id, () => {
      const row = this.db.query<PrinterRow, [string]>('SELECT * FROM printers WHERE id = ?').get(id)
      return row ? this.recordOf(row) : undefined
    })
  }

  /** The live records of an agent's printers, optionally of one agent printer. */
  ofAgent(agentId: string, agentPrinterId?: string): PrinterRecord[] {
    const rows =
      agentPrinterId === undefined
        ? this.db
            .query<PrinterRow, [string]>(
              `SELECT * FROM printers WHERE agent_id = ${bound()} AND removed_at IS NULL ORDER BY created_at, id`,
            )
            .all(agentId)
        : this.db
            .query<PrinterRow, [string, string]>(
              `SELECT * FROM printers WHERE agent_id = ${bound()} AND agent_printer_id
                = ${bound()} AND removed_at IS NULL ORDER BY created_at, id`,
            )
            .all(agentId, agentPrinterId)
    return rows.map((row) => this.recordOf(row))
  }

  /**
   * Gives the built-in agent `agentId` the printers that are the hub's own: records made before
   * printers had owners, and those of a built-in agent it replaces.
   */
  adoptForBuiltinAgent(agentId: string): void {
    this.writing()
    this.db.run(
      `UPDATE printers SET agent_id = ?1, agent_printer_id = id
       WHERE agent_id IS NULL OR agent_id IN (SELECT id FROM agents WHERE builtin = 1 AND id != ?1)`,
      [agentId],
    )
  }

  /** A live printer of the project, by record ID first, else by project-local remote ID. */
  resolve(projectId: string, printerId: string): PrinterRecord | undefined {
    // Two index lookups: one query with OR and a preference order would sort in a temp table. A
    // record ID always starts with its prefix: any other name (what applications send) can only be
    // a project-local ID, looked up at once.
    const byId = () =>
      this.db
        .query<PrinterRow, [string, string]>(
          'SELECT * FROM printers WHERE id = ? AND project_id = ? AND removed_at IS NULL',
        )
        .get(printerId, projectId)
    const byRemoteId = () =>
      this.db
        .query<PrinterRow, [string, string]>(
          'SELECT * FROM printers WHERE project_id = ? AND remote_id = ? AND removed_at IS NULL',
        )
        .get(projectId, printerId)
    return this.keptOr('byName', `${projectId}\u0000${printerId}`, () => {
      const row = printerId.startsWith(`${PRINTER_RECORD}_`) ? (byId() ?? byRemoteId()) : byRemoteId()
      return row ? this.recordOf(row) : undefined
    })
  }

  list(projectId: string): PrinterRecord[] {
    return this.db
      .query<PrinterRow, [string]>(
        `SELECT * FROM printers WHERE project_id = ${bound()} AND removed_at IS NULL ORDER BY created_at, id`,
      )
      .all(projectId)
      .map((row) => this.recordOf(row))
  }

  /** Removes a printer; its jobs keep their record. False when there is no such live printer. */
  remove(id: string): boolean {
    this.writing()
    return (
      this.db.run('UPDATE printers SET removed_at = ? WHERE id = ? AND removed_at IS NULL', [this.now(), id])
        .changes === 1
    )
  }

  /** Every live printer of every project. */
  listAll(): PrinterRecord[] {
    return this.db
      .query<PrinterRow, []>('SELECT * FROM printers WHERE removed_at IS NULL ORDER BY created_at, id')
      .all()
      .map((row) => this.recordOf(row))
  }

  /** Changes a live printer's settings; undefined when there is no such live printer. */
  update(id: string, change: PrinterSettingsChange): PrinterRecord | undefined {
    this.writing()
    const row = this.db
      .query<PrinterRow, [string | null, string, string, number, string]>(
        `UPDATE printers SET name = ?, connection = ?, profile = ?, width = ?
          WHERE id = ? AND removed_at IS NULL RETURNING *`,
      )
      .get(change.name, change.connection, change.profile, change.width, id)
    return row ? this.recordOf(row) : undefined
  }
}
