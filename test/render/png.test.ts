// The PNG decoder against files built here byte by byte from the PNG specification: interlacing,
// every filter type, transparency, and broken files.
import { describe, expect, test } from 'bun:test'
import { crc32, deflateSync } from 'node:zlib'
import { decodePng, PngError } from '../../src/render/png.ts'

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, data.length)
  out.set(Buffer.from(type, 'latin1'), 4)
  out.set(data, 8)
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)))
  return out
}

/**
 * A pixel format: bits per sample, colour type (0 grey, 2 RGB, 3 palette, 4 grey and alpha), and 1
 * for Adam7 interlacing.
 */
interface Format {
  depth: number
  colorType: number
  interlace?: number
}
/** 8-bit grey, not interlaced: the test pictures' format. */
const GREY: Format = { depth: 8, colorType: 0 }

function ihdr(width: number, height: number, { depth, colorType, interlace = 0 }: Format): Uint8Array {
  const data = new Uint8Array(13)
  const view = new DataView(data.buffer)
  view.setUint32(0, width)
  view.setUint32(4, height)
  data.set([depth, colorType, 0, 0, interlace], 8)
  return chunk('IHDR', data)
}

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)
const file = (...chunks: Uint8Array[]) =>
  new Uint8Array(Buffer.concat([SIGNATURE, ...chunks, chunk('IEND', new Uint8Array())]))
const idat = (raw: number[] | Uint8Array) => chunk('IDAT', deflateSync(Uint8Array.from(raw)))

/** An 8-bit grey test picture: every pixel different. */
const W = 13
const H = 11
const pixel = (x: number, y: number) => (x * 17 + y * 29) & 0xff

/** Rows of 8-bit grey filtered with `filter` (0-4) as the specification defines each one. */
function filtered(filter: number): number[] {
  const raw: number[] = []
  for (let y = 0; y < H; y++) {
    raw.push(filter)
    for (let x = 0; x < W; x++) {
      const left = x > 0 ? pixel(x - 1, y) : 0
      const up = y > 0 ? pixel(x, y - 1) : 0
      const upLeft = x > 0 && y > 0 ? pixel(x - 1, y - 1) : 0
      const p = left + up - upLeft
      const paeth =
        Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - upLeft)
          ? left
          : Math.abs(p - up) <= Math.abs(p - upLeft)
            ? up
            : upLeft
      const predictor = [0, left, up, (left + up) >> 1, paeth][filter]!
      raw.push((pixel(x, y) - predictor) & 0xff)
    }
  }
  return raw
}

const expected = Uint8Array.from({ length: W * H }, (_, i) => pixel(i % W, Math.floor(i / W)))

