// Agents as both stores' rows hold them, and the records made of them: a paired agent, the printers it reported
// (rows.ts says how numbers, times and JSON come from each store).
import type { AgentPrinter, AgentRecord } from '../domain/records.ts'
import type { PrinterDescriptor } from '../protocol/frames.ts'
import { type Big, json, time, timeOrNull } from './rows.ts'

export interface AgentRow {
  id: string
  key_id: string
  name: string
  version: string
  platform: string
  /** 0 or 1 (SQLite), a boolean (PostgreSQL). */
  builtin: number | boolean
  paired_at: Big
  last_seen_at: Big | null
  revoked_at: Big | null
}

export interface AgentPrinterRow {
  agent_id: string
  printer_id: string
  name: string
  availability: PrinterDescriptor['availability']
  enabled: number | boolean
  descriptor: string
  updated_at: Big
}

export const agentOf = (row: AgentRow): AgentRecord => ({
  id: row.id,
  keyId: row.key_id,
  name: row.name,
  version: row.version,
  platform: row.platform,
  builtin: row.builtin === 1 || row.builtin === true,
  pairedAt: time(row.paired_at),
  lastSeenAt: timeOrNull(row.last_seen_at),
  revokedAt: timeOrNull(row.revoked_at),
})

export const agentPrinterOf = (row: AgentPrinterRow): AgentPrinter => ({
  agentId: row.agent_id,
  printerId: row.printer_id,
  name: row.name,
  availability: row.availability,
  enabled: row.enabled === 1 || row.enabled === true,
  descriptor: json<PrinterDescriptor>(row.descriptor),
  updatedAt: time(row.updated_at),
})

/** An inventory's printers that differ from those kept (`known`: printer ID → descriptor JSON), and those gone. */
export function inventoryChanges(
  known: ReadonlyMap<string, string>,
  printers: readonly PrinterDescriptor[],
): { changed: (readonly [PrinterDescriptor, string])[]; gone: string[] } {
  const changed = printers
    .map((p) => [p, JSON.stringify(p)] as const)
    .filter(([p, descriptor]) => known.get(p.id) !== descriptor)
  const reported = new Set(printers.map((p) => p.id))
  return { changed, gone: [...known.keys()].filter((id) => !reported.has(id)) }
}
