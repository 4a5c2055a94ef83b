// The hub's database as a start after a crash would find it: the file, with what its redo log holds applied (the
// hub's batch stays open for up to two seconds, its changes durable in the log meanwhile: sqlite/batched-commit.ts).
// Another process that reads the file alone reads what the last batch committed.
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { snapshotDatabase } from '../../src/sqlite/database.ts'
import { DATABASE_FILE, openHubDatabase } from '../../src/store/database.ts'

/** Reads a copy of the data directory's database as a start would find it now (the hub may run meanwhile). */
export function durableView<T>(dataDir: string, read: (db: Database) => T): T {
  const work = mkdtempSync(join(tmpdir(), 'printhub-durable-view-'))
  try {
    const copy = join(work, DATABASE_FILE)
    snapshotDatabase(join(dataDir, DATABASE_FILE), copy)
    const db = new Database(copy, { readonly: true, strict: true })
    try {
      return read(db)
    } finally {
      db.close(true)
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** Opens the database of a hub that is not running as its next start would: what its redo log holds applied first. */
export function openAfterCrash(dataDir: string): Database {
  return openHubDatabase(dataDir, false, true)
}
