// An agent's printer inventory within one session, and the revision rules of reference 4.5.
import { isDeepStrictEqual } from 'node:util'
import type { PrinterDescriptor } from '../protocol/frames.ts'

export interface Inventory {
  revision: number
  printers: ReadonlyMap<string, PrinterDescriptor>
}

export type InventoryResult = { ok: true; changed: boolean; inventory: Inventory } | { ok: false; reason: string }

function byId(printers: readonly PrinterDescriptor[]): Map<string, PrinterDescriptor> | undefined {
  const map = new Map(printers.map((p) => [p.id, p]))
  return map.size === printers.length ? map : undefined
}

/** A full snapshot: replaces everything unless its revision goes back or reuses one with other content. */
export function replaceSnapshot(
  current: Inventory | undefined,
  snapshot: { revision: number; printers: readonly PrinterDescriptor[] },
): InventoryResult {
  const printers = byId(snapshot.printers)
  if (!printers) return { ok: false, reason: 'The printer inventory names a printer twice.' }
  const next = { revision: snapshot.revision, printers }
  if (!current) return { ok: true, changed: true, inventory: next }
  if (snapshot.revision < current.revision) return { ok: false, reason: 'The printer inventory revision regressed.' }
  if (snapshot.revision === current.revision) {
    return isDeepStrictEqual([...current.printers.values()], snapshot.printers)
      ? { ok: true, changed: false, inventory: current }
      : { ok: false, reason: 'The printer inventory changed without a new revision.' }
  }
  return { ok: true, changed: true, inventory: next }
}

/** A delta: needs a snapshot first and a higher revision; removals, then additions, then updates. */
export function applyDelta(
  current: Inventory | undefined,
  delta: {
    revision: number
    added: readonly PrinterDescriptor[]
    updated: readonly PrinterDescriptor[]
    removedPrinterIds: readonly string[]
  },
): InventoryResult {
  if (!current) return { ok: false, reason: 'A printer inventory change arrived before a snapshot.' }
  if (delta.revision <= current.revision)
    return { ok: false, reason: 'The printer inventory revision did not increase.' }
  const added = byId(delta.added)
  const updated = byId(delta.updated)
  if (!added || !updated) return { ok: false, reason: 'A printer inventory change names a printer twice.' }
  const ids = [...added.keys(), ...updated.keys(), ...delta.removedPrinterIds]
  if (new Set(ids).size !== ids.length)
    return { ok: false, reason: 'A printer inventory change names a printer in two lists.' }
  if ([...added.keys()].some((id) => current.printers.has(id)))
    return { ok: false, reason: 'A printer inventory change adds a printer it already has.' }
  if ([...updated.keys(), ...delta.removedPrinterIds].some((id) => !current.printers.has(id)))
    return { ok: false, reason: 'A printer inventory change names an unknown printer.' }
  const printers = new Map(current.printers)
  for (const id of delta.removedPrinterIds) printers.delete(id)
  for (const [id, printer] of [...added, ...updated]) printers.set(id, printer)
  return { ok: true, changed: true, inventory: { revision: delta.revision, printers } }
}

/**
 * How many inventory messages an agent may send: a burst, then one every two seconds. An agent
 * sends one when it connects and when a printer comes or goes or changes its state; more than
 * this is a flood, and ends the session as a protocol error (the agent comes back after its backoff).
 */
export const INVENTORY_PACE = { burst: 30, everyMs: 2_000 } as const

/** A token bucket of inventory messages for one session. */
export class InventoryPace {
  private tokens: number = INVENTORY_PACE.burst
  private at: number | undefined

  /** Takes one message at `now`; false when the agent is over the pace. */
  take(now: number): boolean {
    if (this.at !== undefined)
      this.tokens = Math.min(INVENTORY_PACE.burst, this.tokens + (now - this.at) / INVENTORY_PACE.everyMs)
    this.at = now
    if (this.tokens < 1) return false
    this.tokens--
    return true
  }
}