describe('PNG decoder', () => {
  test('every filter type: none, sub, up, average, Paeth', () => {
    for (let filter = 0; filter <= 4; filter++) {
      expect([filter, decodePng(file(ihdr(W, H, GREY), idat(filtered(filter))))]).toEqual([
        filter,
        { width: W, height: H, luma: expected },
      ])
    }
  })

  test('Adam7 interlacing: seven passes put back in place', () => {
    const passes = [
      [0, 0, 8, 8],
      [4, 0, 8, 8],
      [0, 4, 4, 8],
      [2, 0, 4, 4],
      [0, 2, 2, 4],
      [1, 0, 2, 2],
      [0, 1, 1, 2],
    ]
    const raw: number[] = []
    for (const [x0, y0, dx, dy] of passes) {
      for (let y = y0!; y < H; y += dy!) {
        if (x0! >= W) break
        raw.push(0)
        for (let x = x0!; x < W; x += dx!) raw.push(pixel(x, y))
      }
    }
    expect(decodePng(file(ihdr(W, H, { ...GREY, interlace: 1 }), idat(raw))).luma).toEqual(expected)
  })

  test('image data split over several IDAT chunks', () => {
    const compressed = deflateSync(Uint8Array.from(filtered(0)))
    const half = compressed.length >> 1
    expect(
      decodePng(
        file(ihdr(W, H, GREY), chunk('IDAT', compressed.subarray(0, half)), chunk('IDAT', compressed.subarray(half))),
      ).luma,
    ).toEqual(expected)
  })

  test('transparency: a grey key, an RGB key and palette alpha all show the paper', () => {
    // Grey 8-bit, key 0: the black pixel is transparent.
    expect(decodePng(file(ihdr(2, 1, GREY), chunk('tRNS', Uint8Array.of(0, 0)), idat([0, 0, 100]))).luma).toEqual(
      Uint8Array.of(255, 100),
    )
    // RGB 8-bit, key (10, 20, 30).
    const rgb = decodePng(
      file(
        ihdr(2, 1, { depth: 8, colorType: 2 }),
        chunk('tRNS', Uint8Array.of(0, 10, 0, 20, 0, 30)),
        idat([0, 10, 20, 30, 0, 0, 0]),
      ),
    )
    expect(rgb.luma).toEqual(Uint8Array.of(255, 0))
    // Palette of black (opaque), black (half transparent) and black (transparent), 2 bits a pixel.
    const palette = decodePng(
      file(
        ihdr(3, 1, { depth: 2, colorType: 3 }),
        chunk('PLTE', new Uint8Array(9)),
        chunk('tRNS', Uint8Array.of(255, 128, 0)),
        idat([0, 0b00011000]),
      ),
    )
    expect(palette.luma).toEqual(Uint8Array.of(0, 127, 255))
  })

  test('16-bit grey with alpha, and sub-byte grey depths', () => {
    expect(decodePng(file(ihdr(1, 1, { depth: 16, colorType: 4 }), idat([0, 0, 0, 0, 0]))).luma).toEqual(
      Uint8Array.of(255),
    )
    expect(decodePng(file(ihdr(1, 1, { depth: 16, colorType: 4 }), idat([0, 0, 0, 0xff, 0xff]))).luma).toEqual(
      Uint8Array.of(0),
    )
    expect(decodePng(file(ihdr(4, 1, { depth: 2, colorType: 0 }), idat([0, 0b00011011]))).luma).toEqual(
      Uint8Array.of(0, 85, 170, 255),
    )
    expect(decodePng(file(ihdr(2, 1, { depth: 4, colorType: 0 }), idat([0, 0x0f]))).luma).toEqual(Uint8Array.of(0, 255))
  })

  test('broken files are refused with a reason, never a crash', () => {
    const good = file(ihdr(W, H, GREY), idat(filtered(0)))
    const refusal = (bytes: Uint8Array) => {
      try {
        decodePng(bytes)
      } catch (error) {
        expect(error).toBeInstanceOf(PngError)
        return (error as Error).message
      }
      throw new Error('decoded')
    }
    expect(refusal(new Uint8Array(4))).toBe('has no PNG signature')
    expect(refusal(good.subarray(0, good.length - 20))).toMatch(
      /^has a truncated IDAT chunk|^ends before its IEND chunk/,
    )
    expect(refusal(file(idat(filtered(0))))).toBe('has no IHDR chunk')
    expect(refusal(file(ihdr(W, H, GREY)))).toBe('has no image data')
    expect(refusal(file(ihdr(W, H, { depth: 8, colorType: 3 }), idat(filtered(0))))).toBe(
      'has a palette colour type but no PLTE chunk',
    )
    expect(refusal(file(ihdr(W, H, { depth: 3, colorType: 0 }), idat(filtered(0))))).toBe(
      'has colour type 0 at bit depth 3, which PNG does not define',
    )
    expect(refusal(file(ihdr(0, H, GREY), idat(filtered(0))))).toBe('is empty')
    expect(refusal(file(ihdr(W, H, GREY), idat(filtered(0).map((byte, i) => (i === 0 ? 5 : byte)))))).toBe(
      'has a row with filter type 5, which PNG does not define',
    )
    expect(refusal(file(ihdr(W, H, GREY), idat(filtered(0).slice(0, 50))))).toBe(
      `has 50 bytes of image data where ${H * (W + 1)} were expected`,
    )
    expect(refusal(file(ihdr(W, H, GREY), chunk('IDAT', Uint8Array.of(1, 2, 3, 4))))).toStartWith(
      'has image data that does not inflate',
    )
    // A small file whose data inflates to far more than its header declares stops at the declared size.
    expect(refusal(file(ihdr(W, H, GREY), idat(new Uint8Array(50_000_000))))).toStartWith(
      'has image data that does not inflate',
    )
  })
})
