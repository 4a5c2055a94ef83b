// How the admin API's contract is written: each route as an AdminOperation (its method and path,
// the least role that may call it, its request's rules and its answers' rules), and the few values
// its answers share. The routes validate with these rules, the dashboard's browser code types the
// answers with the types inferred from them, and the admin API's OpenAPI document is made from them
// (admin/openapi.ts), as the public API's is from the rest of protocol/.
import type { AdminRole } from '../admin-api.ts'
import { integer, type JsonSchema, type Rule, string } from '../rules.ts'

export type AdminMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** A JSON body: its rule, and the most bytes the route reads of it. */
export interface AdminBody {
  rule: Rule<unknown>
  maxBytes: number
}

/** A query parameter: the schema of its value (read from the query's text), and what it does. */
export interface AdminQueryParameter {
  schema: JsonSchema
  description: string
}

/** An answer: JSON of a rule, or bytes of a media type (a picture, a file, a stream), or nothing (204). */
export type AdminAnswer =
  | { description: string; rule: Rule<unknown> }
  | { description: string; mediaType: string; headers?: Record<string, string> }
  | { description: string }

export interface AdminOperation {
  method: AdminMethod
  /** Under ADMIN_API_PREFIX, its parameters as `:name`: the path as the router registers it. */
  path: string
  /** Stable: a generated client's method name. */
  operationId: string
  summary: string
  /** The least role that may call it; null: no session needed (signing in, and whether one can). */
  role: AdminRole | null
  query?: Record<string, AdminQueryParameter>
  body?: AdminBody
  /** Each status it answers with when it succeeds. */
  answers: Record<number, AdminAnswer>
  /**
   * The statuses of the errors of its own. Every operation with a role may also answer 401 and 403,
   * and every one with a body 400, 408, 413 and 415: those are said for it.
   */
  errors: readonly number[]
}

/** An answer in JSON of this rule. */
export const json = (rule: Rule<unknown>, description: string): AdminAnswer => ({ rule, description })

/** Accepts only null (a field that is null in one variant of an answer). */
export function nothing(): Rule<null> {
  return {
    schema: { type: 'null' },
    check(value, path, issues) {
      if (value !== null) issues.push({ path, message: 'must be null' })
    },
  }
}

/** Accepts only `value` (a field that is always the same in an answer, such as `{ removed: true }`). */
export function exactly<const V extends string | number | boolean>(value: V): Rule<V> {
  return {
    schema: { const: value },
    check(given, path, issues) {
      if (given !== value) issues.push({ path, message: `must be ${JSON.stringify(value)}` })
    },
  }
}

/**
 * One of whole rules that no value passes two of (answers of different shapes, each closed): the
 * value passes when one of them passes it; otherwise the issues of the one that found the fewest.
 */
export function either<A, B>(first: Rule<A>, second: Rule<B>): Rule<A | B> {
  return {
    schema: { oneOf: [first.schema, second.schema] },
    check(value, path, issues) {
      const found = [first, second].map((rule) => {
        const own: typeof issues = []
        rule.check(value, path, own)
        return own
      })
      if (found.some((own) => own.length === 0)) return
      issues.push(...found.reduce((fewest, own) => (own.length < fewest.length ? own : fewest)))
    },
  }
}

/** A record's ID, as the hub makes them (`prn_…`, `usr_…`) or as its older records kept them. */
export const recordId = string({ min: 1, max: 256 })
/** A count of things, from none. */
export const count = integer({ min: 0, max: Number.MAX_SAFE_INTEGER })
/** Text of the hub's or a person's, bounded only to keep an answer's schema finite. */
export const text = string({ max: 65_536 })
/** Answers that list records list at most this many. */
export const MAX_LISTED = 100_000
