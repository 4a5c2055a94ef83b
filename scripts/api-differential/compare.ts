// The API differential's comparison of two recordings: every difference as its request, the JSON path in the
// recorded entry and both values; those a file of known differences lists apart, as expected.
import { readFileSync } from 'node:fs'
import type { Entry } from './hub.ts'

export interface Difference {
  index: number
  method: string
  path: string
  /** Where in the recorded entry: `$.status`, `$.headers.content-type`, `$.body.job.state`, … */
  at: string
  base: unknown
  current: unknown
  /** The line of the file of known differences that lists it. */
  expected?: string
}

/** A known difference: method, path and JSON path as glob patterns (`*` any characters), and why. */
interface Expectation {
  method: RegExp
  path: RegExp
  at: RegExp
  line: string
}

const ABSENT = '(absent)'

const glob = (pattern: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*')}$`)

/** Lines `METHOD PATH JSONPATH reason…`; blank lines and lines starting with # are left out. */
export function readExpectations(file: string): Expectation[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [method = '', path = '', at = ''] = line.split(/\s+/)
      return { method: glob(method), path: glob(path), at: glob(at), line }
    })
}

/**
 * Pairs of indices of the longest common subsequence of two arrays (elements compared as JSON): what lies between
 * two pairs was taken out of the first or put into the second.
 */
function commonPairs(a: unknown[], b: unknown[]): [number, number][] {
  const x = a.map((item) => JSON.stringify(item))
  const y = b.map((item) => JSON.stringify(item))
  if (x.length * y.length > 4_000_000) return x.map((_, i) => [i, i] as [number, number]).filter(([i]) => i < y.length)
  const lengths = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1))
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      lengths[i]![j] = x[i] === y[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!)
  const pairs: [number, number][] = []
  for (let i = 0, j = 0; i < x.length && j < y.length; ) {
    if (x[i] === y[j]) pairs.push([i++, j++])
    else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) i++
    else j++
  }
  return pairs
}

type Found = [string, unknown, unknown][]

/**
 * Two arrays' differences: aligned on what they have in common, so that an element put in or taken out is said
 * once rather than as a change of every element after it. Between two common elements, as many taken out as put in
 * are compared one by one; the rest are said as there on one side only.
 */
function arrayDifferences(a: unknown[], b: unknown[], at: string, found: Found): void {
  let i = 0
  let j = 0
  for (const [nextI, nextJ] of [...commonPairs(a, b), [a.length, b.length] as [number, number]]) {
    const paired = Math.min(nextI - i, nextJ - j)
    for (let k = 0; k < paired; k++) differences(a[i + k], b[j + k], `${at}[${i + k}]`, found)
    for (let k = i + paired; k < nextI; k++) found.push([`${at}[${k}]`, a[k], ABSENT])
    for (let k = j + paired; k < nextJ; k++) found.push([`${at}[${k}]`, ABSENT, b[k]])
    i = nextI + 1
    j = nextJ + 1
  }
}

function differences(base: unknown, current: unknown, at: string, found: Found): void {
  if (Object.is(base, current)) return
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value)
  if (Array.isArray(base) && Array.isArray(current)) return arrayDifferences(base, current, at, found)
  if (isObject(base) && isObject(current)) {
    const a = base as Record<string, unknown>
    const b = current as Record<string, unknown>
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    for (const key of keys) {
      const path = /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`
      differences(key in a ? a[key] : ABSENT, key in b ? b[key] : ABSENT, path, found)
    }
    // The same fields in another order are other bytes.
    const common = (keys: string[], other: Record<string, unknown>) => keys.filter((key) => key in other)
    const order = [common(Object.keys(a), b), common(Object.keys(b), a)]
    if (order[0]!.join() !== order[1]!.join()) found.push([`${at} (order of fields)`, order[0], order[1]])
    return
  }
  found.push([at, base, current])
}

/** Every difference between two recordings, entry by entry. */
export function compare(base: Entry[], current: Entry[], expectations: Expectation[]): Difference[] {
  const out: Difference[] = []
  for (let i = 0; i < Math.max(base.length, current.length); i++) {
    const a = base[i]
    const b = current[i]
    const entry = (b ?? a)!
    const found: Found = []
    if (!a || !b) found.push(['$', a ?? ABSENT, b ?? ABSENT])
    else {
      const { index: _a, ...left } = a
      const { index: _b, ...right } = b
      differences(left, right, '$', found)
    }
    for (const [at, baseValue, currentValue] of found) {
      const expected = expectations.find(
        (e) => e.method.test(entry.method) && e.path.test(entry.path) && e.at.test(at),
      )?.line
      out.push({
        index: i,
        method: entry.method,
        path: entry.path,
        at,
        base: baseValue,
        current: currentValue,
        expected,
      })
    }
  }
  return out
}

const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}

export const describe = (d: Difference) =>
  `#${d.index} ${d.method} ${d.path} ${d.at}: ${shown(d.base)} vs ${shown(d.current)}`

/** Prints the differences (unexpected ones, then expected ones) and the summary; the number of entries that differ. */
export function report(differences: Difference[], entries: number): number {
  const unexpected = differences.filter((d) => d.expected === undefined)
  const expected = differences.filter((d) => d.expected !== undefined)
  for (const d of unexpected) console.log(describe(d))
  if (expected.length > 0) {
    console.log(`\nexpected (${expected.length}):`)
    for (const d of expected) console.log(`  ${describe(d)}  [${d.expected}]`)
  }
  const differ = new Set(unexpected.map((d) => d.index))
  const onlyExpected = new Set(expected.map((d) => d.index).filter((index) => !differ.has(index)))
  if (expected.length > 0) console.log(`${onlyExpected.size} more requests differ only as expected`)
  console.log(`${entries} requests, ${differ.size} differ`)
  return differ.size
}
