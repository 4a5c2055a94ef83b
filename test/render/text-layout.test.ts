import { describe, expect, test } from 'bun:test'
import { layoutRow, wrapText } from '../../src/render/text-layout.ts'

describe('wrapText', () => {
  test('packs words greedily with single spaces', () => {
    expect(wrapText('the quick brown fox jumps', 10)).toEqual(['the quick', 'brown fox', 'jumps'])
    expect(wrapText('  spaced \t out\r  ', 32)).toEqual(['spaced out'])
    expect(wrapText('exactly ten', 11)).toEqual(['exactly ten'])
  })

  test('an empty line stays an empty line', () => {
    expect(wrapText('', 32)).toEqual([''])
    expect(wrapText('a\n\nb', 32)).toEqual(['a', '', 'b'])
    expect(wrapText('   ', 32)).toEqual([''])
    expect(wrapText('a\r\nb\n', 32)).toEqual(['a', 'b', ''])
  })

  test('breaks a word longer than the line, and packs what follows after its tail', () => {
    expect(wrapText('abcdefghijklmnopqrstuvwxyz', 10)).toEqual(['abcdefghij', 'klmnopqrst', 'uvwxyz'])
    expect(wrapText('hi abcdefghijklmno yo', 10)).toEqual(['hi', 'abcdefghij', 'klmno yo'])
    expect(wrapText('abcdefghijklmnopqrst', 10)).toEqual(['abcdefghij', 'klmnopqrst'])
  })

  test('measures characters, not UTF-16 units, after composing accents', () => {
    expect(wrapText('éééé ü', 6)).toEqual(['éééé ü'])
    expect(wrapText('e\u0301te\u0301', 4)).toEqual(['été'])
    expect(wrapText('😀😀😀', 2)).toEqual(['😀😀', '😀'])
  })

  test('a no-break space keeps its words together', () => {
    expect(wrapText('pay 4,50\u00a0€ now', 9)).toEqual(['pay', '4,50\u00a0€', 'now'])
  })
})

describe('layoutRow', () => {
  test('one line when left, a space and right fit', () => {
    expect(layoutRow('Flat white', '3.50', 32)).toEqual([`Flat white${' '.repeat(18)}3.50`])
    expect(layoutRow('a'.repeat(27), '3.50', 32)).toEqual([`${'a'.repeat(27)} 3.50`])
    expect(layoutRow('Crème brûlée', '4,50 €', 32)).toEqual([`Crème brûlée${' '.repeat(14)}4,50 €`])
  })

  test('empty sides leave no trailing spaces', () => {
    expect(layoutRow('Notes', '', 32)).toEqual(['Notes'])
    expect(layoutRow('', '', 32)).toEqual([''])
    expect(layoutRow('', '9.99', 32)).toEqual([`${' '.repeat(28)}9.99`])
  })

  test('wraps the left side in 3/5 of the line and the right side in the rest', () => {
    expect(layoutRow('a'.repeat(28), '3.50', 32)).toEqual([`${'a'.repeat(19)}${' '.repeat(9)}3.50`, 'a'.repeat(9)])
    expect(layoutRow('Grilled halloumi with roasted', '3.50', 32)).toEqual([
      `Grilled halloumi${' '.repeat(12)}3.50`,
      'with roasted',
    ])
    expect(layoutRow('Total', 'Paid by card ending 4242 on 12 May', 32)).toEqual([
      `Total${' '.repeat(15)}Paid by card`,
      `${' '.repeat(21)}ending 4242`,
      `${' '.repeat(23)}on 12 May`,
    ])
  })

  test('uses 28 and 19 columns on 80 mm', () => {
    const [first, second] = layoutRow('x'.repeat(30), 'y'.repeat(20), 48)
    expect(first).toBe(`${'x'.repeat(28)} ${'y'.repeat(19)}`)
    expect(second).toBe(`xx${' '.repeat(45)}y`)
  })

  test('a side with several lines never shares one line', () => {
    expect(layoutRow('Soup of the day\nno croutons', '4.50', 32)).toEqual([
      `Soup of the day${' '.repeat(13)}4.50`,
      'no croutons',
    ])
  })

  test('never loses text', () => {
    const left = 'Extraordinarilylongdishnamewithoutspaces and a side of chips'
    const right = 'EUR 1234567890.00'
    const lines = layoutRow(left, right, 32)
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(32)
    const withoutSpaces = (text: string) => text.replaceAll(' ', '')
    expect(withoutSpaces(lines.map((line) => line.slice(0, 19)).join(''))).toBe(withoutSpaces(left))
    expect(lines.map((line) => line.slice(20).trim())).toEqual(['EUR', '1234567890.0', '0', ''])
    expect(withoutSpaces(lines.map((line) => line.slice(20)).join(''))).toBe(withoutSpaces(right))
  })
})
