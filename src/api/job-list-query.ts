// The job list's query string: the specification's `state`, and beside it, opt-in, the filters
// (printerId, createdAfter, createdBefore, metadata.KEY=VALUE), the fan-out parents instead of the
// jobs that print (fanOut=true) and paging (limit, cursor). A
// cursor is opaque to applications: base64url of the query it continues and the position it
// continues from, so `?cursor=C` alone fetches the next older page. Without limit and cursor the
// answer keeps exactly the specification's shape.
import { QueryReader } from '../http/query.ts'
import {
  JOB_LIST_LIMIT,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_VALUE_LENGTH,
  MAX_PRINTER_ID_LENGTH,
} from '../protocol/limits.ts'
import { isJobState, type JobState } from '../protocol/job.ts'
import { validate } from '../protocol/rules.ts'
import { timestamp } from '../protocol/values.ts'
import type { JobQuery } from '../domain/job-queries.ts'

/** Metadata entries one query may filter on. */
export const MAX_METADATA_FILTERS = 4
const METADATA_PREFIX = 'metadata.'
const CURSOR_VERSION = 1

/** What the list is asked for: the query (printer as the application named it), and how to answer. */
export interface JobListRequest {
  query: Omit<JobQuery, 'projectId' | 'printerId'> & { printer?: string }
  /** Paging was asked for (limit or cursor): the answer has `nextCursor`. */
  paged: boolean
  limit: number
  /** Only `state` (or nothing): the specification's own list, answered as it always was. */
  specified: boolean
}

interface Cursor {
  v: number
  before: number
  fanOut?: boolean
  state?: JobState
  printer?: string
  createdAfter?: number
  createdBefore?: number
  metadata?: readonly (readonly [string, string])[]
}

/** The cursor that continues `query` from position `before`. */
export function encodeCursor(query: JobListRequest['query'], before: number): string {
  const { before: _, ...rest } = query
  const cursor: Cursor = { v: CURSOR_VERSION, ...rest, before }
  return Buffer.from(JSON.stringify(cursor)).toString('base64url')
}

const isInteger = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0
const isText = (value: unknown, max: number, min = 0): value is string =>
  typeof value === 'string' && value.length >= min && value.length <= max

