// Image sections to dots: PNG or JPEG decoded in pure JS, flattened on white paper, scaled down to
// the printable width, then dithered (photos) or thresholded (line art: logos, text, codes).
import { decode as decodePng, type DecodedPng } from 'fast-png'
import { decode as decodeJpeg } from 'jpeg-js'
import { imageHeader, type ImageMediaType } from '../protocol/image.ts'
import { RenderError } from './errors.ts'

/** Grey levels, one byte a pixel: 0 is black, 255 white (paper). */
export interface GrayImage {
  width: number
  height: number
  luma: Uint8Array
}

/** Dots to print, one bit a dot, rows of `widthBytes` bytes, the leftmost dot in the high bit. */
export interface DotImage {
  widthBytes: number
  height: number
  rows: Uint8Array
}

/** What a JPEG decoder may allocate (jpeg-js counts its own buffers against it). */
const JPEG_MEMORY_BUDGET_MB = 16
/** Grey levels darker than this print as a dot when thresholding. */
const THRESHOLD = 128
/** An image with at least this share of near-black and near-white pixels is line art. */
const LINE_ART_SHARE = 0.9

const invalid = (message: string) => new RenderError('render.image_invalid', `the image ${message}`, false)

/** Decodes the image, checking its declared size first so nothing oversized is ever decoded. */
export function decodeImage(mediaType: ImageMediaType, base64: string): GrayImage {
  const header = imageHeader(mediaType, base64)
  if (typeof header === 'string') throw invalid(header)
  const bytes = new Uint8Array(Buffer.from(base64, 'base64'))
  try {
    return mediaType === 'image/png' ? pngToGray(decodePng(bytes)) : jpegToGray(bytes)
  } catch (error) {
    if (error instanceof RenderError) throw error
    throw invalid(`could not be decoded (${(error as Error).message})`)
  }
}

function jpegToGray(bytes: Uint8Array): GrayImage {
  const { width, height, data } = decodeJpeg(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: JPEG_MEMORY_BUDGET_MB })
  const luma = new Uint8Array(width * height)
  for (let i = 0; i < luma.length; i++) luma[i] = Math.round(lumaOf(data[i * 4]!, data[i * 4 + 1]!, data[i * 4 + 2]!))
  return { width, height, luma }
}

/** Rec. 601 luma of an 8-bit colour. */
const lumaOf = (r: number, g: number, b: number) => (r * 299 + g * 587 + b * 114) / 1000

/** Alpha over white paper: what shows where the image is transparent is the paper. */
const onWhite = (luma: number, alpha: number) => Math.round((luma * alpha + 255 * (255 - alpha)) / 255)

function pngToGray(png: DecodedPng): GrayImage {
  const { width, height, depth, channels, palette, transparency } = png
  const max = 2 ** depth - 1
  const rowBits = width * channels * depth
  const rowBytes = Math.ceil(rowBits / 8)
  const data = png.data
  // Samples of any depth: 16-bit data comes as Uint16Array, sub-byte depths packed in bytes.
  const sample = (row: number, index: number): number => {
    if (depth === 16) return data[row * width * channels + index]!
    if (depth === 8) return data[row * rowBytes + index]!
    const bit = index * depth
    const byte = data[row * rowBytes + (bit >> 3)]!
    return (byte >> (8 - depth - (bit & 7))) & max
  }
  const to8 = (value: number) => Math.round((value * 255) / max)
  const luma = new Uint8Array(width * height)
  if (depth === 8 && !palette && !transparency) return { width, height, luma: eightBitToGray(data as Uint8Array, width * height, channels, luma) }
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = x * channels
      let gray: number
      let alpha = 255
      if (palette) {
        const entry = palette[sample(y, at)] ?? [0, 0, 0]
        gray = lumaOf(entry[0]!, entry[1]!, entry[2]!)
        if (entry.length === 4) alpha = entry[3]!
      } else if (channels <= 2) {
        const value = sample(y, at)
        gray = to8(value)
        if (channels === 2) alpha = to8(sample(y, at + 1))
        else if (transparency?.[0] === value) alpha = 0
      } else {
        const [r, g, b] = [sample(y, at), sample(y, at + 1), sample(y, at + 2)]
        gray = lumaOf(to8(r), to8(g), to8(b))
        if (channels === 4) alpha = to8(sample(y, at + 3))
        else if (transparency && transparency[0] === r && transparency[1] === g && transparency[2] === b) alpha = 0
      }
      luma[y * width + x] = onWhite(gray, alpha)
    }
  }
  return { width, height, luma }
}

