// Atkinson dithering (render/image.ts toDots) against the plain statement of the method: the
// error of each pixel, in eighths, to the two pixels after it, the three below and the one two
// rows down, where they exist. The renderer's version is written for speed; the dots must be the same.
import { expect, test } from 'bun:test'
import { toDots } from '../../src/render/image.ts'

function reference(width: number, height: number, luma: Uint8Array): Uint8Array {
  const widthBytes = Math.ceil(width / 8)
  const rows = new Uint8Array(widthBytes * height)
  const levels = Array.from(luma, Number)
  const add = (x: number, y: number, error: number) => {
    if (x >= 0 && x < width && y < height) levels[y * width + x]! += error
  }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const level = levels[y * width + x]!
      const dot = level < 128
      if (dot) rows[y * widthBytes + (x >> 3)]! |= 0x80 >> (x & 7)
      const error = (dot ? level : level - 255) >> 3
      for (const [dx, dy] of [
        [1, 0],
        [2, 0],
        [-1, 1],
        [0, 1],
        [1, 1],
        [0, 2],
      ] as const)
        add(x + dx, y + dy, error)
    }
  }
  return rows
}

test('the dots of photo-like images of odd sizes are those of the method as stated', () => {
  let seed = 7
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  for (const [width, height] of [
    [1, 1],
    [7, 3],
    [8, 8],
    [13, 11],
    [64, 5],
    [577, 9],
    [200, 150],
  ] as const) {
    // Smooth shading with noise: mid greys, so it is dithered rather than thresholded as line art.
    const luma = new Uint8Array(width * height).map((_, i) =>
      Math.max(0, Math.min(255, Math.round(128 + 60 * Math.sin(i / 17) + 40 * (random() - 0.5)))),
    )
    const dots = toDots({ width, height, luma })
    expect([width, height, Array.from(dots.rows)]).toEqual([width, height, Array.from(reference(width, height, luma))])
  }
})
