// A tiny closed-schema validator. The public API, the gateway, the agent and the client library
// all validate with these rules, so each wire rule is written exactly once; each rule also says
// itself as JSON Schema (2020-12, as OpenAPI 3.1 takes it), from which the hub's OpenAPI document
// is made. No dependencies: the client library ships this file as it is.

export interface Issue {
  /** Where the problem is, e.g. `document.sections[2].value`; empty for the whole value. */
  path: string
  message: string
}

/** A JSON Schema (2020-12) fragment. */
export type JsonSchema = { [keyword: string]: unknown }

export interface Rule<T> {
  /**
   * Appends what is wrong with `value` to `issues`; appends nothing when it is a valid T. `without`
   * names a field an object's own rule does not know and leaves to the rule around it (a tagged
   * union's discriminator, checked there).
   */
  check(value: unknown, path: string, issues: Issue[], without?: string): void
  /**
   * The same rule as JSON Schema, as far as JSON Schema can say it (refinements such as check
   * digits, and well-formed Unicode, are the rule's alone).
   */
  readonly schema: JsonSchema
  readonly optional?: boolean
  /** Type carrier only; never set. */
  readonly __type?: T
}

export type Infer<R> = R extends Rule<infer T> ? T : never

/** The most issues reported for one value: enough to fix a request, bounded for the response. */
export const MAX_ISSUES = 32

export type Result<T> = { ok: true; value: T } | { ok: false; issues: Issue[] }

export function validate<T>(rule: Rule<T>, value: unknown, path = ''): Result<T> {
  const issues: Issue[] = []
  rule.check(value, path, issues)
  return issues.length === 0 ? { ok: true, value: value as T } : { ok: false, issues: issues.slice(0, MAX_ISSUES) }
}

