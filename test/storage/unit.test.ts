// Units of work: one piece of code, run at once on synchronous repositories (straight through when they answer at
// once) and awaited on asynchronous ones, with the same answers, the same exceptions caught where the unit catches
// them, and a clear error for a call no repository has.
import { describe, expect, test } from 'bun:test'
import { answeringAtOnce, runAwaiting, runNow, type Unit, type UnitStore, unitStore } from '../../src/storage/unit.ts'

interface Counters {
  get(name: string): number | undefined
  add(name: string, by: number): number
}
interface Repositories {
  counters: Counters
}

class SyncCounters implements Counters {
  readonly values = new Map<string, number>()
  get(name: string) {
    return this.values.get(name)
  }
  add(name: string, by: number) {
    if (by < 0) throw new RangeError(`cannot add ${by}`)
    const value = (this.values.get(name) ?? 0) + by
    this.values.set(name, value)
    return value
  }
}

/** The same, answering later, as a database's client does. */
class AsyncCounters {
  constructor(private readonly inner = new SyncCounters()) {}
  async get(name: string) {
    await Bun.sleep(0)
    return this.inner.get(name)
  }
  async add(name: string, by: number) {
    await Bun.sleep(0)
    return this.inner.add(name, by)
  }
}

const db = unitStore<Repositories>()

/** Adds `by` to two counters; a refused addition is said, not thrown. */
function* addBoth(by: number): Unit<{ a: number; b: number } | 'refused'> {
  try {
    const a = yield* db.counters.add('a', by)
    const b = yield* db.counters.add('b', by)
    return { a, b }
  } catch (error) {
    if (error instanceof RangeError) return 'refused'
    throw error
  }
}

describe('units of work', () => {
  test('run at once on synchronous repositories: the answer, not a promise', () => {
    const counters = new SyncCounters()
    expect(runNow(addBoth(2), { counters })).toEqual({ a: 2, b: 2 })
    expect(runNow(addBoth(3), { counters })).toEqual({ a: 5, b: 5 })
    expect(runNow(db.counters.get('a'), { counters })).toBe(5)
  })

  test('awaited on asynchronous repositories, with the same answers', async () => {
    const counters = new AsyncCounters()
    expect(await runAwaiting(addBoth(2), { counters })).toEqual({ a: 2, b: 2 })
    expect(await runAwaiting(addBoth(3), { counters })).toEqual({ a: 5, b: 5 })
  })

  test("a call's exception reaches the unit, which may catch it; else it reaches the caller", async () => {
    expect(runNow(addBoth(-1), { counters: new SyncCounters() })).toBe('refused')
    expect(await runAwaiting(addBoth(-1), { counters: new AsyncCounters() })).toBe('refused')
    expect(() => runNow(db.counters.add('a', -1), { counters: new SyncCounters() })).toThrow(RangeError)
    await expect(runAwaiting(db.counters.add('a', -1), { counters: new AsyncCounters() })).rejects.toThrow(RangeError)
  })

  test('a call no repository has is a clear error', () => {
    const wrong = unitStore<{ counters: Counters; missing: Counters }>()
    expect(() => runNow(wrong.missing.get('a'), { counters: new SyncCounters() })).toThrow(
      'the store has no missing.get',
    )
  })

  test('on a store that answers at once, a unit runs straight through: the same answers, never suspended', () => {
    /** The same as addBoth, given its store. */
    function* addBothOn(store: UnitStore<Repositories>, by: number): Unit<{ a: number; b: number } | 'refused'> {
      try {
        const a = yield* store.counters.add('a', by)
        const b = yield* store.counters.add('b', by)
        return { a, b }
      } catch (error) {
        if (error instanceof RangeError) return 'refused'
        throw error
      }
    }
    const counters = new SyncCounters()
    const atOnce = answeringAtOnce<Repositories>({ counters })
    const unit = addBothOn(atOnce, 2)
    // One step ends it: no call was yielded to a runner.
    expect(unit.next()).toEqual({ done: true, value: { a: 2, b: 2 } })
    expect(runNow(addBothOn(atOnce, 3), {})).toEqual({ a: 5, b: 5 })
    expect(runNow(addBothOn(atOnce, -1), {})).toBe('refused')
    expect(counters.values).toEqual(
      new Map([
        ['a', 5],
        ['b', 5],
      ]),
    )
    const wrong = answeringAtOnce<{ counters: Counters; missing: Counters }>({ counters })
    expect(() => runNow(wrong.missing.get('a'), {})).toThrow('the store has no missing')
    expect(() => runNow((wrong.counters as unknown as { nothing(): Unit<void> }).nothing(), {})).toThrow(
      'the store has no counters.nothing',
    )
  })
})
