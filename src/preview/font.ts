// Text drawn as Epson's Font A looks: 12 x 24 dot cells, here GNU Unifont's 8 x 16 glyphs (16 x 16
// for wide characters) scaled 1.5 times by nearest neighbour. Bold sets each dot's right
// neighbour too, as printers embolden; a character the font lacks is drawn as a box.
import { forEachDot, GLYPH_HEIGHT, glyph } from '../glyphs/glyphs.ts'
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
    const at = x
    if (found) forEachDot(found, SCALE, bold, (dx, dy) => canvas.set(at + dx, top + dy))
    else drawBox(canvas, x, top)
    x += characterWidth(character)
  }
  return x
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
