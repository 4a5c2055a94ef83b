// The paper as dots: packed rows, the leftmost dot of each byte in the high bit, 1 for a black
// dot (as printers take raster data). Drawing outside it is clipped.

/** `height` rows of `widthBytes` bytes each, the leftmost dot of a byte in its high bit. */
export interface PackedBits {
  readonly widthBytes: number
  readonly height: number
  readonly rows: Uint8Array
}

export class DotCanvas {
  readonly widthBytes: number
  readonly rows: Uint8Array

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.widthBytes = Math.ceil(width / 8)
    this.rows = new Uint8Array(this.widthBytes * height)
  }

  set(x: number, y: number): void {
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return
    this.rows[y * this.widthBytes + (x >> 3)]! |= 0x80 >> (x & 7)
  }

  fill(left: number, top: number, width: number, height: number): void {
    const x0 = Math.max(0, left)
    const x1 = Math.min(this.width, left + width)
    const y1 = Math.min(this.height, top + height)
    for (let y = Math.max(0, top); y < y1; y++) for (let x = x0; x < x1; x++) this.set(x, y)
  }

  /** Turns black dots white and white ones black in the box (white on black printing). */
  invert(left: number, top: number, width: number, height: number): void {
    const x0 = Math.max(0, left)
    const x1 = Math.min(this.width, left + width)
    const y1 = Math.min(this.height, top + height)
    for (let y = Math.max(0, top); y < y1; y++)
      for (let x = x0; x < x1; x++) this.rows[y * this.widthBytes + (x >> 3)]! ^= 0x80 >> (x & 7)
  }

  /** Packed rows of `widthBytes` bytes, their black dots set at (left, top). */
  drawBits(left: number, top: number, { widthBytes, height, rows: bits }: PackedBits): void {
    const bottom = Math.min(height, this.height - top)
    for (let y = Math.max(0, -top); y < bottom; y++) {
      for (let x = 0; x < widthBytes * 8; x++) {
        if (bits[y * widthBytes + (x >> 3)]! & (0x80 >> (x & 7))) this.set(left + x, top + y)
      }
    }
  }
}
