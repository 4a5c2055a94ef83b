// The preview of what one printer model, at one paper width, prints from the bytes it was sent.
import { codeTablesOf, type PrinterProfile } from '../profiles/profile.ts'
import type { PaperWidth } from '../protocol/document.ts'
import { decodeReceipt } from './decode.ts'
import { receiptPng } from './png.ts'
import type { Receipt } from './receipt.ts'
import { receiptText } from './text.ts'

export interface PrinterPreview {
  receipt: Receipt
  /** The receipt as text, in the model's columns. */
  text: string[]
  /** The receipt as a PNG, one pixel per dot (drawn when asked: it takes milliseconds). */
  png(): Uint8Array
}

/** Reads `bytes` as the model reads them: its command language, code page numbers and paper geometry. */
export function previewFor(bytes: Uint8Array, profile: PrinterProfile, width: PaperWidth): PrinterPreview {
  const geometry = profile.widths[width]
  if (!geometry) throw new RangeError(`the printer model ${profile.id} takes no ${width} mm paper`)
  const receipt = decodeReceipt(bytes, {
    dotsPerLine: geometry.dotsPerLine,
    commandSet: profile.commandSet,
    codeTables: codeTablesOf(profile),
  })
  return { receipt, text: receiptText(receipt, geometry.columns), png: () => receiptPng(receipt, geometry.dotsPerLine) }
}
