// PNG to grey levels on white paper (ISO/IEC 15948): every colour type, bit depth and Adam7
// interlacing. The chunks, filters and pixels are read here in JavaScript; only the zlib stream is
// inflated by the runtime's own zlib, five times faster than inflating it in JavaScript.
import { inflateSync } from 'node:zlib'
import { type GrayImage, grayOf, lumaOf, onWhite } from './gray.ts'

/** Thrown for a file that is not a PNG this decoder can read; the caller names the image. */
export class PngError extends Error {}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** Channels of each colour type: grey, RGB, palette index, grey + alpha, RGBA. */
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }
/** Bit depths each colour type allows. */
const DEPTHS: Readonly<Record<number, readonly number[]>> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
}

/** Adam7 passes: first column, first row, column step, row step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const
const NOT_INTERLACED = [[0, 0, 1, 1]] as const

interface Header {
  width: number
  height: number
  depth: number
  colorType: number
  interlaced: boolean
}

/** Grey level and alpha (0-255) of palette entries or of a transparent colour key. */
interface Transparency {
  palette?: { gray: Uint8Array; alpha: Uint8Array }
  /** The sample values (at the image's depth) that are fully transparent. */
  key?: readonly number[]
}

export function decodePng(bytes: Uint8Array): GrayImage {
  if (bytes.length < 8 || SIGNATURE.some((byte, i) => bytes[i] !== byte)) throw new PngError('has no PNG signature')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let header: Header | undefined
  let plte: Uint8Array | undefined
  let trns: Uint8Array | undefined
  const idat: Uint8Array[] = []
  let offset = 8
  for (;;) {
    if (offset + 12 > bytes.length) throw new PngError('ends before its IEND chunk')
    const length = view.getUint32(offset)
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8))
    const data = bytes.subarray(offset + 8, offset + 8 + length)
    if (data.length !== length || offset + 12 + length > bytes.length)
      throw new PngError(`has a truncated ${type} chunk`)
    offset += 12 + length
    if (type === 'IHDR') header = readHeader(data)
    else if (type === 'PLTE') plte = data
    else if (type === 'tRNS') trns = data
    else if (type === 'IDAT') idat.push(data)
    else if (type === 'IEND') break
  }
  if (!header) throw new PngError('has no IHDR chunk')
  if (header.colorType === 3 && !plte) throw new PngError('has a palette colour type but no PLTE chunk')
  if (idat.length === 0) throw new PngError('has no image data')
  const passes = header.interlaced ? ADAM7 : NOT_INTERLACED
  const channels = CHANNELS[header.colorType]!
  const bitsPerPixel = channels * header.depth
  // The exact size the image data inflates to: a filter byte and the packed samples per row.
  let expected = 0
  for (const [x0, y0, dx, dy] of passes) {
    const columns = Math.ceil((header.width - x0) / dx)
    const rows = Math.ceil((header.height - y0) / dy)
    if (columns > 0 && rows > 0) expected += rows * (1 + Math.ceil((columns * bitsPerPixel) / 8))
  }
  let raw: Uint8Array
  try {
    // Inflated in chunks of up to 1 MiB: in the default 16 KiB a photo took twice as long.
    raw = inflateSync(idat.length === 1 ? idat[0]! : Buffer.concat(idat), {
      maxOutputLength: expected,
      chunkSize: Math.min(Math.max(expected, 1 << 16), 1 << 20),
    })
  } catch (error) {
    throw new PngError(`has image data that does not inflate (${(error as Error).message})`)
  }
  if (raw.length !== expected)
    throw new PngError(`has ${raw.length} bytes of image data where ${expected} were expected`)
  const transparency = readTransparency(header, plte, trns)
  const luma = new Uint8Array(header.width * header.height)
  const image: DecodedImage = { header, channels, transparency, luma }
  let at = 0
  for (const [x0, y0, dx, dy] of passes) {
    const columns = Math.ceil((header.width - x0) / dx)
    const rows = Math.ceil((header.height - y0) / dy)
    if (columns <= 0 || rows <= 0) continue
    const rowBytes = Math.ceil((columns * bitsPerPixel) / 8)
    const pass = raw.subarray(at, at + rows * (1 + rowBytes))
    at += pass.length
    unfilter(pass, rows, rowBytes, Math.max(1, bitsPerPixel >> 3))
    const layout: PassLayout = { columns, step: dx }
    for (let row = 0; row < rows; row++) {
      const samples = pass.subarray(row * (1 + rowBytes) + 1, (row + 1) * (1 + rowBytes))
      writeRow(samples, image, layout, (y0 + row * dy) * header.width + x0)
    }
  }
  return { width: header.width, height: header.height, luma }
}

function readHeader(data: Uint8Array): Header {
  if (data.length !== 13) throw new PngError('has an IHDR chunk of the wrong length')
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  const [depth, colorType, compression, filter, interlace] = data.subarray(8)
  const header = {
    width: view.getUint32(0),
    height: view.getUint32(4),
    depth: depth!,
    colorType: colorType!,
    interlaced: interlace === 1,
  }
  if (header.width === 0 || header.height === 0) throw new PngError('is empty')
  if (!DEPTHS[header.colorType]?.includes(header.depth))
    throw new PngError(`has colour type ${header.colorType} at bit depth ${header.depth}, which PNG does not define`)
  if (compression !== 0 || filter !== 0 || interlace! > 1)
    throw new PngError('uses a compression, filter or interlace method PNG does not define')
  return header
}

