// The JPEG decoder (render/jpeg.ts): real files from two encoders (jpeg-js: baseline; mozjpeg:
// progressive, chroma subsampled, grey), broken files, and the decoder's memory after each.
import { describe, expect, spyOn, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import mozjpegEncode, { init as initEncoder } from '@jsquash/jpeg/encode'
import { encode as encodeJpeg } from 'jpeg-js'
import { decodeJpeg, JpegError, KEEP_MEMORY_BYTES, keptDecoderMemory } from '../../src/render/jpeg.ts'
import { decodeImage } from '../../src/render/image.ts'

const wasmPath = createRequire(import.meta.url).resolve('@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm')
await initEncoder(new WebAssembly.Module(readFileSync(wasmPath)))

/** RGBA pixels: black on the left half, white on the right, a mid grey band at the bottom. */
function pixels(width: number, height: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const level = y >= height - 8 ? 128 : x < width / 2 ? 0 : 255
      data.set([level, level, level, 255], (y * width + x) * 4)
    }
  }
  return data
}

async function mozjpeg(width: number, height: number, options: Record<string, unknown> = {}): Promise<Uint8Array> {
  return new Uint8Array(
    await mozjpegEncode({ data: pixels(width, height), width, height, colorSpace: 'srgb' } as ImageData, {
      quality: 90,
      ...options,
    }),
  )
}

/** The grey level at (x, y), give or take what JPEG compression moves it. */
function expectShape(image: { width: number; height: number; luma: Uint8Array }, width: number, height: number): void {
  expect([image.width, image.height]).toEqual([width, height])
  const at = (x: number, y: number) => image.luma[y * width + x]!
  expect(at(2, 2)).toBeLessThan(20)
  expect(at(width - 3, 2)).toBeGreaterThan(235)
  expect(Math.abs(at(width / 2, height - 3) - 128)).toBeLessThan(12)
}

/** The decoder's refusal of `bytes` (which pass the header check, so only the decoder sees what is wrong). */
function decodeError(bytes: Uint8Array): string {
  try {
    decodeJpeg(bytes)
  } catch (error) {
    expect(error).toBeInstanceOf(JpegError)
    return (error as Error).message
  }
  throw new Error('decoded')
}

/** Where the first `marker` segment (0xFF, marker) starts. */
const segmentAt = (file: Uint8Array, marker: number) =>
  file.findIndex((byte, i) => byte === 0xff && file[i + 1] === marker)

const EOI = [0xff, 0xd9]

describe('JPEG decoding', () => {
  test(
    'baseline (jpeg-js), progressive with 4:2:0 chroma and grey-only ' + '(mozjpeg) files decode to the same picture',
    async () => {
      const width = 64
      const height = 48
      const baseline = new Uint8Array(
        encodeJpeg({ width, height, data: new Uint8Array(pixels(width, height).buffer) }, 90).data,
      )
      const progressive = await mozjpeg(width, height)
      const grey = await mozjpeg(width, height, { color_space: 1 })
      expect(segmentAt(progressive, 0xc2)).toBeGreaterThan(0) // SOF2: progressive
      for (const file of [baseline, progressive, grey]) expectShape(decodeJpeg(file), width, height)
    },
  )

  test(
    'scan data cut short is refused, not printed with made-up pixels, and ' + 'libjpeg says nothing on the console',
    async () => {
      const whole = await mozjpeg(64, 48, { progressive: false, baseline: true })
      const cut = Uint8Array.from([...whole.subarray(0, segmentAt(whole, 0xda) + 40), ...EOI])
      const errors = spyOn(console, 'error')
      const logs = spyOn(console, 'log')
      try {
        expect(decodeError(cut)).toMatch(/premature end/i)
        // Through the renderer's entry: the job's error names it.
        expect(() => decodeImage('image/jpeg', Buffer.from(cut).toString('base64'))).toThrow(
          /^the image could not be decoded \(Corrupt JPEG data: premature end of data segment\)$/,
        )
        expect(errors).not.toHaveBeenCalled()
        expect(logs).not.toHaveBeenCalled()
      } finally {
        errors.mockRestore()
        logs.mockRestore()
      }
    },
  )

  test(
    'a broken Huffman table is refused with libjpeg`s reason, and the next ' + 'image decodes on a fresh decoder',
    async () => {
      const good = await mozjpeg(64, 48, { progressive: false, baseline: true })
      const broken = good.slice()
      const table = segmentAt(broken, 0xc4)
      broken.fill(0xff, table + 5, table + 21) // 16 code counts of 255 each: more codes than a table holds
      expect(decodeError(broken)).toBe('Bogus Huffman table definition')
      expect(keptDecoderMemory()).toBeUndefined()
      expectShape(decodeJpeg(good), 64, 48)
      expect(keptDecoderMemory()).toBeGreaterThan(0)
    },
  )

  test(
    'a decoder whose memory a large image grew is dropped, so the memory goes ' + 'back; a small one is kept',
    async () => {
      const large = await mozjpeg(2_048, 2_048, { quality: 50 })
      expectShape(decodeJpeg(large), 2_048, 2_048)
      expect(keptDecoderMemory()).toBeUndefined()
      const small = await mozjpeg(64, 48)
      expectShape(decodeJpeg(small), 64, 48)
      expect(keptDecoderMemory()!).toBeLessThanOrEqual(KEEP_MEMORY_BYTES)
    },
  )
})
