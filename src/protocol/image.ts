// Image sections carry standard base64 PNG or JPEG data. These checks read only the headers and
// the last bytes: they prove the data is a whole image of the declared type with printable
// dimensions, without decoding a megabyte on the request path; decoding pixels is the renderer's job.

import { MAX_IMAGE_BASE64_LENGTH } from './limits.ts'
import { object, oneOf, refine, string } from './rules.ts'

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg'] as const
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number]

export const STANDARD_BASE64_HINT = 'must be standard padded base64 (A-Z a-z 0-9 + / and = padding)'

/** The runtime's own base64 decoder (TC39 Uint8Array.fromBase64), in one native pass. */
const fromBase64 = (
  Uint8Array as unknown as { fromBase64(text: string, options: { lastChunkHandling: 'loose' }): Uint8Array }
).fromBase64

/**
 * Standard padded base64: the alphabet, `=` padding only at the end, a length that is a multiple
 * of 4; the same strings as the schema's grouped pattern. The runtime's decoder checks the
 * alphabet and the padding seven times faster than a regular expression over a megabyte; the
 * ASCII whitespace it skips would leave fewer bytes than the length promises, so it is refused.
 */
export function isStandardBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0
  try {
    return fromBase64(text, { lastChunkHandling: 'loose' }).length === (text.length / 4) * 3 - padding
  } catch {
    return false
  }
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** Random access to the bytes that base64 text encodes, decoding only the groups asked for. */
class Base64Bytes {
  readonly length: number

  constructor(private readonly text: string) {
    this.length = (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0)
  }

  /** Up to `count` bytes from `start`; fewer past the end. */
  read(start: number, count: number): Uint8Array {
    const from = Math.max(0, start)
    const to = Math.min(this.length, start + count)
    if (to <= from) return new Uint8Array(0)
    const first = Math.floor(from / 3)
    const binary = atob(this.text.slice(first * 4, Math.ceil(to / 3) * 4))
    return Uint8Array.from(binary.slice(from - first * 3, to - first * 3), (c) => c.charCodeAt(0))
  }
}

const ascii = (bytes: Uint8Array) => String.fromCharCode(...bytes)
const uint32 = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0

export interface ImageSize {
  width: number
  height: number
}

/** The most pixels an image may have along either side, decoded or not (OpenPrinter's limit). */
export const MAX_IMAGE_SIDE = 2_048

function pngHeader(data: Base64Bytes): ImageSize | string {
  const head = data.read(0, 24)
  const width = uint32(head, 16)
  const height = uint32(head, 20)
  if (ascii(head.subarray(12, 16)) !== 'IHDR' || width === 0 || height === 0)
    return 'is not a valid PNG image (no image header)'
  // A PNG ends with the IEND chunk: length 0, "IEND", its CRC.
  if (ascii(data.read(data.length - 8, 4)) !== 'IEND') return 'is not a complete PNG image (it is cut short)'
  return { width, height }
}

function jpegHeader(data: Base64Bytes): ImageSize | string {
  // Walk the marker segments up to a start-of-frame marker, which holds the dimensions.
  for (let offset = 2; offset + 9 <= data.length; ) {
    const segment = data.read(offset, 9)
    if (segment[0] !== 0xff) return 'is not a valid JPEG image (broken marker structure)'
    const marker = segment[1]!
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isStartOfFrame) {
      const height = (segment[5]! << 8) | segment[6]!
      const width = (segment[7]! << 8) | segment[8]!
      if (width === 0 || height === 0) return 'is not a valid JPEG image (zero size)'
      const end = data.read(data.length - 2, 2)
      return end[0] === 0xff && end[1] === 0xd9 ? { width, height } : 'is not a complete JPEG image (it is cut short)'
    }
    offset += 2 + ((segment[2]! << 8) | segment[3]!)
  }
  return 'is not a valid JPEG image (no frame header)'
}

/**
 * The size base64 `data` declares as an image of `mediaType` (read from its headers only), or
 * what is wrong with it: not base64, not that type, cut short, or larger than MAX_IMAGE_SIDE.
 */
export function imageHeader(mediaType: ImageMediaType, data: string): ImageSize | string {
  if (!isStandardBase64(data)) return STANDARD_BASE64_HINT
  const bytes = new Base64Bytes(data)
  const head = bytes.read(0, 8)
  const actual = PNG_SIGNATURE.every((byte, i) => head[i] === byte)
    ? 'image/png'
    : head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff
      ? 'image/jpeg'
      : undefined
  if (actual === undefined) return 'does not hold a PNG or JPEG image'
  if (actual !== mediaType) return `holds an ${actual} image, but mediaType says ${mediaType}`
  const header = actual === 'image/png' ? pngHeader(bytes) : jpegHeader(bytes)
  if (typeof header === 'string') return header
  if (header.width > MAX_IMAGE_SIDE || header.height > MAX_IMAGE_SIDE) {
    return (
      `is ${header.width}x${header.height} pixels; at most ${MAX_IMAGE_SIDE} ` +
      `pixels a side can be printed (scale it down first)`
    )
  }
  return header
}

/** What is wrong with base64 `data` as an image of `mediaType`, or undefined when it is one. */
export function imageProblem(mediaType: ImageMediaType, data: string): string | undefined {
  const header = imageHeader(mediaType, data)
  return typeof header === 'string' ? header : undefined
}

/** An image as an image section (and a stored image) carries it: its type and standard base64, by shape. */
export const imageShapeRule = object({
  mediaType: oneOf(IMAGE_MEDIA_TYPES),
  data: refine(string({ min: 4, max: MAX_IMAGE_BASE64_LENGTH }), (data) =>
    isStandardBase64(data) ? undefined : STANDARD_BASE64_HINT,
  ),
})

/** The same, and a whole image of that type with printable dimensions (its headers read). */
export const printableImageRule = refine(imageShapeRule, ({ mediaType, data }) => {
  const problem = imageProblem(mediaType, data)
  return problem && [{ path: 'data', message: problem }]
})
