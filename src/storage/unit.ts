// Units of work: an operation's reads and writes of the store, written once for both stores (docs/decisions.md, "One
// operation, two stores"). A unit is a generator that asks the store for each call with `yield*`
// (`const project = yield* db.projects.get(id)`); each store runs it its own way: SQLite at once, synchronously, inside
// its group commit's transaction (runNow), PostgreSQL inside one transaction, awaiting each statement (runAwaiting).
// A call names a repository of the store, one of its methods and the arguments; the answer is the method's.

/** One call a unit asks of the store. */
export interface StoreCall {
  readonly repository: string
  readonly method: string
  readonly args: readonly unknown[]
}

/** A unit of work that ends with a T. */
export type Unit<T> = Generator<StoreCall, T, unknown>

/** A repository's methods as calls a unit makes: each gives what the method gives, awaited. */
export type UnitsOf<R> = {
  [M in keyof R]: R[M] extends (...args: infer A) => infer T ? (...args: A) => Unit<Awaited<T>> : never
}

/** A store's repositories as units see them. */
export type UnitStore<Repositories> = { readonly [K in keyof Repositories]: UnitsOf<Repositories[K]> }

/** The calls of `repository.method`: a unit that asks for it and returns the answer. */
function* call(repository: string, method: string, args: readonly unknown[]): Unit<unknown> {
  return yield { repository, method, args }
}

/**
 * The repositories as units ask for them: `db.projects.get(id)` is the unit that calls `get(id)` of the store's
 * `projects`, whichever store runs it. Holds nothing: one object serves every unit.
 */
export function unitStore<Repositories>(): UnitStore<Repositories> {
  const repositories = new Map<string, object>()
  return new Proxy({} as UnitStore<Repositories>, {
    get(_, repository) {
      if (typeof repository !== 'string') return undefined
      let methods = repositories.get(repository)
      if (!methods) {
        const made = new Map<string, (...args: unknown[]) => Unit<unknown>>()
        methods = new Proxy(
          {},
          {
            get(__, method) {
              if (typeof method !== 'string') return undefined
              let calls = made.get(method)
              if (!calls) made.set(method, (calls = (...args: unknown[]) => call(repository, method, args)))
              return calls
            },
          },
        )
        repositories.set(repository, methods)
      }
      return methods
    },
  })
}

/** Calls the method a call names on its repository; throws when the store has none such (a unit's mistake). */
function perform(repositories: object, { repository, method, args }: StoreCall): unknown {
  const target = (repositories as Record<string, Record<string, unknown> | undefined>)[repository]
  const found = target?.[method]
  if (typeof found !== 'function') throw new TypeError(`the store has no ${repository}.${method}`)
  return (found as (...args: readonly unknown[]) => unknown).apply(target, args as unknown[])
}

/** An answer given at once: `yield*` takes it without suspending the unit. */
class Answered<T> {
  constructor(private readonly value: T) {}

  [Symbol.iterator](): this {
    return this
  }

  next(): IteratorReturnResult<T> {
    return { done: true, value: this.value }
  }
}

/**
 * The repositories as units ask for them, for a store that answers at once (SQLite's): each call is made when the
 * unit makes it and its answer given back without suspending the unit, so a unit runs straight through, as the
 * code it replaced did (no step through runNow for each call). A call that throws, throws where the unit made it.
 */
export function answeringAtOnce<Repositories>(repositories: object): UnitStore<Repositories> {
  const wrapped = new Map<string, object>()
  return new Proxy({} as UnitStore<Repositories>, {
    get(_, repository) {
      if (typeof repository !== 'string') return undefined
      let methods = wrapped.get(repository)
      if (!methods) {
        const target = (repositories as Record<string, Record<string, unknown> | undefined>)[repository]
        if (!target) throw new TypeError(`the store has no ${repository}`)
        const made = new Map<string, (...args: unknown[]) => unknown>()
        methods = new Proxy(
          {},
          {
            get(__, method) {
              if (typeof method !== 'string') return undefined
              let calls = made.get(method)
              if (!calls) {
                const found = target[method]
                if (typeof found !== 'function') throw new TypeError(`the store has no ${repository}.${method}`)
                const bound = found.bind(target) as (...args: unknown[]) => unknown
                made.set(method, (calls = (...args: unknown[]) => new Answered(bound(...args))))
              }
              return calls
            },
          },
        )
        wrapped.set(repository, methods)
      }
      return methods
    },
  })
}

/**
 * Runs a unit at once against synchronous repositories (SQLite's), and returns its result. An exception a call
 * throws is thrown into the unit, which may catch it.
 */
export function runNow<T>(unit: Unit<T>, repositories: object): T {
  let step = unit.next()
  while (!step.done) {
    let answer: unknown
    try {
      answer = perform(repositories, step.value)
    } catch (error) {
      step = unit.throw(error)
      continue
    }
    step = unit.next(answer)
  }
  return step.value
}

/**
 * Runs a unit against asynchronous repositories (PostgreSQL's, within one transaction), awaiting each call; a
 * rejected call is thrown into the unit, which may catch it.
 */
export async function runAwaiting<T>(unit: Unit<T>, repositories: object): Promise<T> {
  let step = unit.next()
  while (!step.done) {
    let answer: unknown
    try {
      answer = await perform(repositories, step.value)
    } catch (error) {
      step = unit.throw(error)
      continue
    }
    step = unit.next(answer)
  }
  return step.value
}
