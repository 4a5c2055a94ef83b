// Text drawn as Epson's Font A looks: 12 x 24 dot cells, here GNU Unifont's 8 x 16 glyphs (16 x 16
// for wide characters) scaled 1.5 times by nearest neighbour. Bold sets each dot's right
// neighbour too, as printers embolden; a character the font lacks is drawn as a box.
import { forEachDot, GLYPH_HEIGHT, glyph } from '../glyphs/glyphs.ts'
import type { DotCanvas } from './canvas.ts'
import { FONT_A_DOTS, FONT_B_DOTS } from './printer.ts'

export const CELL_HEIGHT = 24
/** Font B's cell: 9 x 17 dots. */
const FONT_B_HEIGHT = 17
const SCALE = CELL_HEIGHT / GLYPH_HEIGHT

/** How a run is drawn: magnified, and in font A or B. */
export interface Drawing {
  width: number
  height: number
  font: 'a' | 'b'
}

const PLAIN: Drawing = { width: 1, height: 1, font: 'a' }

/** Horizontal and vertical scale of Unifont's 8 x 16 glyphs for a drawing. */
function scales(drawing: Drawing): { x: number; y: number } {
  return drawing.font === 'a'
    ? { x: SCALE * drawing.width, y: SCALE * drawing.height }
    : { x: (FONT_B_DOTS / 8) * drawing.width, y: (FONT_B_HEIGHT / GLYPH_HEIGHT) * drawing.height }
}

/** Dots down a character of the drawing. */
export function cellHeight(drawing: Drawing): number {
  return (drawing.font === 'a' ? CELL_HEIGHT : FONT_B_HEIGHT) * drawing.height
}

/** Dots across one character: 12 in font A (24 for a wide one), 9 in font B, times the magnification. */
function characterWidth(character: string, drawing: Drawing): number {
  const found = glyph(character.codePointAt(0)!)
  const scale = scales(drawing).x
  return found ? found.width * scale : (drawing.font === 'a' ? FONT_A_DOTS : FONT_B_DOTS) * drawing.width
}

export function textWidth(text: string, drawing: Drawing = PLAIN): number {
  let width = 0
  for (const character of text) width += characterWidth(character, drawing)
  return width
}

/** Where and how a text is drawn: its top left corner, bold or not, and its magnification and font. */
export interface TextPlacement {
  left: number
  top: number
  bold: boolean
  drawing?: Drawing
}

/** Draws `text` with its top left corner at (left, top); returns the x after it. */
export function drawText(canvas: DotCanvas, text: string, { left, top, bold, drawing = PLAIN }: TextPlacement): number {
  const scale = scales(drawing)
  const dots = { scaleX: scale.x, scaleY: scale.y, bold }
  let x = left
  for (const character of text) {
    const found = glyph(character.codePointAt(0)!)
    const at = x
    if (found) forEachDot(found, dots, (dx, dy) => canvas.set(at + dx, top + dy))
    else drawBox(canvas, x, top)
    x += characterWidth(character, drawing)
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
