// Reads a request's query string by the rules every route shares: only the parameters a route
// names, and a job state only from the list of states. Problems are gathered, then answered at
// once as one invalid_request naming each.
import type { ErrorDetail } from '../protocol/api-errors.ts'
import { isJobState, JOB_STATES, type JobState } from '../protocol/job.ts'
import { type Rule, validate } from '../protocol/rules.ts'
import { invalidField, invalidRequest } from './errors.ts'

export class QueryReader {
  private readonly params: URLSearchParams
  private readonly problems: ErrorDetail[] = []

  /** `prefixes`: families of parameters named by a prefix and a name of the caller's (`metadata.order`). */
  constructor(url: string, allowed: readonly string[], prefixes: readonly string[] = []) {
    this.params = new URL(url).searchParams
    for (const name of new Set(this.params.keys())) {
      if (!allowed.includes(name) && !prefixes.some((prefix) => name.startsWith(prefix)))
        this.problems.push({ path: `query.${name}`, message: 'is not an allowed query parameter' })
    }
  }

  /** Every parameter whose name starts with `prefix`, as [the rest of its name, its values]. */
  withPrefix(prefix: string): [string, string[]][] {
    return [...new Set(this.params.keys())]
      .filter((name) => name.startsWith(prefix))
      .map((name) => [name.slice(prefix.length), this.params.getAll(name)])
  }

  /** An integer from `min` to `max`, given at most once. */
  integer(name: string, min: number, max: number): number | undefined {
    const value = this.text(name, { once: true })
    if (value === undefined) return undefined
    if (/^\d{1,9}$/.test(value) && Number(value) >= min && Number(value) <= max) return Number(value)
    this.problems.push({ path: `query.${name}`, message: `must be an integer from ${min} to ${max}` })
    return undefined
  }

  /** Says `message` of the parameter `name` (a rule of the caller's that the value breaks). */
  problem(name: string, message: string): void {
    this.problems.push({ path: `query.${name}`, message })
  }

  /** The first value of `name`; with `emptyIsAbsent`, an empty value counts as not given. */
  text(name: string, { once = false, emptyIsAbsent = false } = {}): string | undefined {
    const values = this.params.getAll(name)
    if (once && values.length > 1) this.problems.push({ path: `query.${name}`, message: 'must be given at most once' })
    const value = values[0]
    return emptyIsAbsent && value === '' ? undefined : value
  }

  jobState(name: string, options: { once?: boolean; emptyIsAbsent?: boolean } = {}): JobState | undefined {
    const value = this.text(name, options)
    if (value === undefined || isJobState(value)) return value
    this.problems.push({ path: `query.${name}`, message: `must be one of ${JOB_STATES.join(', ')}` })
    return undefined
  }

  /** A date and time, in milliseconds since the epoch. */
  time(name: string): number | undefined {
    const value = this.text(name, { emptyIsAbsent: true })
    if (value === undefined) return undefined
    const ms = Date.parse(value)
    if (Number.isNaN(ms))
      this.problems.push({ path: `query.${name}`, message: 'must be a date and time, like 2026-11-21T18:00:00Z' })
    return ms
  }

  /** Throws one invalid_request for every problem found so far. */
  check(): void {
    if (this.problems.length > 0) throw invalidRequest(this.problems)
  }
}

/** A part of the address (`:name`) checked by the rule its body counterpart has; 400 naming it otherwise. */
export function pathPart<T>(field: string, rule: Rule<T>, value: string): T {
  const checked = validate(rule, value)
  if (!checked.ok) throw invalidField(field, checked.issues[0]!.message)
  return checked.value
}
