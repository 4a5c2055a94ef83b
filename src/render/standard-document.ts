// A document with printhub's extensions, made into one an agent that is not printhub can print
// (OpenPrinter v1's sections only): text and rows in a style OpenPrinter lacks become pictures of
// their lines in that style, laid out for the printer's paper as printhub's own renderer lays them
// out (an image section, which every agent prints). What no picture can do (the drawer, the
// buzzer) is named, and the job is not sent.
import { encode } from 'fast-png'
import { documentExtensions, type PrintDocument, type Section } from '../protocol/document.ts'
import { MAX_IMAGE_SIDE } from '../protocol/image.ts'
import type { Issue } from '../protocol/rules.ts'
import type { PrinterProfile } from '../profiles/profile.ts'
import type { DotImage } from './image.ts'
import { drawLine, drawnCells } from './raster-text.ts'
import { type CellWidth, layoutRow, wrapText } from './text-layout.ts'
import { columnsOf, styleOf } from './text-style.ts'

/**
 * Every character is drawn, so a line counts the cells of its glyphs; one the font lacks counts one (and fails later,
 * as anywhere).
 */
const drawnWidth: CellWidth = (character) => drawnCells(character) ?? 1

/** Rows stacked into pictures of at most MAX_IMAGE_SIDE rows each, as PNG image sections. */
function pictures(lines: DotImage[]): Section[] {
  const sections: Section[] = []
  let batch: DotImage[] = []
  let height = 0
  const flush = () => {
    if (batch.length === 0) return
    const { widthBytes } = batch[0]!
    const rows = new Uint8Array(widthBytes * height)
    let at = 0
    for (const line of batch) {
      rows.set(line.rows, at)
      at += line.rows.length
    }
    // In a grayscale PNG 1 is white; in dots 1 is black.
    const png = encode({ width: widthBytes * 8, height, data: rows.map((byte) => ~byte & 0xff), depth: 1, channels: 1 })
    sections.push({ type: 'image', mediaType: 'image/png', data: Buffer.from(png).toString('base64') })
    batch = []
    height = 0
  }
  for (const line of lines) {
    if (height + line.height > MAX_IMAGE_SIDE) flush()
    batch.push(line)
    height += line.height
  }
  flush()
  return sections
}

/**
 * The document in OpenPrinter v1's sections for a printer of this model, or the extensions that
 * no standard section can carry (each named, as the wire rule names them).
 */
export function standardDocument(
  document: PrintDocument,
  profile: PrinterProfile,
): { document: PrintDocument } | { refused: Issue[] } {
  const extensions = documentExtensions(document)
  if (extensions.length === 0) return { document }
  const refused = extensions.filter((issue) => issue.path.endsWith('.type'))
  if (refused.length > 0) return { refused }
  const geometry = profile.widths[document.width]
  if (!geometry) return { document }
  const columns = { a: geometry.columns, b: geometry.columns }
  const drawnFailures: Issue[] = []
  const sections = document.sections.flatMap((section, index): Section[] => {
    if (!extensions.some((issue) => issue.path.startsWith(`sections[${index}].`))) return [section]
    if (section.type !== 'text' && section.type !== 'row') return [section]
    // Drawn in font A's cells: a picture has no font B.
    const style = { ...styleOf(section), font: 'a' as const }
    const perLine = columnsOf(style, columns)
    const lines =
      section.type === 'text'
        ? wrapText(section.value, perLine, drawnWidth)
        : layoutRow(section.left, section.right, perLine, drawnWidth)
    if (lines.some((line) => Array.from(line).some((character) => drawnCells(character) === undefined))) {
      drawnFailures.push({
        path: `sections[${index}]`,
        message: 'has a character the font pictures are drawn with lacks',
      })
      return []
    }
    const alignment = section.type === 'text' ? (section.align ?? 'left') : 'left'
    return pictures(lines.map((line) => drawLine(line, alignment, style, geometry.dotsPerLine)))
  })
  return drawnFailures.length > 0 ? { refused: drawnFailures } : { document: { ...document, sections } }
}
