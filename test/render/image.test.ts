// Image sections: real PNG and JPEG files (made with the encoders of the same libraries) through
// the renderer, checked dot by dot in the raster blocks it emits.
import { describe, expect, test } from 'bun:test'
import { encode as encodePng } from 'fast-png'
import { encode as encodeJpeg } from 'jpeg-js'
import type { PrintDocument, Section } from '../../src/protocol/document.ts'
import { validate } from '../../src/protocol/rules.ts'
import { documentRule } from '../../src/protocol/document.ts'
import { render, targetFor } from '../../src/render/render.ts'
import { ESC, PROLOGUE, renderError, target } from './bytes.ts'
import { dotCount, isDot, rasterBlocks, stacked } from './raster.ts'

/** A PNG of `width` x `height` whose pixels `pixel(x, y)` gives as [r, g, b, a]. */
function png(width: number, height: number, pixel: (x: number, y: number) => [number, number, number, number]): string {
  const data = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 4)
  return Buffer.from(encodePng({ width, height, data, channels: 4, depth: 8 })).toString('base64')
}

function renderImage(
  data: string,
  mediaType: 'image/png' | 'image/jpeg' = 'image/png',
  width: PrintDocument['width'] = 58,
): Uint8Array {
  const section: Section = { type: 'image', mediaType, data }
  return render({ width, sections: [section] }, target(width))
}

const imageError = (data: string, mediaType: 'image/png' | 'image/jpeg' = 'image/png') =>
  renderError([{ type: 'image', mediaType, data }])

const BLACK: [number, number, number, number] = [0, 0, 0, 255]
const WHITE: [number, number, number, number] = [255, 255, 255, 255]

