// Pages of a project's jobs, newest first, with filters (state, printer, creation time, metadata)
// and a position to go on from. Each page walks one index, the one that answers the most of the
// query (a metadata entry's, the printer's, the state's, or the project's), through at most
// PAGE_WINDOW of its entries: a page costs the same whatever the history holds, and may come back
// short (even empty) with a position to go on from when the other filters left few of them.
// Pages of a project's fan-out parents (`fanOut`) walk the project's index of parents the same way.
// Written once for both stores: a page is a reading, a generator that yields each statement it needs (with `?` for
// its values) and is given its rows; each store runs the statements its own way (store/job-pages.ts at once,
// pgstore/job-pages.ts awaited), in its own dialect (`PageDialect`).
import { FAN_OUT_STATE_ORDER } from '../domain/fan-out.ts'
import type { JobFilter, JobQuery, ParentQuery } from '../domain/job-queries.ts'
import { bound } from '../sqlite/bound.ts'
import { type FanOutRowOf, JOB_COLUMNS, type JobRowOf } from './job-rows.ts'
import { type Big, int } from './rows.ts'

/** One statement a reading needs: its text, with `?` for each value, and the values. */
export interface Statement {
  sql: string
  values: Value[]
}

/** A reading that ends with a T: it yields statements and is given each one's rows. */
export type Reading<T> = Generator<Statement, T, unknown[]>

/** How a store's SQL says what the two say differently. */
export interface PageDialect {
  /** A table read along one of its indexes (SQLite is told which; PostgreSQL's planner chooses). */
  along(table: string, index: string): string
  /** The entries of a JSON object column as rows of `key` and `value`. */
  jsonEntries(column: string): string
}

/** Index entries one page looks at, at most. */
export const PAGE_WINDOW = 5_000

export type Value = string | number

/**
 * The index a page walks: where its candidates are (`source`, their sequence number `seq`) and
 * which of them (`where`, ending with their position before `before`).
 */
interface Driver {
  source: string
  seq: string
  where: string
  values: Value[]
}

/**
 * A page's walk: the table its rows come from, the index it walks, every condition on a row, and whether the index
 * holds exactly the rows that match.
 */
interface Walk {
  table: string
  columns: string
  drive: Driver
  match: { sql: string; values: Value[] }
  exact: boolean
}

function driver(d: PageDialect, query: JobQuery, before: number): Driver {
  const [entry] = query.metadata ?? []
  if (entry)
    return {
      source: 'job_metadata',
      seq: 'job_seq',
      where: `project_id = ${bound()} AND key = ${bound()} AND value = ${bound()} AND job_seq < ?`,
      values: [query.projectId, entry[0], entry[1], before],
    }
  if (query.printerId !== undefined)
    return {
      source: d.along('jobs', 'jobs_by_printer'),
      seq: 'seq',
      where: `printer_id = ${bound()} AND seq < ?`,
      values: [query.printerId, before],
    }
  if (query.state !== undefined)
    return {
      source: d.along('jobs', 'jobs_newest_by_state'),
      seq: 'seq',
      where: `project_id = ${bound()} AND state = ${bound()} AND seq < ?`,
      values: [query.projectId, query.state, before],
    }
  return {
    source: d.along('jobs', 'jobs_newest'),
    seq: 'seq',
    where: `project_id = ${bound()} AND seq < ?`,
    values: [query.projectId, before],
  }
}

/** The walk itself: the sequence numbers of candidates, newest first, at most `window`. */
function walk({ source, seq, where, values }: Driver, window: number): { sql: string; values: Value[] } {
  return {
    sql: `SELECT ${seq} FROM ${source} WHERE ${where} ORDER BY ${seq} DESC LIMIT ?`,
    values: [...values, window],
  }
}

/** Every condition of the query, on a job row (the driver's own among them: cheap, and exact). */
function conditions(query: JobQuery): { sql: string; values: Value[] } {
  const where: string[] = [`project_id = ${bound()}`]
  const values: Value[] = [query.projectId]
  const add = (clause: string, ...more: Value[]) => {
    where.push(clause)
    values.push(...more)
  }
  if (query.state !== undefined) add(`state = ${bound()}`, query.state)
  if (query.printerId !== undefined) add(`printer_id = ${bound()}`, query.printerId)
  if (query.createdAfter !== undefined) add('created_at > ?', query.createdAfter)
  if (query.createdBefore !== undefined) add('created_at < ?', query.createdBefore)
  for (const [key, value] of query.metadata ?? [])
    add(
      `EXISTS (SELECT 1 FROM job_metadata m WHERE m.project_id =
        jobs.project_id AND m.key = ${bound()} AND m.value = ${bound()} AND
        m.job_seq = jobs.seq)`,
      key,
      value,
    )
  return { sql: where.join(' AND '), values }
}

