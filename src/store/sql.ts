// Small pieces of SQL several repositories build from the domain's tables.
import type { JobState } from '../protocol/job.ts'

/**
 * `state IN ('A', 'B')` for a set of job states, always from the state machine's table (never
 * from input). Kept in the table's order: the partial indexes of the jobs table name the same
 * lists, and SQLite uses such an index only for a query whose condition is the index's own.
 */
export function stateIn(states: readonly JobState[], column = 'state'): string {
  return `${column} IN (${states.map((state) => `'${state}'`).join(', ')})`
}
