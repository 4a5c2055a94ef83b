// The audit log as the services write and read it: each operation that changes something writes
// its entry with `recordChange`, inside the change's own transaction (in `store.commits.write`), so
// that the change and its entry are committed together or not at all; sign-ins and backups are
// recorded here; the log is read a page at a time (newest first).
import type { AuditEntry } from '../domain/accounts.ts'
import type { AuditAction } from '../protocol/audit-actions.ts'
import type { Db, NewAuditEntry, UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import type { Store } from '../store/store.ts'
import type { Actor } from './actor.ts'

/** What an operation did, for the audit log: who, which action, on what. */
export interface AuditedChange {
  actor: Actor
  action: AuditAction
  target: string | null
}

/** The audit log's entry of a change. */
function entryOf({ actor, action, target }: AuditedChange): NewAuditEntry {
  return { userId: actor.userId, user: actor.user, action, target, address: actor.address }
}

/** Writes an entry; call it inside the change's `store.commits.write`. */
export function recordChange(store: Store, change: AuditedChange): void {
  store.audit.record(entryOf(change))
}

/** The same in a unit of work: the entry written in the change's own transaction, whichever the store. */
export function* recordedChange(db: Db, change: AuditedChange): Unit<void> {
  yield* db.audit.record(entryOf(change))
}

export class AuditLog {
  constructor(private readonly units: UnitRunner) {}

  /** Entries newest first, older than entry `before` when given, at most `limit`. */
  page(limit: number, before?: number): Promise<AuditEntry[]> {
    return this.units.read((db) => db.audit.page(limit, before))
  }

  /** A backup of the hub's data written to `file` (printhub backup, also the hub's daily ones). */
  backupMade(actor: Actor, file: string): Promise<void> {
    return this.record({ actor, action: 'backup', target: file })
  }

  /** A backup downloaded from the dashboard: a copy of everything left the hub. */
  backupDownloaded(actor: Actor, name: string): Promise<void> {
    return this.record({ actor, action: 'backup.download', target: name })
  }

  /** Writes what was done that changed nothing else the store keeps. */
  private record(change: AuditedChange): Promise<void> {
    return this.units.write((db) => recordedChange(db, change))
  }
}