/**
 * Whether the driver's index holds exactly the jobs that match: the project's (jobs_newest), or the
 * project's in one state (jobs_newest_by_state). A printer's index does not (a printer assigned to
 * another project keeps its older jobs), nor does any other condition.
 */
function driverIsExact(query: JobQuery): boolean {
  return (
    query.printerId === undefined &&
    query.createdAfter === undefined &&
    query.createdBefore === undefined &&
    !query.metadata?.length
  )
}

/** The newest `limit` rows of `table` along the walk, older than `before`: the rows, and where the next page starts. */
function* pageOf<Row extends { seq: Big }>(
  { table, columns, drive, match, exact }: Walk,
  limit: number,
  window: number,
): Reading<{ rows: Row[]; next: number | null }> {
  // Where every row the driver finds matches, a page is read along its index: one more row than it
  // shows, nothing else looked up.
  if (exact) {
    const rows = (yield {
      sql: `SELECT ${columns} FROM ${drive.source} WHERE ${drive.where} ORDER BY ${drive.seq} DESC LIMIT ?`,
      values: [...drive.values, limit + 1],
    }) as Row[]
    return rows.length > limit ? { rows: rows.slice(0, limit), next: int(rows[limit - 1]!.seq) } : { rows, next: null }
  }
  const candidates = walk(drive, window)
  const rows = (yield {
    sql: `SELECT ${columns} FROM ${table} WHERE seq IN (${candidates.sql}) AND ${match.sql} ORDER BY seq DESC LIMIT ?`,
    values: [...candidates.values, ...match.values, limit + 1],
  }) as Row[]
  if (rows.length > limit) return { rows: rows.slice(0, limit), next: int(rows[limit - 1]!.seq) }
  // Whether the walk stopped at its window rather than at the end of the index: one entry more
  // tells. Then the next page goes on from the window's last entry.
  const beyond = walk(drive, window + 1)
  const [span] = (yield {
    sql: `WITH w (s) AS (${beyond.sql}) SELECT (SELECT count(*) FROM w) AS n,
        (SELECT s FROM w ORDER BY s LIMIT 1 OFFSET 1) AS last`,
    values: beyond.values,
  }) as { n: Big; last: Big | null }[]
  return { rows, next: span && int(span.n) > window && span.last !== null ? int(span.last) : null }
}

/** The newest `limit` jobs' rows matching `query`, older than `query.before` if given, and where the next starts. */
export function jobPage(
  d: PageDialect,
  query: JobQuery,
  limit: number,
  window = PAGE_WINDOW,
): Reading<{ rows: JobRowOf[]; next: number | null }> {
  const drive = driver(d, query, query.before ?? Number.MAX_SAFE_INTEGER)
  return pageOf<JobRowOf>(
    { table: 'jobs', columns: JOB_COLUMNS, drive, match: conditions(query), exact: driverIsExact(query) },
    limit,
    window,
  )
}

/**
 * A fan-out parent's state as a number, from its children: the rank in the domain's order
 * (domain/fan-out.ts, FAN_OUT_STATE_ORDER) of the first state any child is in. Built from that
 * order, never from input; the store's projection of a parent (fan-outs.ts) says the same state.
 */
const parentStateRank = (d: PageDialect) => `(SELECT min(CASE state
  ${FAN_OUT_STATE_ORDER.map((state, rank) => `WHEN '${state}' THEN ${rank}`).join(' ')}
  END) FROM ${d.along('jobs', 'jobs_of_fan_outs')} WHERE fan_out_id =
  fan_outs.id)`

