import { describe, expect, test } from 'bun:test'
import type { PrintDocument, Section } from '../../src/protocol/document.ts'
import { render } from '../../src/render/render.ts'
import { bytes, LF, PROLOGUE, target } from './bytes.ts'
import { dotCount, isDot, type Raster, rasterBlocks } from './raster.ts'

const rendered = (sections: Section[], width: PrintDocument['width'] = 58) => render({ width, sections }, target(width))

/** Columns of the raster with at least one dot. */
function inkedColumns(raster: Raster): number[] {
  const columns: number[] = []
  for (let x = 0; x < raster.widthBytes * 8; x++) {
    for (let y = 0; y < raster.height; y++) {
      if (isDot(raster, x, y)) {
        columns.push(x)
        break
      }
    }
  }
  return columns
}

describe('text no code page has: drawn as a picture of the line', () => {
  test('a CJK line is one raster block across the whole width, nothing dropped, no `?`', () => {
    for (const [width, widthBytes] of [
      [58, 48],
      [80, 72],
    ] as const) {
      const output = rendered([{ type: 'text', value: '中文' }], width)
      expect(Array.from(output)).not.toContain(0x3f)
      const [line, ...rest] = rasterBlocks(output)
      expect(rest).toEqual([])
      expect(line!.widthBytes).toBe(widthBytes)
      expect(line!.height).toBe(30)
      // Two wide characters of 24 dots each, left aligned.
      const columns = inkedColumns(line!)
      expect(columns[0]!).toBeLessThan(4)
      expect(columns.at(-1)!).toBeLessThan(48)
      expect(columns.at(-1)!).toBeGreaterThan(36)
    }
  })

  test('emoji, and the ASCII around them, draw in the same line; variation selectors and joiners are dropped', () => {
    const [line] = rasterBlocks(rendered([{ type: 'text', value: 'Coffee ☕\ufe0f 😀' }]))
    // "Coffee " (7 cells) + ☕ (2) + " " (1) + 😀 (2) = 12 cells of 12 dots.
    const columns = inkedColumns(line!)
    expect(columns.at(-1)!).toBeLessThan(12 * 12)
    expect(columns.at(-1)!).toBeGreaterThan(10 * 12)
    expect(rasterBlocks(rendered([{ type: 'text', value: '👨\u200d🍳' }]))).toHaveLength(1)
  })

  test('wide characters take two cells when wrapping: 16 per line on 58 mm', () => {
    const lines = rasterBlocks(rendered([{ type: 'text', value: '漢'.repeat(20) }]))
    expect(lines).toHaveLength(2)
    expect(inkedColumns(lines[0]!).at(-1)!).toBeGreaterThan(370)
    expect(inkedColumns(lines[1]!).at(-1)!).toBeLessThan(4 * 24)
  })

  test('alignment and bold are drawn into the picture', () => {
    const [left] = rasterBlocks(rendered([{ type: 'text', value: '中' }]))
    const [right] = rasterBlocks(rendered([{ type: 'text', value: '中', align: 'right' }]))
    const [centre] = rasterBlocks(rendered([{ type: 'text', value: '中', align: 'center' }]))
    const [bold] = rasterBlocks(rendered([{ type: 'text', value: '中', bold: true }]))
    expect(inkedColumns(left!)[0]!).toBeLessThan(4)
    expect(inkedColumns(right!).at(-1)!).toBeGreaterThan(370)
    const centreColumns = inkedColumns(centre!)
    expect(Math.abs((centreColumns[0]! + centreColumns.at(-1)!) / 2 - 192)).toBeLessThan(4)
    expect(dotCount(bold!)).toBeGreaterThan(dotCount(left!) * 1.3)
  })

  test('only the line that needs it is drawn; the lines around it stay text in their code pages', () => {
    const output = Array.from(rendered([{ type: 'text', value: 'Café\n寿司 x2\nTotal 12,00 €' }]))
    expect(output.slice(0, PROLOGUE.length + 5)).toEqual(bytes(PROLOGUE, 'Caf', 0x82, LF))
    expect(output.slice(-14)).toEqual(bytes('Total 12,00 ', 0xd5, LF))
    expect(rasterBlocks(Uint8Array.from(output))).toHaveLength(1)
  })

  test('a row with a CJK item keeps its price flush right', () => {
    const [line] = rasterBlocks(rendered([{ type: 'row', left: '拉面', right: '9.50' }]))
    expect(inkedColumns(line!).at(-1)!).toBeGreaterThan(370)
  })
})