function push(issues: Issue[], path: string, message: string): void {
  if (issues.length < MAX_ISSUES) issues.push({ path, message })
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

export interface StringOptions {
  min?: number
  max: number
  pattern?: RegExp
  /** Plain words for what the pattern allows, used in the error message. */
  patternHint?: string
}

/** Lengths count UTF-16 code units, as JavaScript and the OpenPrinter reference do. */
/** With the u flag a pair is one code point: only a lone surrogate matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u

export function string(options: StringOptions): Rule<string> {
  const min = options.min ?? 0
  return {
    schema: {
      type: 'string',
      ...(min > 0 ? { minLength: min } : {}),
      maxLength: options.max,
      ...(options.pattern ? { pattern: options.pattern.source } : {}),
    },
    check(value, path, issues) {
      if (typeof value !== 'string') return push(issues, path, `must be a string, not ${describe(value)}`)
      // JSON can carry half a character (a lone surrogate, \ud800): stored as UTF-8 it would become
      // U+FFFD, and two different keys the same one.
      if (LONE_SURROGATE.test(value))
        return push(issues, path, 'must be well-formed Unicode (it has a lone surrogate, half of a character)')
      if (value.length < min || value.length > options.max) {
        const range =
          min === 0 ? `at most ${options.max}` : min === options.max ? `exactly ${min}` : `${min} to ${options.max}`
        return push(issues, path, `must be ${range} characters long (got ${value.length})`)
      }
      if (options.pattern && !options.pattern.test(value))
        push(issues, path, `must be ${options.patternHint ?? `match ${options.pattern}`}`)
    },
  }
}

export function integer(options: { min: number; max: number }): Rule<number> {
  return {
    schema: { type: 'integer', minimum: options.min, maximum: options.max },
    check(value, path, issues) {
      if (typeof value !== 'number' || !Number.isInteger(value))
        return push(issues, path, `must be an integer, not ${describe(value)}`)
      if (value < options.min || value > options.max)
        push(issues, path, `must be between ${options.min} and ${options.max} (got ${value})`)
    },
  }
}

export function boolean(): Rule<boolean> {
  return {
    schema: { type: 'boolean' },
    check(value, path, issues) {
      if (typeof value !== 'boolean') push(issues, path, `must be true or false, not ${describe(value)}`)
    },
  }
}

export function oneOf<const V extends readonly (string | number)[]>(values: V): Rule<V[number]> {
  const list = values.map((v) => JSON.stringify(v)).join(', ')
  return {
    schema: { enum: [...values] },
    check(value, path, issues) {
      if (!values.includes(value as V[number])) push(issues, path, `must be one of ${list}`)
    },
  }
}

/** A field that may be left out. Its `optional: true` is what makes the key optional in the type too. */
export function optional<T>(rule: Rule<T>): Rule<T | undefined> & { readonly optional: true } {
  return { check: rule.check, schema: rule.schema, optional: true }
}

/** Accepts null as well as the rule's values (for fields the projection shows as null). */
export function nullable<T>(rule: Rule<T>): Rule<T | null> {
  return {
    schema: { anyOf: [rule.schema, { type: 'null' }] },
    check(value, path, issues, without) {
      if (value !== null) rule.check(value, path, issues, without)
    },
  }
}

export function array<T>(item: Rule<T>, options: { min?: number; max: number; unique?: boolean }): Rule<T[]> {
  const min = options.min ?? 0
  return {
    schema: {
      type: 'array',
      items: item.schema,
      ...(min > 0 ? { minItems: min } : {}),
      maxItems: options.max,
      ...(options.unique ? { uniqueItems: true } : {}),
    },
    check(value, path, issues) {
      if (!Array.isArray(value)) return push(issues, path, `must be an array, not ${describe(value)}`)
      if (value.length < min || value.length > options.max) {
        return push(issues, path, `must have ${min} to ${options.max} items (got ${value.length})`)
      }
      value.forEach((element, index) => item.check(element, `${path}[${index}]`, issues))
      if (options.unique && new Set(value.map((element) => JSON.stringify(element))).size !== value.length)
        push(issues, path, 'must not repeat an item')
    },
  }
}

type Shape = Record<string, Rule<unknown>>
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends { readonly optional: true } ? K : never }[keyof S]
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>
export type ObjectOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & {
  [K in OptionalKeys<S>]?: Exclude<Infer<S[K]>, undefined>
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`
}

/** A closed object: every field is checked, and a field the shape does not name is an error. */
export function object<S extends Shape>(shape: S): Rule<ObjectOf<S>> {
  const keys = Object.keys(shape)
  const required = keys.filter((key) => !shape[key]!.optional)
  return {
    schema: {
      type: 'object',
      properties: Object.fromEntries(keys.map((key) => [key, shape[key]!.schema])),
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    check(value, path, issues, without) {
      if (!isPlainObject(value)) return push(issues, path, `must be an object, not ${describe(value)}`)
      for (const key of keys) {
        const rule = shape[key]!
        if (!Object.hasOwn(value, key)) {
          if (!rule.optional) push(issues, join(path, key), 'is required')
          continue
        }
        rule.check(value[key], join(path, key), issues)
      }
      for (const key of Object.keys(value)) {
        if (key !== without && !Object.hasOwn(shape, key)) push(issues, join(path, key), 'is not an allowed field')
      }
    },
  }
}

/** An object used as a map from string keys to values of one rule. */
export function record<T>(key: Rule<string>, item: Rule<T>, options: { maxEntries: number }): Rule<Record<string, T>> {
  return {
    schema: {
      type: 'object',
      propertyNames: key.schema,
      additionalProperties: item.schema,
      maxProperties: options.maxEntries,
    },
    check(value, path, issues) {
      if (!isPlainObject(value)) return push(issues, path, `must be an object, not ${describe(value)}`)
      const entries = Object.entries(value)
      if (entries.length > options.maxEntries) {
        return push(issues, path, `must have at most ${options.maxEntries} entries (got ${entries.length})`)
      }
      for (const [k, v] of entries) {
        const before = issues.length
        key.check(k, join(path, k), issues)
        // Name the key's problem as a key problem, not as a value problem.
        for (let i = before; i < issues.length; i++) issues[i]!.message = `key ${issues[i]!.message}`
        item.check(v, join(path, k), issues)
      }
    },
  }
}

type Variants = Record<string, Rule<object>>
type TaggedOf<V extends Variants, D extends string> = { [K in keyof V]: { [P in D]: K } & Infer<V[K]> }[keyof V]

/**
 * A rule that picks one of `variants` by the string field `discriminator`, then checks the value
 * with it: without the discriminator (`strip`), or whole.
 */
function discriminated(discriminator: string, variants: Variants, strip: boolean): Rule<object> {
  const names = Object.keys(variants)
  // Each variant with its discriminator's one value: stripped variants do not name it themselves.
  const variantSchema = (name: string): JsonSchema => {
    const schema = variants[name]!.schema
    if (!strip) return schema
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
    return {
      ...schema,
      properties: { [discriminator]: { const: name }, ...properties },
      required: [discriminator, ...((schema.required ?? []) as string[])],
    }
  }
  return {
    schema: { oneOf: names.map(variantSchema) },
    check(value, path, issues) {
      if (!isPlainObject(value)) return push(issues, path, `must be an object, not ${describe(value)}`)
      const tag = value[discriminator]
      const variant = typeof tag === 'string' && Object.hasOwn(variants, tag) ? variants[tag]! : undefined
      if (!variant)
        return push(
          issues,
          join(path, discriminator),
          `must be one of ${names.map((n) => JSON.stringify(n)).join(', ')}`,
        )
      // A stripped variant checks the value as it is, told that the discriminator is not its own field.
      variant.check(value, path, issues, strip ? discriminator : undefined)
    },
  }
}

/** A union of closed objects told apart by a string field (the discriminator). */
export function tagged<const D extends string, V extends Variants>(
  discriminator: D,
  variants: V,
): Rule<TaggedOf<V, D>> {
  return discriminated(discriminator, variants, true) as Rule<TaggedOf<V, D>>
}

/** A union of whole rules (each checking the discriminator itself), chosen by the discriminator. */
export function union<V extends Variants>(discriminator: string, variants: V): Rule<Infer<V[keyof V]>> {
  return discriminated(discriminator, variants, false) as Rule<Infer<V[keyof V]>>
}

/**
 * Adds a rule the shape cannot say (check digits, capacities, decodability). `extra` runs only when
 * the base rule passed, and returns a message, or a list of path/message pairs, or nothing.
 */
export function refine<T>(base: Rule<T>, extra: (value: T) => string | Issue[] | undefined): Rule<T> {
  return {
    optional: base.optional,
    schema: base.schema,
    check(value, path, issues, without) {
      const before = issues.length
      base.check(value, path, issues, without)
      if (issues.length !== before) return
      const found = extra(value as T)
      if (typeof found === 'string') push(issues, path, found)
      else
        for (const issue of found ?? []) push(issues, issue.path === '' ? path : join(path, issue.path), issue.message)
    },
  }
}
