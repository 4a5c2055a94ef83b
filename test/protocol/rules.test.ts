// The rules' tagged unions: a variant checks the value itself (not a copy without its
// discriminator), told that the discriminator is not one of its fields; any other field it does
// not name is still refused, at its path, and wrapping a variant (in refinements) changes none of it.
import { expect, test } from 'bun:test'
import { integer, object, oneOf, refine, string, tagged, union, validate } from '../../src/protocol/rules.ts'

const seen: unknown[] = []
const shape = tagged('kind', {
  plain: object({ name: string({ max: 10 }) }),
  refined: refine(object({ count: integer({ min: 0, max: 9 }) }), (value) => {
    seen.push(value)
    return value.count === 7 ? 'must not be 7' : undefined
  }),
  wrapped: refine(
    refine(object({ flag: oneOf(['on', 'off']) }), () => undefined),
    () => undefined,
  ),
})

test('a variant checks the value as it is, its discriminator not counted as a field of its own', () => {
  seen.length = 0
  const values: unknown[] = [
    { kind: 'plain', name: 'a' },
    { kind: 'refined', count: 3 },
    { kind: 'wrapped', flag: 'on' },
  ]
  for (const value of values) expect(validate(shape, value)).toEqual({ ok: true, value } as never)
  const refined = { kind: 'refined', count: 3 }
  validate(shape, refined)
  // The refinement saw the very object, with its discriminator: nothing was copied.
  expect(seen.at(-1)).toBe(refined)
  expect(validate(shape, { kind: 'refined', count: 7 })).toEqual({
    ok: false,
    issues: [{ path: '', message: 'must not be 7' }],
  })
})

test('any other field is refused at its path, through every wrapping, in an array too', () => {
  expect(validate(shape, { kind: 'plain', name: 'a', extra: 1 })).toEqual({
    ok: false,
    issues: [{ path: 'extra', message: 'is not an allowed field' }],
  })
  expect(validate(shape, { kind: 'refined', count: 1, extra: 1 })).toEqual({
    ok: false,
    issues: [{ path: 'extra', message: 'is not an allowed field' }],
  })
  expect(validate(shape, { kind: 'wrapped', flag: 'on', extra: 1 })).toEqual({
    ok: false,
    issues: [{ path: 'extra', message: 'is not an allowed field' }],
  })
  expect(validate(shape, { kind: 'nope' })).toEqual({
    ok: false,
    issues: [{ path: 'kind', message: 'must be one of "plain", "refined", "wrapped"' }],
  })
  // The discriminator of one union is a field like any other to an object inside a variant.
  const outer = object({ inner: shape })
  expect(validate(outer, { inner: { kind: 'plain', name: 'a' }, kind: 'plain' })).toEqual({
    ok: false,
    issues: [{ path: 'kind', message: 'is not an allowed field' }],
  })
  expect(
    validate(object({ inner: object({ name: string({ max: 5 }) }) }), { inner: { name: 'a', kind: 'x' } }),
  ).toEqual({ ok: false, issues: [{ path: 'inner.kind', message: 'is not an allowed field' }] })
})

test('a union of whole rules checks its discriminator in the variant itself', () => {
  const whole = union('kind', { a: object({ kind: oneOf(['a']), n: integer({ min: 0, max: 1 }) }) })
  expect(validate(whole, { kind: 'a', n: 1 }).ok).toBe(true)
  expect(validate(whole, { kind: 'a', n: 1, more: true })).toEqual({
    ok: false,
    issues: [{ path: 'more', message: 'is not an allowed field' }],
  })
})