/** The query a cursor continues, or undefined when it is not one this hub made. */
function decodeCursor(text: string): Cursor | undefined {
  if (text.length > 16_384 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined
  let cursor: Record<string, unknown>
  try {
    cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (typeof cursor !== 'object' || cursor === null || Array.isArray(cursor)) return undefined
  const known = ['v', 'before', 'fanOut', 'state', 'printer', 'createdAfter', 'createdBefore', 'metadata']
  if (Object.keys(cursor).some((key) => !known.includes(key))) return undefined
  const { v, before, fanOut, state, printer, createdAfter, createdBefore, metadata } = cursor
  if (v !== CURSOR_VERSION || !isInteger(before)) return undefined
  if (fanOut !== undefined && fanOut !== true) return undefined
  if (state !== undefined && !isJobState(state)) return undefined
  if (printer !== undefined && !isText(printer, MAX_PRINTER_ID_LENGTH, 1)) return undefined
  if (
    (createdAfter !== undefined && !isInteger(createdAfter)) ||
    (createdBefore !== undefined && !isInteger(createdBefore))
  )
    return undefined
  if (metadata !== undefined) {
    if (!Array.isArray(metadata) || metadata.length > MAX_METADATA_FILTERS) return undefined
    for (const entry of metadata)
      if (
        !Array.isArray(entry) ||
        entry.length !== 2 ||
        !isText(entry[0], MAX_METADATA_KEY_LENGTH, 1) ||
        !isText(entry[1], MAX_METADATA_VALUE_LENGTH)
      )
        return undefined
  }
  return cursor as unknown as Cursor
}

/** Reads the list's query string; throws one invalid_request naming every problem. */
export function readJobListRequest(url: string): JobListRequest {
  const reader = new QueryReader(
    url,
    ['fanOut', 'state', 'printerId', 'createdAfter', 'createdBefore', 'limit', 'cursor'],
    [METADATA_PREFIX],
  )
  const limit = reader.integer('limit', 1, JOB_LIST_LIMIT)
  const cursorText = reader.text('cursor', { once: true })
  if (cursorText !== undefined) {
    // The cursor carries the query it continues: only a page size may come with it.
    for (const name of ['fanOut', 'state', 'printerId', 'createdAfter', 'createdBefore'])
      if (reader.text(name) !== undefined)
        reader.problem(name, 'cannot come with a cursor, which carries the query it continues')
    for (const [name] of reader.withPrefix(METADATA_PREFIX))
      reader.problem(`${METADATA_PREFIX}${name}`, 'cannot come with a cursor, which carries the query it continues')
    const cursor = decodeCursor(cursorText)
    if (!cursor) reader.problem('cursor', 'is not a cursor of this list (pass nextCursor exactly as it came)')
    reader.check()
    const { v: _, before, ...query } = cursor!
    return { query: { ...query, before }, paged: true, limit: limit ?? JOB_LIST_LIMIT, specified: false }
  }
  const fanOutText = reader.text('fanOut', { once: true })
  if (fanOutText !== undefined && fanOutText !== 'true' && fanOutText !== 'false')
    reader.problem('fanOut', 'must be true (the parents of jobs posted to a destination of mode "all") or false')
  const fanOut = fanOutText === 'true'
  const state = reader.jobState('state', { once: true })
  const printer = reader.text('printerId', { once: true })
  if (printer !== undefined && !isText(printer, MAX_PRINTER_ID_LENGTH, 1))
    reader.problem('printerId', `must be 1 to ${MAX_PRINTER_ID_LENGTH} characters`)
  const time = (name: string): number | undefined => {
    const value = reader.text(name, { once: true })
    if (value === undefined) return undefined
    if (!validate(timestamp, value).ok)
      reader.problem(name, 'must be an ISO 8601 UTC date and time, like 2026-11-21T18:00:00Z')
    return Date.parse(value)
  }
  const createdAfter = time('createdAfter')
  const createdBefore = time('createdBefore')
  const metadata: [string, string][] = []
  for (const [key, values] of reader.withPrefix(METADATA_PREFIX)) {
    const name = `${METADATA_PREFIX}${key}`
    if (!isText(key, MAX_METADATA_KEY_LENGTH, 1))
      reader.problem(
        name,
        `needs a metadata key of 1 to ${MAX_METADATA_KEY_LENGTH} characters after "${METADATA_PREFIX}"`,
      )
    else if (values.length > 1) reader.problem(name, 'must be given at most once')
    else if (!isText(values[0], MAX_METADATA_VALUE_LENGTH))
      reader.problem(name, `must be at most ${MAX_METADATA_VALUE_LENGTH} characters`)
    else metadata.push([key, values[0]!])
  }
  if (metadata.length > MAX_METADATA_FILTERS)
    reader.problem(METADATA_PREFIX.slice(0, -1), `at most ${MAX_METADATA_FILTERS} metadata filters`)
  reader.check()
  const query: JobListRequest['query'] = {
    ...(fanOut ? { fanOut } : {}),
    ...(state !== undefined ? { state } : {}),
    ...(printer !== undefined ? { printer } : {}),
    ...(createdAfter !== undefined ? { createdAfter } : {}),
    ...(createdBefore !== undefined ? { createdBefore } : {}),
    ...(metadata.length > 0 ? { metadata } : {}),
  }
  const specified =
    !fanOut &&
    printer === undefined &&
    createdAfter === undefined &&
    createdBefore === undefined &&
    metadata.length === 0
  return {
    query,
    paged: limit !== undefined,
    limit: limit ?? JOB_LIST_LIMIT,
    specified: specified && limit === undefined,
  }
}
