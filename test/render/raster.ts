// Reading GS v 0 raster blocks back out of rendered bytes (written from the command reference).
import { expect } from 'bun:test'

export interface Raster {
  widthBytes: number
  height: number
  rows: Uint8Array
}

/** The GS v 0 blocks of a rendering, in order (a reader written from the command reference). */
export function rasterBlocks(bytes: Uint8Array): Raster[] {
  const blocks: Raster[] = []
  for (let i = 0; i + 8 <= bytes.length; i++) {
    if (bytes[i] !== 0x1d || bytes[i + 1] !== 0x76 || bytes[i + 2] !== 0x30) continue
    expect(bytes[i + 3]).toBe(0)
    const widthBytes = bytes[i + 4]! | (bytes[i + 5]! << 8)
    const height = bytes[i + 6]! | (bytes[i + 7]! << 8)
    blocks.push({ widthBytes, height, rows: bytes.slice(i + 8, i + 8 + widthBytes * height) })
    i += 7 + widthBytes * height
  }
  return blocks
}

/** Stacks the bands back into one image. */
export function stacked(blocks: Raster[]): Raster {
  expect(new Set(blocks.map((b) => b.widthBytes)).size).toBe(1)
  const rows = new Uint8Array(blocks.reduce((n, b) => n + b.rows.length, 0))
  let offset = 0
  for (const block of blocks) {
    rows.set(block.rows, offset)
    offset += block.rows.length
  }
  return { widthBytes: blocks[0]!.widthBytes, height: blocks.reduce((n, b) => n + b.height, 0), rows }
}

export const isDot = (raster: Raster, x: number, y: number) =>
  (raster.rows[y * raster.widthBytes + (x >> 3)]! & (0x80 >> (x & 7))) !== 0
export const dotCount = (raster: Raster) =>
  raster.rows.reduce((n, byte) => n + byte.toString(2).replaceAll('0', '').length, 0)
