// GNU Unifont glyphs (see scripts/generate-glyphs.ts): 16 dots high, 8 wide, or 16 for wide
// characters (CJK, emoji). Embedded as a file in the executable and read on first use only, so a
// hub that never needs a glyph never holds the font in memory.
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import fontFile from './unifont.bin.gz' with { type: 'file' }

export const GLYPH_HEIGHT = 16

export interface Glyph {
  readonly width: 8 | 16
  /** 16 rows of width / 8 bytes, the leftmost dot in the high bit. */
  readonly rows: Uint8Array
}

interface Font {
  codePoints: Uint32Array
  offsets: Uint32Array
  data: Uint8Array
}

let font: Font | undefined

function load(): Font {
  const data = new Uint8Array(gunzipSync(readFileSync(fontFile)))
  const codePoints: number[] = []
  const offsets: number[] = []
  for (let offset = 0; offset < data.length; offset += 4 + (GLYPH_HEIGHT * data[offset + 3]!) / 8) {
    codePoints.push((data[offset]! << 16) | (data[offset + 1]! << 8) | data[offset + 2]!)
    offsets.push(offset)
  }
  return { codePoints: Uint32Array.from(codePoints), offsets: Uint32Array.from(offsets), data }
}

/** How a glyph is drawn: `scaleX` times as wide and `scaleY` times as tall, bold or not. */
export interface GlyphDrawing {
  scaleX: number
  scaleY: number
  bold: boolean
}

/**
 * Calls `set` for each dot of a glyph drawn `scaleX` times as wide and `scaleY` times as tall by
 * nearest neighbour, from its top left corner; bold sets each dot's right neighbour too, as
 * printers embolden.
 */
export function forEachDot(
  found: Glyph,
  { scaleX, scaleY, bold }: GlyphDrawing,
  set: (x: number, y: number) => void,
): void {
  const bytesPerRow = found.width / 8
  for (let y = 0; y < GLYPH_HEIGHT * scaleY; y++) {
    const row = Math.floor(y / scaleY)
    for (let x = 0; x < found.width * scaleX; x++) {
      const column = Math.floor(x / scaleX)
      if ((found.rows[row * bytesPerRow + (column >> 3)]! & (0x80 >> (column & 7))) === 0) continue
      set(x, y)
      if (bold) set(x + 1, y)
    }
  }
}

/** The glyph of a code point, or undefined when the font has none. */
export function glyph(codePoint: number): Glyph | undefined {
  font ??= load()
  const { codePoints, offsets, data } = font
  let low = 0
  let high = codePoints.length - 1
  while (low <= high) {
    const middle = (low + high) >> 1
    const found = codePoints[middle]!
    if (found === codePoint) {
      const offset = offsets[middle]!
      const width = data[offset + 3] as 8 | 16
      return { width, rows: data.subarray(offset + 4, offset + 4 + (GLYPH_HEIGHT * width) / 8) }
    }
    if (found < codePoint) low = middle + 1
    else high = middle - 1
  }
  return undefined
}
