// The map that keeps what spares work (a receipt's image, a new job's document as submitted): bounded
// in entries and in bytes, the oldest set going first, the most recently touched kept longest.
import { expect, test } from 'bun:test'
import { BoundedMap } from '../../src/platform/bounded-map.ts'

test('past its number of entries, the oldest set goes first', () => {
  const map = new BoundedMap<string, number>(2, 1_000)
  map.set('a', 1, 10)
  map.set('b', 2, 10)
  map.set('c', 3, 10)
  expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([undefined, 2, 3])
  expect([map.size, map.bytes]).toEqual([2, 20])
})

test('past its bytes, as many of the oldest go as make room; one larger than the whole budget is not kept', () => {
  const map = new BoundedMap<string, number>(100, 100)
  map.set('a', 1, 40)
  map.set('b', 2, 40)
  map.set('c', 3, 50)
  // 'a' going makes room for 'c': 'b' stays.
  expect([map.get('a'), map.get('b'), map.get('c'), map.bytes]).toEqual([undefined, 2, 3, 90])
  map.set('d', 4, 100)
  expect([map.get('b'), map.get('c'), map.get('d'), map.bytes]).toEqual([undefined, undefined, 4, 100])
  map.set('huge', 5, 101)
  expect([map.get('huge'), map.get('d'), map.bytes]).toEqual([undefined, 4, 100])
})

test('setting a key again replaces it and counts its bytes once', () => {
  const map = new BoundedMap<string, number>(10, 100)
  map.set('a', 1, 60)
  map.set('a', 2, 70)
  expect([map.get('a'), map.size, map.bytes]).toEqual([2, 1, 70])
})

test('take gives the entry and forgets it; touch makes it the newest', () => {
  const map = new BoundedMap<string, number>(2, 1_000)
  map.set('a', 1, 10)
  map.set('b', 2, 10)
  expect(map.touch('a')).toBe(1)
  map.set('c', 3, 10)
  expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([1, undefined, 3])
  expect(map.take('a')).toBe(1)
  expect([map.take('a'), map.size, map.bytes]).toEqual([undefined, 1, 10])
  expect(map.touch('nothing')).toBeUndefined()
})