/** Every condition of a query of fan-out parents, on a parent's row. */
function parentConditions(d: PageDialect, query: ParentQuery): { sql: string; values: Value[] } {
  const where: string[] = ['1 = 1']
  const values: Value[] = []
  const add = (clause: string, ...more: Value[]) => {
    where.push(clause)
    values.push(...more)
  }
  if (query.projectId !== undefined) add(`project_id = ${bound()}`, query.projectId)
  if (query.destination !== undefined) add(`destination = ${bound()}`, query.destination)
  if (query.createdAfter !== undefined) add('created_at > ?', query.createdAfter)
  if (query.createdBefore !== undefined) add('created_at < ?', query.createdBefore)
  for (const [key, value] of query.metadata ?? [])
    add(
      `EXISTS (SELECT 1 FROM ${d.jsonEntries('fan_outs.metadata')} m
        WHERE m.key = ${bound()} AND m.value = ${bound()})`,
      key,
      value,
    )
  if (query.metadataPrefix !== undefined)
    add(
      `EXISTS (SELECT 1 FROM ${d.jsonEntries('fan_outs.metadata')} m WHERE m.value >= ? AND m.value < ?)`,
      query.metadataPrefix,
      `${query.metadataPrefix}\u{10FFFF}`,
    )
  if (query.childPrinterId !== undefined)
    add(
      `EXISTS (SELECT 1 FROM ${d.along('jobs', 'jobs_of_fan_outs')} WHERE fan_out_id
        = fan_outs.id AND printer_id = ${bound()})`,
      query.childPrinterId,
    )
  if (query.state !== undefined)
    add(`${parentStateRank(d)} = ${bound('?', 'INTEGER')}`, FAN_OUT_STATE_ORDER.indexOf(query.state))
  return { sql: where.join(' AND '), values }
}

/** The columns of a fan-out parent's row (FanOuts projects it). */
export const FAN_OUT_COLUMNS =
  'seq, id, project_id, destination, idempotency_key, metadata, expires_at, max_attempts, created_at'

/**
 * The newest `limit` fan-out parents matching `query`, older than `query.before` if given: their
 * rows, newest first, and where the next page starts. Each page walks the project's parents
 * (fan_outs_newest; every project's along the table itself), through at most `window` of them;
 * with no other filter it is read along that index alone.
 */
export function fanOutRows(
  d: PageDialect,
  query: ParentQuery,
  limit: number,
  window = PAGE_WINDOW,
): Reading<{ rows: FanOutRowOf[]; next: number | null }> {
  const before = query.before ?? Number.MAX_SAFE_INTEGER
  const drive: Driver =
    query.projectId === undefined
      ? { source: 'fan_outs', seq: 'seq', where: 'seq < ?', values: [before] }
      : {
          source: d.along('fan_outs', 'fan_outs_newest'),
          seq: 'seq',
          where: `project_id = ${bound()} AND seq < ?`,
          values: [query.projectId, before],
        }
  const { projectId: _, before: __, ...filters } = query
  const exact = Object.values(filters).every(
    (value) => value === undefined || (Array.isArray(value) && value.length === 0),
  )
  return pageOf<FanOutRowOf>(
    { table: 'fan_outs', columns: FAN_OUT_COLUMNS, drive, match: parentConditions(d, query), exact },
    limit,
    window,
  )
}

/** Metadata entries a search reads at most, along the index of values: it costs the same whatever the history holds. */
export const SEARCH_WINDOW = 5_000

/**
 * The dashboard's list and search (any project, any filter; newest first, at most `limit`): the
 * statement and its values. A metadata prefix walks the index of values (at most SEARCH_WINDOW
 * entries) and reads the jobs by their keys.
 */
export function jobSearch(d: PageDialect, filter: JobFilter, limit: number): Statement {
  const where: string[] = []
  const values: Value[] = []
  const add = (clause: string, value: Value | undefined) => {
    if (value === undefined) return
    where.push(clause)
    values.push(value)
  }
  add(`project_id = ${bound()}`, filter.projectId)
  add(`printer_id = ${bound()}`, filter.printerId)
  add(`state = ${bound()}`, filter.state)
  add('created_at >= ?', filter.createdFrom)
  add('created_at < ?', filter.createdBefore)
  add(`seq < (SELECT seq FROM jobs WHERE id = ${bound()})`, filter.beforeId)
  if (filter.metadataPrefix !== undefined) {
    // The values from the prefix up to the next one that does not start with it, along the index.
    where.push(
      `seq IN (SELECT job_seq FROM ${d.along('job_metadata', 'job_metadata_by_value')}
        WHERE value >= ? AND value < ? ORDER BY value LIMIT ${SEARCH_WINDOW})`,
    )
    values.push(filter.metadataPrefix, `${filter.metadataPrefix}\u{10FFFF}`)
  }
  return {
    sql: `SELECT ${JOB_COLUMNS} FROM jobs
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq
      DESC LIMIT ?`,
    values: [...values, limit],
  }
}
