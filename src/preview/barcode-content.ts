// What a barcode command's data bytes encode: the text a scanner reads back and, for code 128,
// the symbol values. Returns a problem instead when a printer would refuse the data.
import { CODE39_PATTERNS, eanCheckDigit } from './barcode-patterns.ts'
import { type Code128Data, code128EscPos, code128StarPrnt } from './code128.ts'
import type { BarcodeSymbology } from './receipt.ts'

export type BarcodeContent =
  | { ok: true; text: string; code128: number[]; note?: string }
  | { ok: false; problem: string }

const ascii = (data: Uint8Array) => String.fromCharCode(...data)
const fail = (problem: string): BarcodeContent => ({ ok: false, problem })

export function barcodeContent(
  symbology: BarcodeSymbology,
  data: Uint8Array,
  code128Data: Code128Data,
): BarcodeContent {
  switch (symbology) {
    case 'upca':
      return eanContent(ascii(data), 11, 'UPC-A')
    case 'ean13':
      return eanContent(ascii(data), 12, 'EAN-13')
    case 'code39':
      return code39Content(ascii(data))
    case 'code128': {
      const content = code128Data === 'escpos' ? code128EscPos(data) : code128StarPrnt(data)
      return typeof content === 'string' ? fail(content) : { ok: true, text: content.text, code128: content.values }
    }
  }
}

/** `digits` data digits and an optional check digit; the printer computes the check digit, and its own wins. */
function eanContent(value: string, digits: number, name: string): BarcodeContent {
  if (!/^\d+$/.test(value) || (value.length !== digits && value.length !== digits + 1)) {
    return fail(`${name} takes ${digits} or ${digits + 1} digits, not ${JSON.stringify(value)}`)
  }
  const check = eanCheckDigit(value.slice(0, digits))
  const text = value.slice(0, digits) + check
  const note =
    value.length > digits && value !== text
      ? `${name} check digit ${value[digits]} is wrong; the printer prints ${check}`
      : undefined
  return { ok: true, text, code128: [], ...(note && { note }) }
}

/** The printer adds the `*` start and stop characters; data that brings its own keeps them out of the text. */
function code39Content(value: string): BarcodeContent {
  const text = value.length >= 2 && value.startsWith('*') && value.endsWith('*') ? value.slice(1, -1) : value
  const invalid = Array.from(text).find((c) => c === '*' || CODE39_PATTERNS[c] === undefined)
  if (text.length === 0) return fail('code 39 data is empty')
  if (invalid !== undefined) return fail(`code 39 has no character ${JSON.stringify(invalid)}`)
  return { ok: true, text, code128: [] }
}
