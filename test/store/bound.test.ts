// Bound values compared with `=` in a statement that orders or joins are written with bound()
// (src/sqlite/bound.ts), so SQLite plans such a statement once instead of on every run; and the
// comparison finds the same rows, along the same index, as a bare parameter would.
import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { bound } from '../../src/sqlite/bound.ts'

const SRC = join(import.meta.dir, '../../src')

/** Every string literal of the TypeScript source (template literals with their `${…}` as written). */
const LITERAL = /`(?:[^`\\]|\\.)*`|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g
/** `= ?`, `= ?2`, `= $name` (not `<=`, `>=` or `!=`: the planner looks only at equality). */
const BARE_EQUALITY = /(?<![<>!=])==?\s*(\?\d*|[$:@][A-Za-z_]\w*)(?!\w)/
const ORDERS_OR_JOINS = /\bORDER\s+BY\b|\bJOIN\b/i
const STATEMENT = /^.\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\b/i

/**
 * The places that compare a bare parameter where it costs a new plan on each run: a whole
 * statement that orders or joins, or a piece of a condition in a file whose statements order
 * (pieces are put together into such statements: store/job-pages.ts).
 */
function bareComparisons(): string[] {
  const found: string[] = []
  for (const file of new Bun.Glob('**/*.ts').scanSync(SRC)) {
    const source = readFileSync(join(SRC, file), 'utf8')
    const literals = [...source.matchAll(LITERAL)]
    const fileOrders = literals.some((literal) => ORDERS_OR_JOINS.test(literal[0]))
    for (const literal of literals) {
      const text = literal[0]
      if (!BARE_EQUALITY.test(text)) continue
      const isStatement = STATEMENT.test(text)
      if (isStatement ? ORDERS_OR_JOINS.test(text) : fileOrders) {
        found.push(
          `src/${file}:${source.slice(0, literal.index).split('\n').length}: ` +
            `${text.replace(/\s+/g, ' ').slice(0, 120)}`,
        )
      }
    }
  }
  return found
}

describe('bound values', () => {
  test('no statement that orders or joins compares a bare parameter', () => {
    expect(bareComparisons()).toEqual([])
  })

  test('the check finds a bare parameter in a statement, and in a piece of one', () => {
    const statement = "'SELECT * FROM t WHERE a = ? ORDER BY b'"
    const piece = "'a = $name'"
    for (const text of [statement, piece, "'x == ?2 JOIN'"]) expect(BARE_EQUALITY.test(text)).toBe(true)
    for (const text of ["'a <= ?'", "'a >= ?'", "'a != ?'", `'a = ${bound()}'`])
      expect(BARE_EQUALITY.test(text)).toBe(false)
  })

  test('a bound value finds the same rows as a bare parameter, along the same index', () => {
    const db = new Database(':memory:', { strict: true })
    db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, hash BLOB)')
    db.run('CREATE INDEX t_name ON t (name, id)')
    db.run('CREATE INDEX t_n ON t (n, id)')
    db.run('CREATE INDEX t_hash ON t (hash, id)')
    const insert = db.prepare('INSERT INTO t (name, n, hash) VALUES (?, ?, ?)')
    for (let i = 0; i < 50; i++) insert.run(i % 5 === 0 ? null : `name-${i % 7}`, i % 3, new Uint8Array([i % 4, 1]))
    const cases: [
      column: string,
      type: 'TEXT' | 'INTEGER' | 'BLOB',
      values: (string | number | Uint8Array | null)[],
    ][] = [
      ['name', 'TEXT', ['name-3', 'name-0', 'absent', '', null]],
      ['n', 'INTEGER', [0, 1, 2, 7, null]],
      ['hash', 'BLOB', [new Uint8Array([2, 1]), new Uint8Array([9]), null]],
    ]
    for (const [column, type, values] of cases) {
      const bare = db.query<{ id: number }, [string | number | Uint8Array | null]>(
        `SELECT id FROM t WHERE ${column} = ? ORDER BY id DESC LIMIT 20`,
      )
      const wrapped = db.query<{ id: number }, [string | number | Uint8Array | null]>(
        `SELECT id FROM t WHERE ${column} = ${bound('?', type)} ORDER BY id DESC LIMIT 20`,
      )
      for (const value of values) expect(wrapped.all(value)).toEqual(bare.all(value))
      const plan = db
        .query<{ detail: string }, [string | number | Uint8Array | null]>(
          `EXPLAIN QUERY PLAN SELECT id FROM t WHERE ${column} = ${bound('?', type)} ORDER BY id DESC LIMIT 20`,
        )
        .all(values[0]!)
      expect(plan.map((step) => step.detail)).toEqual([`SEARCH t USING COVERING INDEX t_${column} (${column}=?)`])
    }
    // Numbered and named parameters too.
    expect(
      db
        .query<{ n: number }, [string]>(
          `SELECT count(*) AS n FROM t WHERE name = ${bound('?1')} OR name = ${bound('?1')}`,
        )
        .get('name-3')!.n,
    ).toBe(db.query<{ n: number }, [string]>('SELECT count(*) AS n FROM t WHERE name = ?').get('name-3')!.n)
    expect(
      db
        .query<{ n: number }, { name: string }>(`SELECT count(*) AS n FROM t WHERE name = ${bound('$name')}`)
        .get({ name: 'name-3' })!.n,
    ).toBeGreaterThan(0)
    db.close()
  })
})
