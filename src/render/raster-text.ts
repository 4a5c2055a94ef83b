// Text the printer's code pages cannot print (CJK, emoji, rare scripts), drawn as a picture of
// the line in GNU Unifont, so it prints instead of turning into `?` or vanishing.
import { GLYPH_HEIGHT, glyph, forEachDot } from '../glyphs/glyphs.ts'
import type { Alignment } from './command-set.ts'
import type { DotImage } from './image.ts'
import type { TextStyle } from './text-style.ts'

/** Font A's cell: 12 dots wide. Unifont's 8 x 16 glyphs are drawn 1.5 times as large to match. */
export const CELL_DOTS = 12
const SCALE = 1.5
/** Font B's cell: 9 x 17 dots, Unifont's 8 x 16 glyphs drawn that much larger. */
const FONT_B_SCALE_X = 9 / 8
const FONT_B_SCALE_Y = 17 / 16
/** Rows above and below the glyphs, as the gap between printed text lines. */
const LINE_GAP_ROWS = 3

/**
 * Cells a character takes when drawn: 1, 2 for wide ones; undefined when the font has none, and
 * for control characters, which are never drawn (the font has pictures of some).
 */
export function drawnCells(character: string): number | undefined {
  if (/\p{Cc}/u.test(character)) return undefined
  const found = glyph(character.codePointAt(0)!)
  return found && found.width / 8
}

/**
 * A line as dots across the whole printable width, placed by `alignment` (the picture does its
 * own alignment, so it prints the same whatever the printer does with raster and `ESC a`), in
 * the style: magnified, bold (each dot drawn twice, one dot apart, as printers embolden their
 * fonts), underlined (one or two rows under the glyphs), white on black (the glyphs' box inverted).
 */
export function drawLine(
  line: string,
  alignment: Alignment,
  style: Pick<TextStyle, 'bold' | 'width' | 'height' | 'underline' | 'invert'> & { font?: TextStyle['font'] },
  dotsPerLine: number,
): DotImage {
  const glyphs = Array.from(line, (character) => glyph(character.codePointAt(0)!)!)
  // Font A's 12 x 24 cells, or font B's 9 x 17, magnified.
  const scaleX = (style.font === 'b' ? FONT_B_SCALE_X : SCALE) * style.width
  const scaleY = (style.font === 'b' ? FONT_B_SCALE_Y : SCALE) * style.height
  const widthBytes = Math.floor(dotsPerLine / 8)
  const width = widthBytes * 8
  const lineWidth = glyphs.reduce((sum, g) => sum + g.width * scaleX, 0)
  const free = Math.max(0, width - lineWidth)
  const start = alignment === 'left' ? 0 : alignment === 'center' ? Math.floor(free / 2) : free
  const glyphRows = GLYPH_HEIGHT * scaleY
  const height = glyphRows + 2 * LINE_GAP_ROWS
  const rows = new Uint8Array(widthBytes * height)
  const setDot = (x: number, y: number) => {
    if (x < width) rows[y * widthBytes + (x >> 3)]! |= 0x80 >> (x & 7)
  }
  const drawing = { scaleX, scaleY, bold: style.bold }
  let left = start
  for (const found of glyphs) {
    const at = left
    forEachDot(found, drawing, (x, y) => setDot(at + x, y + LINE_GAP_ROWS))
    left += found.width * scaleX
  }
  const end = Math.min(width, left)
  if (style.underline !== 'none') {
    const thickness = (style.underline === 'double' ? 2 : 1) * style.height
    for (let y = LINE_GAP_ROWS + glyphRows - thickness; y < LINE_GAP_ROWS + glyphRows; y++)
      for (let x = start; x < end; x++) setDot(x, y)
  }
  if (style.invert) {
    for (let y = 0; y < height; y++)
      for (let x = start; x < end; x++) rows[y * widthBytes + (x >> 3)]! ^= 0x80 >> (x & 7)
  }
  return { widthBytes, height, rows }
}
