// Pages of jobs and of fan-out parents, and the dashboard's search, on SQLite: the readings both stores share
// (storage/job-pages.ts) run at once, in SQLite's dialect (each page told which index it walks).
import type { Database } from 'bun:sqlite'
import type { JobFilter, JobPage, JobQuery, ParentQuery } from '../domain/job-queries.ts'
import * as pages from '../storage/job-pages.ts'
import type { PageDialect, Reading, Statement } from '../storage/job-pages.ts'
import { type JobRow, toJob } from './job-rows.ts'

export type { JobPage, JobQuery, ParentQuery }
export { PAGE_WINDOW, SEARCH_WINDOW } from '../storage/job-pages.ts'

/** SQLite's way of saying what the stores say differently. */
export const SQLITE_PAGES: PageDialect = {
  along: (table, index) => `${table} INDEXED BY ${index}`,
  jsonEntries: (column) => `json_each(${column})`,
}

/** Runs a reading at once: each statement it yields, its rows given back. */
export function readNow<T>(reading: Reading<T>, db: Database): T {
  let step = reading.next()
  while (!step.done) {
    const { sql, values } = step.value
    step = reading.next(db.query<unknown, pages.Value[]>(sql).all(...values))
  }
  return step.value
}

/** The newest `limit` jobs matching `query`, older than `query.before` if given. */
export function jobPage(db: Database, query: JobQuery, limit: number, window?: number): JobPage {
  const { rows, next } = readNow(pages.jobPage(SQLITE_PAGES, query, limit, window), db)
  return { jobs: (rows as JobRow[]).map(toJob), next }
}

/** The newest `limit` fan-out parents' rows matching `query`, and where the next page starts. */
export function fanOutRows<Row>(
  db: Database,
  query: ParentQuery,
  limit: number,
  window?: number,
): { rows: Row[]; next: number | null } {
  return readNow(pages.fanOutRows(SQLITE_PAGES, query, limit, window), db) as { rows: Row[]; next: number | null }
}

/** The dashboard's list and search: the statement and its values. */
export function jobSearch(filter: JobFilter, limit: number): Statement {
  return pages.jobSearch(SQLITE_PAGES, filter, limit)
}
