// Pages of jobs and of fan-out parents, and the dashboard's search, on PostgreSQL: the readings both stores share
// (storage/job-pages.ts) run awaited, in PostgreSQL's dialect (its planner picks the index each page walks).
import type { SQL } from 'bun'
import type { PageDialect, Reading, Statement } from '../storage/job-pages.ts'

/** PostgreSQL's way of saying what the stores say differently. */
export const POSTGRES_PAGES: PageDialect = {
  along: (table) => table,
  jsonEntries: (column) => `jsonb_each_text(${column})`,
}

/** A statement's `?` placeholders as PostgreSQL's `$1`, `$2`, … (no statement of the readings has `?` otherwise). */
const numbered = (text: string): string => {
  let n = 0
  return text.replace(/\?/g, () => `$${++n}`)
}

/** Runs a reading, awaiting each statement it yields and giving back its rows. */
export async function readAwaiting<T>(reading: Reading<T>, sql: SQL): Promise<T> {
  let step = reading.next()
  while (!step.done) {
    step = reading.next(await runStatement(step.value, sql))
  }
  return step.value
}

/** Runs one statement of the readings (`?` placeholders), its rows. */
export function runStatement<Row>({ sql: text, values }: Statement, sql: SQL): Promise<Row[]> {
  return sql.unsafe(numbered(text), values) as Promise<Row[]>
}
