// A bound value compared with `=`, written so that SQLite plans its statement once.
//
// Since SQLite 3.54 the planner, for a `column = ?` term of a statement that orders or joins, asks
// whether the value bound there is 0 or 1 (to guess how many rows a flag column leaves), and marks
// the statement to be planned again should that change. Clearing the bindings counts as a change,
// and bun:sqlite clears them before each run: every run of such a statement was parsed and planned
// anew, 3 µs in a loop and 20-25 µs in a busy hub for the head of a printer's queue (2 to 3 % of a
// job's time); a page of jobs or events paid it too, little beside reading the page. A parameter
// inside a CAST is no longer a bare parameter, so the plan stays; the index is used for it as
// before, and the comparison is the same for the values the callers bind (text for text columns,
// integers for integer ones).
// test/store/bound.test.ts finds the statements that compare a bare parameter.

export type BoundType = 'TEXT' | 'INTEGER' | 'BLOB'

/** `parameter` (`?`, `?2` or `$name`) as a value of `type`, for the right side of `column = …`. */
export function bound(parameter = '?', type: BoundType = 'TEXT'): string {
  return `CAST(${parameter} AS ${type})`
}
