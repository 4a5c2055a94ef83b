// Byte sequences written readably for the preview tests, and the PNG a receipt draws as dots.
import { decode } from 'fast-png'
import { type Block, type DecodeOptions, decodeReceipt, type Receipt, receiptPng } from '../../src/preview/preview.ts'

export const ESC = 0x1b
export const GS = 0x1d
export const LF = 0x0a
export const RS = 0x1e

/** Strings are ASCII (one byte a character), numbers single bytes. */
export function bytes(...parts: (string | number | readonly number[] | Uint8Array)[]): Uint8Array {
  return Uint8Array.from(
    parts.flatMap((part) =>
      typeof part === 'string'
        ? Array.from(part, (c) => c.charCodeAt(0))
        : typeof part === 'number'
          ? [part]
          : [...part],
    ),
  )
}

export const ESCPOS_80: DecodeOptions = { dotsPerLine: 576, commandSet: 'escpos' }
export const STAR_80: DecodeOptions = { dotsPerLine: 576, commandSet: 'starprnt' }

export const escpos = (...parts: Parameters<typeof bytes>): Receipt => decodeReceipt(bytes(...parts), ESCPOS_80)
export const star = (...parts: Parameters<typeof bytes>): Receipt => decodeReceipt(bytes(...parts), STAR_80)

/** The text of each text line (blocks of other kinds left out). */
export function lineTexts(blocks: readonly Block[]): string[] {
  return blocks.flatMap((block) => (block.kind === 'text' ? [block.runs.map((run) => run.text).join('')] : []))
}

/** A PNG as rows of booleans, true for a black pixel. */
export function pngDots(png: Uint8Array): { width: number; height: number; black: (x: number, y: number) => boolean } {
  const image = decode(png)
  if (image.channels !== 1) throw new Error(`expected a grayscale PNG, got ${image.channels} channels`)
  const rowBytes = Math.ceil((image.width * image.depth) / 8)
  const black = (x: number, y: number) => {
    if (image.depth === 1) return ((image.data[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1) === 0
    return image.data[y * image.width + x]! < 128
  }
  return { width: image.width, height: image.height, black }
}

export function drawn(receipt: Receipt, dotsPerLine = 576) {
  return pngDots(receiptPng(receipt, dotsPerLine))
}