describe('image sections', () => {
  test('line art prints dot for dot, centred, in one GS v 0 block, and the printer is left as it was', () => {
    // A 16 x 2 checkerboard of 1-pixel squares on the first row, solid black on the second.
    const data = png(16, 2, (x, y) => (y === 1 || x % 2 === 0 ? BLACK : WHITE))
    const bytes = Array.from(renderImage(data))
    expect(bytes).toEqual([
      ...PROLOGUE,
      ESC,
      0x61,
      1,
      0x1d,
      0x76,
      0x30,
      0,
      2,
      0,
      2,
      0,
      0xaa,
      0xaa,
      0xff,
      0xff,
      ESC,
      0x61,
      0,
    ])
  })

  test('a width that is not a multiple of 8 is padded with white dots', () => {
    const [block] = rasterBlocks(renderImage(png(10, 1, () => BLACK)))
    expect(block).toEqual({ widthBytes: 2, height: 1, rows: Uint8Array.of(0xff, 0xc0) })
  })

  test('transparent pixels are paper: a transparent PNG prints on white', () => {
    // Fully transparent black, and half-transparent black (grey) on a clear background.
    const clear = rasterBlocks(renderImage(png(64, 64, () => [0, 0, 0, 0])))
    expect(dotCount(stacked(clear))).toBe(0)
    const badge = stacked(
      rasterBlocks(renderImage(png(64, 64, (x, y) => ((x - 32) ** 2 + (y - 32) ** 2 < 400 ? BLACK : [0, 0, 0, 0])))),
    )
    expect(isDot(badge, 32, 32)).toBe(true)
    expect(isDot(badge, 0, 0)).toBe(false)
    expect(isDot(badge, 63, 63)).toBe(false)
  })

  test('grey is dithered: a mid grey prints about half its dots, white none, black all', () => {
    for (const [level, low, high] of [
      [128, 0.4, 0.6],
      [64, 0.65, 0.9],
      [255, 0, 0],
      [0, 1, 1],
    ] as const) {
      // A gradient column keeps it from being taken for line art even where it is flat.
      const raster = stacked(
        rasterBlocks(
          renderImage(png(64, 64, (x) => (x === 63 ? [x * 4, x * 4, x * 4, 255] : [level, level, level, 255]))),
        ),
      )
      let dots = 0
      for (let y = 0; y < 64; y++) for (let x = 0; x < 63; x++) if (isDot(raster, x, y)) dots++
      const share = dots / (63 * 64)
      expect(share).toBeGreaterThanOrEqual(low)
      expect(share).toBeLessThanOrEqual(high)
    }
  })

  test('an image wider than the paper is scaled down to exactly its width, keeping the aspect ratio', () => {
    for (const [paper, dots] of [
      [58, 384],
      [80, 576],
    ] as const) {
      // Black left half, white right half, 1000 x 500.
      const raster = stacked(
        rasterBlocks(
          renderImage(
            png(1000, 500, (x) => (x < 500 ? BLACK : WHITE)),
            'image/png',
            paper,
          ),
        ),
      )
      expect(raster.widthBytes).toBe(dots / 8)
      expect(raster.height).toBe(dots / 2)
      expect(isDot(raster, dots / 2 - 2, 10)).toBe(true)
      expect(isDot(raster, dots / 2 + 2, 10)).toBe(false)
    }
  })

  test('a narrower image is not scaled up', () => {
    const raster = stacked(
      rasterBlocks(
        renderImage(
          png(100, 30, () => BLACK),
          'image/png',
          80,
        ),
      ),
    )
    expect(raster).toMatchObject({ widthBytes: 13, height: 30 })
  })

  test("a tall image goes in bands of at most the profile's rows, every row in order", () => {
    // 2,048 rows, each row y with a dot at x = y % 300: the bands must stack back exactly.
    const bandRows = target(58).profile.raster.maxBandRows
    const raster = rasterBlocks(renderImage(png(300, 2_048, (x, y) => (x === y % 300 ? BLACK : WHITE))))
    expect(raster.length).toBe(Math.ceil(2_048 / bandRows))
    for (const block of raster) expect(block.height).toBeLessThanOrEqual(bandRows)
    const image = stacked(raster)
    expect(image.height).toBe(2_048)
    for (const y of [0, 1, 255, 256, 257, 1_000, 2_047]) {
      expect(isDot(image, y % 300, y)).toBe(true)
      expect(
        dotCount({
          widthBytes: image.widthBytes,
          height: 1,
          rows: image.rows.subarray(y * image.widthBytes, (y + 1) * image.widthBytes),
        }),
      ).toBe(1)
    }
  })

  test('a printer on a serial link gets smaller bands', () => {
    const image: Section = {
      type: 'image',
      mediaType: 'image/png',
      data: png(300, 300, (x, y) => (x === y ? BLACK : WHITE)),
    }
    const serial = rasterBlocks(render({ width: 58, sections: [image] }, targetFor('generic-58mm', 58, 'serial')))
    expect(serial.map((block) => block.height)).toEqual([64, 64, 64, 64, 44])
    expect(
      rasterBlocks(render({ width: 58, sections: [image] }, targetFor('generic-58mm', 58, 'tcp'))).map(
        (block) => block.height,
      ),
    ).toEqual([256, 44])
    expect(stacked(serial).rows).toEqual(
      stacked(rasterBlocks(render({ width: 58, sections: [image] }, target(58)))).rows,
    )
  })

  test('JPEG: a photo-like gradient decodes and dithers, darker left than right', () => {
    const width = 200
    const height = 100
    const data = new Uint8Array(width * height * 4)
    for (let i = 0; i < width * height; i++)
      data.set([((i % width) * 255) / width, ((i % width) * 255) / width, ((i % width) * 255) / width, 255], i * 4)
    const jpeg = Buffer.from(encodeJpeg({ width, height, data }, 90).data).toString('base64')
    const raster = stacked(rasterBlocks(renderImage(jpeg, 'image/jpeg')))
    expect(raster).toMatchObject({ widthBytes: 25, height: 100 })
    const share = (from: number, to: number) => {
      let dots = 0
      for (let y = 0; y < height; y++) for (let x = from; x < to; x++) if (isDot(raster, x, y)) dots++
      return dots / ((to - from) * height)
    }
    expect(share(0, 40)).toBeGreaterThan(0.7)
    expect(share(160, 200)).toBeLessThan(0.3)
  })

  test('PNG colour types: grey, grey with alpha, palette, 16-bit and 1-bit all print the same shape', () => {
    const shape = (x: number, y: number) => x < 8 && y < 4
    const grey = new Uint8Array(16 * 8).map((_, i) => (shape(i % 16, Math.floor(i / 16)) ? 0 : 255))
    const variants = [
      encodePng({ width: 16, height: 8, data: grey, channels: 1, depth: 8 }),
      encodePng({
        width: 16,
        height: 8,
        data: new Uint8Array(16 * 8 * 2).map((_, i) => (i % 2 ? 255 : grey[i >> 1]!)),
        channels: 2,
        depth: 8,
      }),
      encodePng({
        width: 16,
        height: 8,
        data: new Uint16Array(16 * 8).map((_, i) => grey[i]! * 257),
        channels: 1,
        depth: 16,
      }),
      encodePng({
        width: 16,
        height: 8,
        data: new Uint8Array(16 * 8).map((_, i) => (grey[i] ? 1 : 0)),
        channels: 1,
        depth: 8,
        palette: [
          [0, 0, 0],
          [255, 255, 255],
        ],
      }),
      encodePng({
        width: 16,
        height: 8,
        data: Uint8Array.from({ length: 16 }, (_, i) => (i % 2 === 0 && i < 8 ? 0x00 : 0xff)),
        channels: 1,
        depth: 1,
      }),
    ]
    for (const file of variants) {
      const raster = stacked(rasterBlocks(renderImage(Buffer.from(file).toString('base64'))))
      for (let y = 0; y < 8; y++)
        for (let x = 0; x < 16; x++) expect([x, y, isDot(raster, x, y)]).toEqual([x, y, shape(x, y)])
    }
  })

  test('an image over 2,048 pixels a side is refused before decoding, at the API and in the renderer', () => {
    const tall = png(1, 2_049, () => BLACK)
    const error = imageError(tall)
    expect(error).toMatchObject({ code: 'render.image_invalid', retryable: false })
    expect(error.message).toBe(
      'sections[0]: the image is 1x2049 pixels; at most 2048 pixels a side can be printed (scale it down first)',
    )
    const checked = validate(documentRule, {
      width: 58,
      sections: [{ type: 'image', mediaType: 'image/png', data: tall }],
    })
    expect(checked.ok).toBe(false)
  })

  test('a broken image fails the job with a clear error, never a crash', () => {
    const good = Buffer.from(
      png(8, 8, () => BLACK),
      'base64',
    )
    // The right headers around corrupt pixel data.
    const corrupt = Buffer.from(good)
    for (let i = 40; i < corrupt.length - 12; i++) corrupt[i] = 0x5a
    const error = imageError(corrupt.toString('base64'))
    expect(error.code).toBe('render.image_invalid')
    expect(error.message).toStartWith('sections[0]: the image could not be decoded')
    expect(imageError(good.toString('base64'), 'image/jpeg').message).toBe(
      'sections[0]: the image holds an image/png image, but mediaType says image/jpeg',
    )
  })
})
