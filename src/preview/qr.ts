// QR symbols drawn from their data with @paulmillr/qr, which, like a printer, picks the smallest
// version and the densest mode that hold the data.
import { encodeQR } from '@paulmillr/qr'
import type { QrErrorCorrection } from './receipt.ts'

const LEVELS = { L: 'low', M: 'medium', Q: 'quartile', H: 'high' } as const

// ignoreBOM keeps a leading byte order mark as a character, so the bytes encoded are the bytes stored.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
const lenientUtf8 = new TextDecoder('utf-8', { ignoreBOM: true })

/** The data as text, U+FFFD for bytes that are not UTF-8. */
export function qrText(data: Uint8Array): string {
  return lenientUtf8.decode(data)
}

type Modules = boolean[][] | undefined

/** Symbols already encoded: the decoder checks each one fits, then the drawing draws it. */
const encoded = new WeakMap<Uint8Array, Partial<Record<QrErrorCorrection, Modules>>>()

/**
 * The dark modules, row by row, without a quiet zone; undefined when no QR version holds the data.
 * The library takes text and encodes it as UTF-8, so data that is not UTF-8 is drawn as `qrText`.
 */
export function qrModules(data: Uint8Array, level: QrErrorCorrection): Modules {
  const levels = encoded.get(data) ?? {}
  if (!(level in levels)) {
    try {
      levels[level] = encodeQR(qrText(data), 'raw', { ecc: LEVELS[level], border: 0 })
    } catch {
      levels[level] = undefined
    }
    encoded.set(data, levels)
  }
  return levels[level]
}

export function isUtf8(data: Uint8Array): boolean {
  try {
    strictUtf8.decode(data)
    return true
  } catch {
    return false
  }
}