function readTransparency(header: Header, plte: Uint8Array | undefined, trns: Uint8Array | undefined): Transparency {
  if (header.colorType === 3) {
    const entries = Math.floor(plte!.length / 3)
    const gray = new Uint8Array(256)
    const alpha = new Uint8Array(256).fill(255)
    for (let i = 0; i < entries; i++) gray[i] = grayOf(plte![i * 3]!, plte![i * 3 + 1]!, plte![i * 3 + 2]!)
    trns?.forEach((value, i) => (alpha[i] = value))
    return { palette: { gray, alpha } }
  }
  if (!trns || (header.colorType !== 0 && header.colorType !== 2)) return {}
  const view = new DataView(trns.buffer, trns.byteOffset, trns.byteLength)
  const samples = header.colorType === 0 ? 1 : 3
  if (trns.length < samples * 2) return {}
  return { key: Array.from({ length: samples }, (_, i) => view.getUint16(i * 2)) }
}

/** Undoes the per-row filters in place (filter byte first in each row). */
function unfilter(pass: Uint8Array, rows: number, rowBytes: number, bytesPerPixel: number): void {
  const stride = rowBytes + 1
  for (let row = 0; row < rows; row++) {
    const start = row * stride + 1
    const filter = pass[start - 1]!
    const above = row > 0 ? start - stride : -1
    switch (filter) {
      case 0:
        break
      case 1:
        for (let i = bytesPerPixel; i < rowBytes; i++)
          pass[start + i] = (pass[start + i]! + pass[start + i - bytesPerPixel]!) & 0xff
        break
      case 2:
        if (above >= 0)
          for (let i = 0; i < rowBytes; i++) pass[start + i] = (pass[start + i]! + pass[above + i]!) & 0xff
        break
      case 3:
        for (let i = 0; i < rowBytes; i++) {
          const left = i >= bytesPerPixel ? pass[start + i - bytesPerPixel]! : 0
          const up = above >= 0 ? pass[above + i]! : 0
          pass[start + i] = (pass[start + i]! + ((left + up) >> 1)) & 0xff
        }
        break
      case 4:
        for (let i = 0; i < rowBytes; i++) {
          const left = i >= bytesPerPixel ? pass[start + i - bytesPerPixel]! : 0
          const up = above >= 0 ? pass[above + i]! : 0
          const upLeft = above >= 0 && i >= bytesPerPixel ? pass[above + i - bytesPerPixel]! : 0
          const estimate = left + up - upLeft
          const toLeft = Math.abs(estimate - left)
          const toUp = Math.abs(estimate - up)
          const toUpLeft = Math.abs(estimate - upLeft)
          const predictor = toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft
          pass[start + i] = (pass[start + i]! + predictor) & 0xff
        }
        break
      default:
        throw new PngError(`has a row with filter type ${filter}, which PNG does not define`)
    }
  }
}

/** The image being decoded: its header, samples per pixel and transparency, and its grey levels so far. */
interface DecodedImage {
  header: Header
  channels: number
  transparency: Transparency
  luma: Uint8Array
}

/** A pass of the image (an interlaced one has seven): its pixels per row, and the step between them in `luma`. */
interface PassLayout {
  columns: number
  step: number
}

/** One row of samples as grey levels on white, at every `step`-th pixel of `luma` from `at`. */
function writeRow(samples: Uint8Array, image: DecodedImage, { columns, step }: PassLayout, at: number): void {
  const { header, channels, transparency, luma } = image
  const { depth, colorType } = header
  if (depth === 8 && colorType !== 3 && !transparency.key) {
    // The common case, without per-sample arithmetic: 8-bit grey or colour, with or without alpha.
    for (let x = 0, i = 0; x < columns; x++, i += channels, at += step) {
      const gray = channels <= 2 ? samples[i]! : lumaOf(samples[i]!, samples[i + 1]!, samples[i + 2]!)
      const alpha = channels === 2 ? samples[i + 1]! : channels === 4 ? samples[i + 3]! : 255
      luma[at] = alpha === 255 ? Math.round(gray) : onWhite(gray, alpha)
    }
    return
  }
  const max = 2 ** depth - 1
  const sample = (index: number): number => {
    if (depth === 16) return (samples[index * 2]! << 8) | samples[index * 2 + 1]!
    if (depth === 8) return samples[index]!
    const bit = index * depth
    return (samples[bit >> 3]! >> (8 - depth - (bit & 7))) & max
  }
  const to8 = (value: number) => (value * 255) / max
  const { palette, key } = transparency
  for (let x = 0; x < columns; x++, at += step) {
    const first = x * channels
    let gray: number
    let alpha = 255
    if (palette) {
      const index = sample(first)
      gray = palette.gray[index]!
      alpha = palette.alpha[index]!
    } else if (channels <= 2) {
      const value = sample(first)
      gray = to8(value)
      if (channels === 2) alpha = to8(sample(first + 1))
      else if (key?.[0] === value) alpha = 0
    } else {
      const [r, g, b] = [sample(first), sample(first + 1), sample(first + 2)]
      gray = lumaOf(to8(r), to8(g), to8(b))
      if (channels === 4) alpha = to8(sample(first + 3))
      else if (key && key[0] === r && key[1] === g && key[2] === b) alpha = 0
    }
    luma[at] = onWhite(gray, alpha)
  }
}
