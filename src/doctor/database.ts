// The doctor's check of the database: there, readable and whole (SQLite's integrity check).
import { DATABASE_FILE } from '../store/database.ts'
import type { StoreInspection } from '../store/inspection.ts'
import type { Finding } from './finding.ts'

export function databaseIntegrity(database: StoreInspection | undefined, dataDir: string): Finding {
  if (!database)
    return {
      check: 'database',
      verdict: 'fail',
      detail: `no readable ${DATABASE_FILE} in ${dataDir}: run "printhub init --data ${dataDir}".`,
    }
  try {
    const problems = database.integrityProblems()
    if (problems.length === 0) return { check: 'database', verdict: 'ok', detail: 'integrity check passed' }
    return {
      check: 'database',
      verdict: 'fail',
      detail:
        `the database is damaged (${problems.slice(0, 3).join('; ')}). Stop the ` +
        `hub and restore a backup of ${DATABASE_FILE}.`,
    }
  } catch (error) {
    return {
      check: 'database',
      verdict: 'fail',
      detail:
        `the database cannot be read (${(error as Error).message}). Stop the hub ` +
        `and restore a backup of ${DATABASE_FILE}.`,
    }
  }
}
