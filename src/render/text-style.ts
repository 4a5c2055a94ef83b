// How a text or row section's characters print (printhub's extensions beyond bold): magnified,
// underlined, white on black, in font B; and what the model can do of it. What the model cannot do
// is degraded visibly, one rule each (docs/document-extensions.md): font B becomes font A; double
// underline single; magnification beyond the model's, an underline it lacks or white on black it
// lacks are drawn as a picture of the line in that style.
import type { PrinterProfile } from '../profiles/profile.ts'
import type { Underline } from './command-set.ts'

export interface TextStyle {
  readonly bold: boolean
  /** Magnification across and down, 1 to 8. */
  readonly width: number
  readonly height: number
  readonly underline: Underline
  readonly invert: boolean
  readonly font: 'a' | 'b'
}

/** What initialisation leaves, and what rows, dividers, codes and images print in. */
export const PLAIN: TextStyle = { bold: false, width: 1, height: 1, underline: 'none', invert: false, font: 'a' }

/** A section's fields, as the document gives them. */
export interface StyleFields {
  bold?: boolean
  size?: { width: number; height: number }
  underline?: 'single' | 'double'
  invert?: boolean
  font?: 'a' | 'b'
}

export function styleOf(fields: StyleFields): TextStyle {
  return {
    bold: fields.bold ?? false,
    width: fields.size?.width ?? 1,
    height: fields.size?.height ?? 1,
    underline: fields.underline ?? 'none',
    invert: fields.invert ?? false,
    font: fields.font ?? 'a',
  }
}

/**
 * The style the printer is asked for, and whether the lines must be drawn instead (the printer cannot do the style).
 */
export function printable(style: TextStyle, text: PrinterProfile['text']): { style: TextStyle; drawn: boolean } {
  const font = style.font === 'b' && !text.fontB ? 'a' : style.font
  const underline = style.underline === 'double' && text.underline === 'single' ? 'single' : style.underline
  const drawn =
    style.width > text.maxSize ||
    style.height > text.maxSize ||
    (underline !== 'none' && text.underline === 'none') ||
    (style.invert && !text.invert)
  // A drawn line is drawn in font A's cells, as the picture of any text is.
  return { style: { ...style, font: drawn ? 'a' : font, underline }, drawn }
}

/** Characters a line holds in this style: the font's columns over the magnification. */
export function columnsOf(style: TextStyle, columns: { a: number; b: number }): number {
  return Math.max(1, Math.floor(columns[style.font] / style.width))
}

export const sameStyle = (a: TextStyle, b: TextStyle) =>
  a.bold === b.bold &&
  a.width === b.width &&
  a.height === b.height &&
  a.underline === b.underline &&
  a.invert === b.invert &&
  a.font === b.font
