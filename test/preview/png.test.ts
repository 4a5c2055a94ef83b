// The PNG view, decoded again with fast-png: one pixel per dot, the paper's width, text in
// Font A cells where its alignment puts it, bold darker, raster dots exactly where they print.
import { describe, expect, test } from 'bun:test'
import { decodeReceipt, MAX_PREVIEW_ROWS, receiptPng } from '../../src/preview/preview.ts'
import { bytes, drawn, ESC, escpos, GS, LF, pngDots } from './support.ts'

/** Black pixels in a rectangle of the picture: columns x0 to x1 and rows y0 to y1 (ends excluded), all by default. */
function blackIn(
  picture: ReturnType<typeof drawn>,
  {
    x0 = 0,
    x1 = picture.width,
    y0 = 0,
    y1 = picture.height,
  }: { x0?: number; x1?: number; y0?: number; y1?: number } = {},
): number {
  let count = 0
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (picture.black(x, y)) count++
  return count
}

/** The leftmost and rightmost columns with a black pixel. */
function inkColumns(picture: ReturnType<typeof drawn>): [number, number] {
  let left = Infinity
  let right = -Infinity
  for (let y = 0; y < picture.height; y++) {
    for (let x = 0; x < picture.width; x++) {
      if (!picture.black(x, y)) continue
      left = Math.min(left, x)
      right = Math.max(right, x)
    }
  }
  return [left, right]
}

describe('receiptPng', () => {
  test('is as wide as the paper, 30 dots a text line, white where nothing prints', () => {
    for (const dotsPerLine of [384, 576]) {
      const picture = drawn(
        decodeReceipt(bytes('A', LF, LF, 'B', LF), { dotsPerLine, commandSet: 'escpos' }),
        dotsPerLine,
      )
      expect(picture.width).toBe(dotsPerLine)
      expect(picture.height).toBe(90)
      expect(blackIn(picture, { x0: 0, x1: dotsPerLine, y0: 30, y1: 60 })).toBe(0)
      expect(blackIn(picture, { x0: 0, x1: 12, y0: 0, y1: 30 })).toBeGreaterThan(0)
    }
  })

  test('an empty receipt is one white row', () => {
    const picture = drawn(escpos())
    expect([picture.width, picture.height, blackIn(picture)]).toEqual([576, 1, 0])
  })

  test('a bold line has more black dots than the same line not bold', () => {
    const plain = blackIn(drawn(escpos('Total 12,50', LF)))
    const bold = blackIn(drawn(escpos(ESC, 'E', 1, 'Total 12,50', LF)))
    expect(plain).toBeGreaterThan(0)
    expect(bold).toBeGreaterThan(plain * 1.3)
  })

  test('text is placed by its alignment, 12 dots a character', () => {
    const [leftStart, leftEnd] = inkColumns(drawn(escpos('WWWW', LF)))
    expect(leftStart).toBeLessThan(12)
    expect(leftEnd).toBeLessThan(48)
    const [rightStart, rightEnd] = inkColumns(drawn(escpos(ESC, 'a', 2, 'WWWW', LF)))
    expect(rightStart).toBeGreaterThanOrEqual(576 - 48)
    expect(rightEnd).toBeGreaterThan(576 - 12)
    const [centreStart, centreEnd] = inkColumns(drawn(escpos(ESC, 'a', 1, 'WWWW', LF)))
    expect(centreStart).toBeGreaterThanOrEqual(264)
    expect(centreEnd).toBeLessThan(312)
  })

  test('a character the font lacks is drawn as a box, not left out', () => {
    // Every code page character is in the font; a receipt built by hand can hold one that is not.
    const picture = pngDots(
      receiptPng({ blocks: [{ kind: 'text', alignment: 'left', runs: [{ text: '\uE000', bold: false }] }] }, 576),
    )
    expect([picture.black(1, 4), picture.black(10, 25), picture.black(5, 4), picture.black(5, 14)]).toEqual([
      true,
      true,
      true,
      false,
    ])
  })

  test('raster dots print exactly where the image puts them, aligned', () => {
    const image = [GS, 'v', '0', 0, 2, 0, 2, 0, 0b1000_0000, 0b0000_0001, 0, 0b1000_0000] as const
    const left = drawn(escpos(...image))
    expect([left.height, blackIn(left)]).toEqual([2, 3])
    expect([left.black(0, 0), left.black(15, 0), left.black(8, 1)]).toEqual([true, true, true])
    const right = drawn(escpos(ESC, 'a', 2, ...image))
    expect([right.black(560, 0), right.black(575, 0), right.black(568, 1)]).toEqual([true, true, true])
  })

  test('a QR code is its modules at the module size, with a white quiet zone, centred', () => {
    const data = bytes('hello')
    const length = data.length + 3
    const picture = drawn(
      escpos(
        ESC,
        'a',
        1,
        GS,
        '(',
        'k',
        3,
        0,
        49,
        67,
        4,
        GS,
        '(',
        'k',
        length,
        0,
        49,
        80,
        48,
        data,
        GS,
        '(',
        'k',
        3,
        0,
        49,
        81,
        48,
      ),
    )
    // Version 1 at level L: 21 modules, and 4 of quiet zone each side, of 4 dots.
    expect(picture.height).toBe((21 + 8) * 4)
    const [start, end] = inkColumns(picture)
    expect([start, end]).toEqual([(576 - 29 * 4) / 2 + 16, (576 - 29 * 4) / 2 + 16 + 21 * 4 - 1])
    // The top left finder pattern: a dark 7x7 square ring.
    expect(picture.black(start, 16)).toBe(true)
    expect(picture.black(start + 6 * 4, 16 + 6 * 4)).toBe(true)
    expect(picture.black(start + 4, 16 + 4)).toBe(false)
  })

  test('a barcode is as tall as GS h says, its text below it when GS H says so', () => {
    const withText = drawn(escpos(GS, 'H', 2, GS, 'h', 50, GS, 'k', 69, 3, 'ABC'))
    const without = drawn(escpos(GS, 'h', 50, GS, 'k', 69, 3, 'ABC'))
    expect(without.height).toBe(50)
    expect(withText.height).toBe(50 + 4 + 24)
    expect(blackIn(withText, { x0: 0, x1: 576, y0: 54, y1: 78 })).toBeGreaterThan(0)
  })

  test('a symbol that fits the paper only without its quiet zones is centred itself', () => {
    // 14 characters of code 128 in 2-dot modules: (14 + 3) * 11 + 2 = 189 modules, 378 dots.
    const receipt = decodeReceipt(bytes(ESC, 'a', 1, GS, 'w', 2, GS, 'k', 73, 16, '{B', 'ABCDEFGHIJKLMN'), {
      dotsPerLine: 384,
      commandSet: 'escpos',
    })
    expect(inkColumns(drawn(receipt, 384))).toEqual([3, 380])
  })

  test('a very long receipt is drawn down to the limit and no further', () => {
    const feeds = Array.from({ length: 10 }, () => [ESC, 'd', 255] as const).flat()
    const picture = drawn(escpos(...feeds, 'end', LF))
    expect(picture.height).toBe(MAX_PREVIEW_ROWS)
  })
})
