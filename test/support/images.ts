// Small real image files for image sections.
import { deflateSync } from 'node:zlib'
import { encode as encodeJpeg } from 'jpeg-js'

/** A 1x1 PNG. */
export const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

/** A baseline JPEG header with a 1x1 frame, then the end-of-image marker. */
export const JPEG_1X1 = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
  0x00, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00, 0xff, 0xd9,
]).toString('base64')

/** A PNG padded with an ancillary chunk to about `bytes` bytes (still a valid PNG). */
export function pngOfSize(bytes: number): string {
  const png = Buffer.from(PNG_1X1, 'base64')
  const iend = png.subarray(png.length - 12)
  const padding = Buffer.alloc(Math.max(0, bytes - png.length - 12))
  const chunk = Buffer.concat([Buffer.alloc(4), Buffer.from('teXt'), padding, Buffer.alloc(4)])
  chunk.writeUInt32BE(padding.length, 0)
  return Buffer.concat([png.subarray(0, png.length - 12), chunk, iend]).toString('base64')
}

/** The JPEG above with an application segment of `bytes` bytes (EXIF-like) before its frame header. */
export function jpegWithSegment(bytes: number): string {
  const jpeg = Buffer.from(JPEG_1X1, 'base64')
  const segment = Buffer.alloc(4 + bytes)
  segment.writeUInt16BE(0xffe1, 0)
  segment.writeUInt16BE(2 + bytes, 2)
  return Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]).toString('base64')
}

/** A black PNG of `width` × `height` pixels (1 bit grey): a few hundred bytes, however many pixels. */
export function blackPng(width: number, height: number): string {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(Bun.hash.crc32(body) >>> 0)
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 1 // bit depth
  header[9] = 0 // grey
  // Each row: filter type 0, then all-zero bits (black).
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height)
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64')
}

/** A grey gradient as a baseline JPEG of `width` × `height` pixels (decoded by the renderer, unlike JPEG_1X1). */
export function gradientJpeg(width: number, height: number): string {
  const data = new Uint8Array(width * height * 4)
  for (let i = 0; i < width * height; i++)
    data.fill(Math.round((255 * (i % width)) / width), i * 4, i * 4 + 3).fill(255, i * 4 + 3, i * 4 + 4)
  return Buffer.from(encodeJpeg({ width, height, data }, 80).data).toString('base64')
}
