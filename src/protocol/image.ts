// Image sections carry standard base64 PNG or JPEG data. These checks read only the headers: they
// prove the data is an image of the declared type with real dimensions; decoding is the renderer's.

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg'] as const
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number]

export const STANDARD_BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte)
}

function detectType(bytes: Uint8Array): ImageMediaType | undefined {
  if (startsWith(bytes, PNG_SIGNATURE)) return 'image/png'
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  return undefined
}

function pngProblem(bytes: Uint8Array): string | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const isIhdr = bytes.length >= 24 && String.fromCharCode(...bytes.subarray(12, 16)) === 'IHDR'
  if (!isIhdr || view.getUint32(16) === 0 || view.getUint32(20) === 0) return 'is not a valid PNG image (no image header)'
  const end = bytes.subarray(bytes.length - 8, bytes.length - 4)
  if (String.fromCharCode(...end) !== 'IEND') return 'is not a complete PNG image (it is cut short)'
  return undefined
}

function jpegProblem(bytes: Uint8Array): string | undefined {
  // Walk the marker segments up to a start-of-frame marker, which holds the dimensions.
  let offset = 2
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return 'is not a valid JPEG image (broken marker structure)'
    const marker = bytes[offset + 1]!
    const length = (bytes[offset + 2]! << 8) | bytes[offset + 3]!
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isStartOfFrame) {
      const height = (bytes[offset + 5]! << 8) | bytes[offset + 6]!
      const width = (bytes[offset + 7]! << 8) | bytes[offset + 8]!
      if (width === 0 || height === 0) return 'is not a valid JPEG image (zero size)'
      return bytes[bytes.length - 2] === 0xff && bytes[bytes.length - 1] === 0xd9 ? undefined : 'is not a complete JPEG image (it is cut short)'
    }
    offset += 2 + length
  }
  return 'is not a valid JPEG image (no frame header)'
}

/** What is wrong with base64 `data` as an image of `mediaType`, or undefined when it is one. */
export function imageProblem(mediaType: ImageMediaType, data: string): string | undefined {
  if (data.length % 4 !== 0 || !STANDARD_BASE64_PATTERN.test(data)) return 'must be standard padded base64 (A-Z a-z 0-9 + / and = padding)'
  const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0))
  const actual = detectType(bytes)
  if (actual === undefined) return `does not hold a PNG or JPEG image`
  if (actual !== mediaType) return `holds an ${actual} image, but mediaType says ${mediaType}`
  return actual === 'image/png' ? pngProblem(bytes) : jpegProblem(bytes)
}
