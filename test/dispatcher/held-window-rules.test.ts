// The window's own rules (src/dispatcher/held-window.ts), with the count of held jobs given by the
// test: when the count is read (only once the room it gave is used up, never for a printer found
// full), when a full printer may take jobs again (after a tenth of its window has left, or when the
// sweep reads it again), and that printers do not share a window. End to end: held-window.test.ts.
import { describe, expect, test } from 'bun:test'
import { HELD_PER_PRINTER, HeldWindow } from '../../src/dispatcher/held-window.ts'

/** A window over counts the test sets, which records each read. */
function windowOver(held: Map<string, number>) {
  const reads: string[] = []
  const window = new HeldWindow((printerId, atMost) => {
    reads.push(printerId)
    return Math.min(held.get(printerId) ?? 0, atMost)
  })
  return { window, reads }
}

describe("the window of jobs a printer's agent holds", () => {
  test('the count is read once for the room it gives, then again when that room is used up', () => {
    const held = new Map([['p1', 990]])
    const { window, reads } = windowOver(held)
    for (let i = 0; i < 10; i++) expect(window.take('p1')).toBe(true)
    expect(reads).toEqual(['p1'])
    // Ten more went; the agent has printed 500 meanwhile: the next read says so.
    held.set('p1', 500)
    expect(window.take('p1')).toBe(true)
    expect(reads).toEqual(['p1', 'p1'])
    for (let i = 0; i < 499; i++) expect(window.take('p1')).toBe(true)
    expect(reads).toHaveLength(2)
  })

  test('a full printer takes nothing and is not counted again until a tenth of its window has left', () => {
    const held = new Map([['p1', HELD_PER_PRINTER]])
    const { window, reads } = windowOver(held)
    expect(window.take('p1')).toBe(false)
    expect(window.take('p1')).toBe(false)
    expect(reads).toEqual(['p1'])
    held.set('p1', HELD_PER_PRINTER - HELD_PER_PRINTER / 10)
    for (let i = 1; i < HELD_PER_PRINTER / 10; i++) expect(window.left('p1')).toBe(false)
    expect(window.take('p1')).toBe(false)
    expect(reads).toEqual(['p1'])
    // The hundredth: the printer may take jobs again, as many as have left.
    expect(window.left('p1')).toBe(true)
    for (let i = 0; i < HELD_PER_PRINTER / 10; i++) expect(window.take('p1')).toBe(true)
    held.set('p1', HELD_PER_PRINTER)
    expect(window.take('p1')).toBe(false)
    expect(reads).toEqual(['p1', 'p1', 'p1'])
  })

  test('the sweep reads every full printer again, whatever left it without a report', () => {
    const held = new Map([
      ['p1', HELD_PER_PRINTER],
      ['p2', HELD_PER_PRINTER],
      ['p3', 0],
    ])
    const { window } = windowOver(held)
    expect(window.take('p1')).toBe(false)
    expect(window.take('p2')).toBe(false)
    expect(window.take('p3')).toBe(true)
    expect(window.readAgain().sort()).toEqual(['p1', 'p2'])
    expect(window.readAgain()).toEqual([])
    held.set('p1', HELD_PER_PRINTER - 1)
    expect(window.take('p1')).toBe(true)
    held.set('p1', HELD_PER_PRINTER)
    expect(window.take('p1')).toBe(false)
    expect(window.take('p2')).toBe(false)
  })

  test('a job leaving a printer that is not full changes nothing, and printers do not share a window', () => {
    const held = new Map([
      ['p1', HELD_PER_PRINTER],
      ['p2', 0],
    ])
    const { window, reads } = windowOver(held)
    expect(window.left('p2')).toBe(false)
    expect(window.take('p1')).toBe(false)
    for (let i = 0; i < HELD_PER_PRINTER; i++) expect(window.take('p2')).toBe(true)
    expect(window.take('p2')).toBe(true)
    expect(reads).toEqual(['p1', 'p2', 'p2'])
  })
})
