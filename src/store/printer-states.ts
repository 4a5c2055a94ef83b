import type { Database } from 'bun:sqlite'
import type { PrinterState } from '../domain/printer-state.ts'
import { iso } from '../storage/time.ts'
import { bound } from '../sqlite/bound.ts'
import type { PrinterStateChange } from '../domain/records.ts'
import type { PrinterStateRepository } from '../storage/repositories.ts'

export type { PrinterStateChange }

/** Each agent printer's status history: a row when it changes. */
export class PrinterStates implements PrinterStateRepository {
  private readonly latest
  private readonly insert

  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {
    this.latest = db.query<{ state: PrinterState }, [string, string]>(
      `SELECT state FROM printer_states WHERE agent_id = ${bound()} AND
        printer_id = ${bound()} ORDER BY at DESC, rowid DESC LIMIT 1`,
    )
    this.insert = db.query<never, [string, string, number, string]>(
      'INSERT INTO printer_states (agent_id, printer_id, at, state) VALUES (?, ?, ?, ?)',
    )
  }

  /**
   * Records `state` unless it is the printer's latest already; when it was recorded, the state it
   * follows (undefined for the printer's first).
   */
  record(agentId: string, printerId: string, state: PrinterState): false | { from: PrinterState | undefined } {
    const from = this.latest.get(agentId, printerId)?.state
    if (from === state) return false
    this.insert.run(agentId, printerId, this.now(), state)
    return { from }
  }

  /** When the printer's state last changed (its latest record), if anything was ever recorded. */
  since(agentId: string, printerId: string): string | undefined {
    const row = this.db
      .query<{ at: number }, [string, string]>(
        `SELECT at FROM printer_states WHERE agent_id = ${bound()} AND printer_id
          = ${bound()} ORDER BY at DESC, rowid DESC LIMIT 1`,
      )
      .get(agentId, printerId)
    return row ? iso(row.at) : undefined
  }

  /** The newest changes first, at most `limit`. */
  history(agentId: string, printerId: string, limit: number): PrinterStateChange[] {
    return this.db
      .query<{ at: number; state: PrinterState }, [string, string, number]>(
        `SELECT at, state FROM printer_states WHERE agent_id = ${bound()} AND
          printer_id = ${bound()} ORDER BY at DESC, rowid DESC LIMIT ?`,
      )
      .all(agentId, printerId, limit)
      .map((row) => ({ at: iso(row.at), state: row.state }))
  }
}
