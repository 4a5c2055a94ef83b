// Raster bit images as both decoders print them: rows of bytes, the leftmost dot in the high bit,
// optionally printed at double width or height (ESC/POS modes 1 to 3).
import type { Printer } from './printer.ts'

export interface RasterScale {
  readonly x: 1 | 2
  readonly y: 1 | 2
}

/** Each dot of a row twice, side by side. */
function doubleWidth(row: Uint8Array): Uint8Array {
  const wide = new Uint8Array(row.length * 2)
  for (let x = 0; x < row.length * 8; x++) {
    if ((row[x >> 3]! & (0x80 >> (x & 7))) === 0) continue
    for (const dot of [2 * x, 2 * x + 1]) wide[dot >> 3]! |= 0x80 >> (dot & 7)
  }
  return wide
}

function scaled(widthBytes: number, height: number, rows: Uint8Array, scale: RasterScale): Uint8Array {
  // A copy even unscaled: the receipt must not change when the caller reuses its input buffer.
  if (scale.x === 1 && scale.y === 1) return rows.slice()
  const outBytes = widthBytes * scale.x
  const out = new Uint8Array(outBytes * height * scale.y)
  for (let y = 0; y < height; y++) {
    const row = rows.subarray(y * widthBytes, (y + 1) * widthBytes)
    const line = scale.x === 2 ? doubleWidth(row) : row
    for (let copy = 0; copy < scale.y; copy++) out.set(line, (y * scale.y + copy) * outBytes)
  }
  return out
}

/** A raster image as a command gives it, and the paper's width in dots (what is wider is cut off). */
export interface RasterPrint {
  image: { widthBytes: number; height: number; rows: Uint8Array; scale: RasterScale }
  dotsPerLine: number
}

export function printRaster(
  printer: Printer,
  { image, dotsPerLine }: RasterPrint,
  offset: number,
  command: string,
): void {
  const { scale } = image
  const widthBytes = image.widthBytes * scale.x
  const height = image.height * scale.y
  if (widthBytes * 8 > dotsPerLine)
    printer.warnings.add(
      offset,
      `${command}: the image is ${widthBytes * 8} dots wide; the paper has ${dotsPerLine}, the rest is cut off`,
    )
  const rows = scaled(image.widthBytes, image.height, image.rows, scale)
  printer.print(
    { kind: 'image', alignment: printer.alignment, width: widthBytes * 8, height, widthBytes, rows },
    offset,
    command,
  )
}