/** The common case (8-bit grey or colour, with or without alpha) without per-sample arithmetic. */
function eightBitToGray(data: Uint8Array, pixels: number, channels: number, luma: Uint8Array): Uint8Array {
  for (let p = 0, i = 0; p < pixels; p++, i += channels) {
    const gray = channels <= 2 ? data[i]! : lumaOf(data[i]!, data[i + 1]!, data[i + 2]!)
    const alpha = channels === 2 ? data[i + 1]! : channels === 4 ? data[i + 3]! : 255
    luma[p] = alpha === 255 ? Math.round(gray) : onWhite(gray, alpha)
  }
  return luma
}

/**
 * Scales an image wider than `maxWidth` down to exactly that width, keeping its aspect ratio, by
 * averaging the source area each new pixel covers; a narrower image is left as it is.
 */
export function fitWidth(image: GrayImage, maxWidth: number): GrayImage {
  if (image.width <= maxWidth) return image
  const width = maxWidth
  const height = Math.max(1, Math.round((image.height * width) / image.width))
  const horizontal = resampleRows(image.luma, image.width, image.height, width)
  // The vertical pass is the horizontal one on the transposed image.
  const transposed = transpose(horizontal, width, image.height)
  const vertical = resampleRows(transposed, image.height, width, height)
  return { width, height, luma: transpose(vertical, height, width) }
}

/** Each row of `rows` (count x from) averaged down to `to` pixels. */
function resampleRows(source: Uint8Array, from: number, count: number, to: number): Uint8Array {
  const out = new Uint8Array(to * count)
  const scale = from / to
  for (let x = 0; x < to; x++) {
    const start = x * scale
    const end = start + scale
    for (let row = 0; row < count; row++) {
      let sum = 0
      for (let s = Math.floor(start); s < end; s++) {
        const weight = Math.min(end, s + 1) - Math.max(start, s)
        sum += source[row * from + s]! * weight
      }
      out[row * to + x] = Math.round(sum / scale)
    }
  }
  return out
}

function transpose(source: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height)
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) out[x * height + y] = source[y * width + x]!
  return out
}

/**
 * Dots for a grey image. Line art (almost only black and white) is thresholded, so its edges
 * stay sharp; anything else is dithered with Atkinson's error diffusion, which spreads only
 * three quarters of the error and so keeps the contrast that thermal paper needs.
 */
export function toDots(image: GrayImage): DotImage {
  const { width, height, luma } = image
  const widthBytes = Math.ceil(width / 8)
  const rows = new Uint8Array(widthBytes * height)
  if (isLineArt(luma)) {
    for (let y = 0, i = 0; y < height; y++) {
      for (let x = 0; x < width; x++, i++) if (luma[i]! < THRESHOLD) rows[y * widthBytes + (x >> 3)]! |= 0x80 >> (x & 7)
    }
    return { widthBytes, height, rows }
  }
  // Integer levels with the error carried in place: one eighth to each of six neighbours.
  const levels = Int16Array.from(luma)
  for (let y = 0, i = 0; y < height; y++) {
    for (let x = 0; x < width; x++, i++) {
      const level = levels[i]!
      let error: number
      if (level < THRESHOLD) {
        rows[y * widthBytes + (x >> 3)]! |= 0x80 >> (x & 7)
        error = level >> 3
      } else error = (level - 255) >> 3
      if (error === 0) continue
      if (x + 1 < width) levels[i + 1]! += error
      if (x + 2 < width) levels[i + 2]! += error
      if (y + 1 < height) {
        const below = i + width
        if (x > 0) levels[below - 1]! += error
        levels[below]! += error
        if (x + 1 < width) levels[below + 1]! += error
        if (y + 2 < height) levels[below + width]! += error
      }
    }
  }
  return { widthBytes, height, rows }
}

function isLineArt(luma: Uint8Array): boolean {
  let extreme = 0
  for (const level of luma) if (level < 32 || level > 223) extreme++
  return extreme >= luma.length * LINE_ART_SHARE
}
