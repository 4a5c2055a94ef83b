// Text drawn as Epson's Font A looks: 12 x 24 dot cells, here GNU Unifont's 8 x 16 glyphs (16 x 16
// for wide characters) scaled 1.5 times by nearest neighbour. Bold sets each dot's right
// neighbour too, as printers embolden; a character the font lacks is drawn as a box.
import { GLYPH_HEIGHT, glyph } from '../glyphs/glyphs.ts'
import type { DotCanvas } from './canvas.ts'
import { FONT_A_DOTS } from './printer.ts'

export const CELL_HEIGHT = 24
const SCALE = CELL_HEIGHT / GLYPH_HEIGHT

/** Dots across one character: 12, or 24 for a wide one. */
function characterWidth(character: string): number {
  const found = glyph(character.codePointAt(0)!)
  return found ? found.width * SCALE : FONT_A_DOTS
}

export function textWidth(text: string): number {
  let width = 0
  for (const character of text) width += characterWidth(character)
  return width
}

/** Draws `text` with its top left corner at (left, top); returns the x after it. */
export function drawText(canvas: DotCanvas, left: number, top: number, text: string, bold: boolean): number {
  let x = left
  for (const character of text) {
    const found = glyph(character.codePointAt(0)!)
    if (found) drawGlyph(canvas, x, top, found.width, found.rows, bold)
    else drawBox(canvas, x, top)
    x += characterWidth(character)
  }
  return x
}

function drawGlyph(canvas: DotCanvas, left: number, top: number, width: number, rows: Uint8Array, bold: boolean): void {
  const bytesPerRow = width / 8
  for (let y = 0; y < CELL_HEIGHT; y++) {
    const row = Math.floor(y / SCALE)
    for (let x = 0; x < width * SCALE; x++) {
      const column = Math.floor(x / SCALE)
      if ((rows[row * bytesPerRow + (column >> 3)]! & (0x80 >> (column & 7))) === 0) continue
      canvas.set(left + x, top + y)
      if (bold) canvas.set(left + x + 1, top + y)
    }
  }
}

function drawBox(canvas: DotCanvas, left: number, top: number): void {
  const right = left + FONT_A_DOTS - 2
  const bottom = top + CELL_HEIGHT - 2
  for (let x = left + 1; x <= right; x++) {
    canvas.set(x, top + 1)
    canvas.set(x, bottom)
  }
  for (let y = top + 1; y <= bottom; y++) {
    canvas.set(left + 1, y)
    canvas.set(right, y)
  }
}
