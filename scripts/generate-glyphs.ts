// Regenerates src/glyphs/unifont.bin.gz, the bitmap font text is drawn with where no code page
// has a character (render) and in receipt previews (preview). Source: GNU Unifont 15 from the
// Debian packages `unifont` (Basic Multilingual Plane, as hex) and `fonts-unifont` (emoji and
// symbols of plane 1, from its OpenType font, whose outlines are 16x16 pixel squares).
//
//   apt-get install unifont fonts-unifont && bun scripts/generate-glyphs.ts
//
// Format (then gzip): records sorted by code point, each 3 bytes code point (big-endian), 1 byte
// width in dots (8 or 16), then 16 rows of width/8 bytes, leftmost dot in the high bit.
import { readFileSync, writeFileSync } from 'node:fs'
import opentype from 'opentype.js'

const BMP_HEX = '/usr/share/unifont/unifont.hex'
const UPPER_OTF = '/usr/share/fonts/opentype/unifont/unifont_upper.otf'
const OUT = new URL('../src/glyphs/unifont.bin.gz', import.meta.url).pathname
/** Plane 1 blocks taken from the upper font: mahjong and domino tiles to symbols for legacy computing (the emoji). */
const UPPER_RANGE = [0x1f000, 0x1fbff] as const

const glyphs = new Map<number, Uint8Array>()

for (const line of readFileSync(BMP_HEX, 'utf8').split('\n')) {
  const [code, hex] = line.split(':')
  if (!code || !hex) continue
  glyphs.set(
    parseInt(code, 16),
    Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16)),
  )
}

// The upper font's em is 64 units: a pixel is 4 units, row 0 spans y 52 to 56 (the ascender).
const otf = readFileSync(UPPER_OTF)
const font = opentype.parse(otf.buffer.slice(otf.byteOffset, otf.byteOffset + otf.byteLength))
for (let codePoint = UPPER_RANGE[0]; codePoint <= UPPER_RANGE[1]; codePoint++) {
  const glyph = font.charToGlyph(String.fromCodePoint(codePoint))
  if (!glyph || glyph.index === 0) continue
  const width = glyph.advanceWidth === 64 ? 16 : 8
  const rows = new Uint8Array((16 * width) / 8)
  const polygons = toPolygons(glyph.path.commands)
  for (let row = 0; row < 16; row++) {
    for (let column = 0; column < width; column++) {
      if (winding(polygons, column * 4 + 2, 56 - row * 4 - 2) !== 0)
        rows[(row * width) / 8 + (column >> 3)]! |= 0x80 >> (column & 7)
    }
  }
  glyphs.set(codePoint, rows)
}

type Point = readonly [number, number]
function toPolygons(commands: opentype.PathCommand[]): Point[][] {
  const polygons: Point[][] = []
  for (const command of commands) {
    if (command.type === 'M') polygons.push([[command.x, command.y]])
    else if (command.type === 'L') polygons.at(-1)!.push([command.x, command.y])
    else if (command.type !== 'Z')
      throw new Error(`unexpected path command ${command.type}: the font is not made of pixel squares`)
  }
  return polygons
}

/** Nonzero winding number of the point (x, y) around the outlines. */
function winding(polygons: Point[][], x: number, y: number): number {
  let total = 0
  for (const polygon of polygons) {
    for (let i = 0; i < polygon.length; i++) {
      const [x1, y1] = polygon[i]!
      const [x2, y2] = polygon[(i + 1) % polygon.length]!
      const side = (x2 - x1) * (y - y1) - (x - x1) * (y2 - y1)
      if (y1 <= y && y2 > y && side > 0) total++
      else if (y1 > y && y2 <= y && side < 0) total--
    }
  }
  return total
}

const codePoints = [...glyphs.keys()].sort((a, b) => a - b)
const parts: Uint8Array[] = []
for (const codePoint of codePoints) {
  const rows = glyphs.get(codePoint)!
  const width = rows.length === 16 ? 8 : 16
  parts.push(Uint8Array.of(codePoint >> 16, (codePoint >> 8) & 0xff, codePoint & 0xff, width), rows)
}
const raw = Buffer.concat(parts)
writeFileSync(OUT, Bun.gzipSync(raw, { level: 9 }))
console.log(`${codePoints.length} glyphs, ${raw.length} bytes, ${Bun.file(OUT).size} gzipped -> ${OUT}`)
