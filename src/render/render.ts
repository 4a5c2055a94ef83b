// The renderer: a print document in, the bytes for one printer model (its profile) out.
import type { PaperWidth, PrintDocument, Section } from '../protocol/document.ts'
import { findProfile } from '../profiles/catalog.ts'
import type { PrinterProfile } from '../profiles/profile.ts'
import type { Connection } from '../domain/connection-uri.ts'
import { barcodeCommands } from './barcode.ts'
import { CodePageEncoder, type PrinterCodePage } from './code-page.ts'
import { CODE_PAGES } from './code-pages.ts'
import { COMMAND_SETS, type CommandSet } from './command-set.ts'
import { RenderError } from './errors.ts'
import { decodeImage, fitWidth, toDots } from './image.ts'
import { Output } from './output.ts'
import { qrCommands, qrDots } from './qr.ts'
import { drawnCells } from './raster-text.ts'
import { type CellWidth, layoutRow, wrapText } from './text-layout.ts'

export { RenderError, type RenderErrorCode } from './errors.ts'

/** One printer model at one paper width: everything the layout needs to know. */
export interface RenderTarget {
  readonly profile: PrinterProfile
  /** Characters per line in Font A (12 dots wide). */
  readonly columns: number
  /** Printable width in dots (203 dpi). */
  readonly dotsPerLine: number
  readonly commands: CommandSet
  readonly codePages: readonly PrinterCodePage[]
  /** Rows of one raster block at most. */
  readonly bandRows: number
}

/**
 * Raster rows per block on a serial link: 64 rows of 72 bytes take 0.4 s at 115,200 baud and 4 s
 * at 9,600, so the printer never waits long for a band, and one that is lost costs little.
 */
export const SERIAL_BAND_ROWS = 64

/**
 * The target for a profile at a paper width, or a RenderError when the model does not take that
 * paper. `link` is how the printer is attached: a serial one gets smaller raster bands.
 */
export function renderTarget(profile: PrinterProfile, width: PaperWidth, link?: Connection['kind']): RenderTarget {
  const geometry = profile.widths[width]
  if (!geometry) {
    throw new RenderError('render.width_unsupported', `the printer model ${profile.id} takes ${profile.paperWidths.join(' or ')} mm paper, not ${width} mm`, false)
  }
  return {
    profile,
    columns: geometry.columns,
    dotsPerLine: geometry.dotsPerLine,
    commands: COMMAND_SETS[profile.commandSet],
    codePages: profile.codePages.map(({ page, table }) => ({ page: CODE_PAGES[page], table })),
    bandRows: link === 'serial' ? Math.min(SERIAL_BAND_ROWS, profile.raster.maxBandRows) : profile.raster.maxBandRows,
  }
}

/** The target for a printer record's profile ID and width, and how the printer is attached. */
export function targetFor(profileId: string, width: PaperWidth, link?: Connection['kind']): RenderTarget {
  const profile = findProfile(profileId)
  if (!profile) throw new RenderError('render.profile_unknown', `this printhub has no printer profile "${profileId}"`, false)
  return renderTarget(profile, width, link)
}

/**
 * Renders a document, or throws a RenderError when some section cannot be printed. Only text
 * sections choose alignment and bold; images, QR codes and barcodes print centred, rows and
 * dividers left aligned, none bold, since the document cannot ask otherwise; the output ends
 * left aligned and not bold.
 */
export function render(document: PrintDocument, target: RenderTarget): Uint8Array {
  const { commands } = target
  const text = new CodePageEncoder(target.codePages, commands.selectCodePage)
  const output = new Output(commands, text, target.dotsPerLine, target.bandRows)
  // Initialising puts the code page back to the printer's default, so the first page is selected after it.
  output.push(commands.initialize(), text.start())
  const cells = cellWidth(text)
  document.sections.forEach((section, index) => {
    try {
      renderSection(section, target, output, cells)
    } catch (error) {
      throw error instanceof RenderError ? new RenderError(error.code, `sections[${index}]: ${error.message}`, error.retryable) : error
    }
  })
  output.modes('left', false)
  return output.bytes()
}

const hex = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`

/** One cell for a character of the printer's code pages; the drawn width for any other the font has. */
function cellWidth(text: CodePageEncoder): CellWidth {
  return (character) => {
    if (text.has(character)) return 1
    const cells = /\p{Cc}/u.test(character) ? undefined : drawnCells(character)
    if (cells !== undefined) return cells
    // Never a silent `?`: a receipt with a wrong character is worse than a job that fails and says why.
    throw new RenderError('render.unsupported_character', `${hex(character.codePointAt(0)!)} is neither in the printer's code pages nor in the font text is drawn with`, false)
  }
}

function renderSection(section: Section, target: RenderTarget, output: Output, cells: CellWidth): void {
  const { commands, profile } = target
  switch (section.type) {
    case 'text':
      output.modes(section.align ?? 'left', section.bold ?? false)
      return output.lines(wrapText(section.value, target.columns, cells))
    case 'row':
      // The layout pads with spaces to the right edge, so it must print left aligned.
      output.modes('left', false)
      return output.lines(layoutRow(section.left, section.right, target.columns, cells))
    case 'divider':
      output.modes('left', false)
      return output.lines(['-'.repeat(target.columns)])
    case 'feed':
      return output.push(commands.feed(section.lines))
    case 'cut':
      // Feed the last printed line past the cutter (or the tear bar), then cut. A partial cut
      // leaves the ticket on a small hinge for staff to tear off instead of dropping it.
      if (profile.cut.feedLines > 0) output.push(commands.feed(profile.cut.feedLines))
      if (profile.cut.kind !== 'none') output.push(commands.cut(profile.cut.kind))
      return
    case 'qr':
      output.modes('center', false)
      // A model without a QR command gets the symbol as a picture.
      if (!profile.qr) return output.raster(qrDots(section.value, target.dotsPerLine))
      return output.push(...qrCommands(section.value, target.dotsPerLine, commands))
    case 'barcode':
      if (!profile.barcodes.includes(section.format)) {
        throw new RenderError('render.barcode_unsupported', `the printer model ${profile.id} cannot print ${section.format} barcodes`, false)
      }
      output.modes('center', false)
      return output.push(...barcodeCommands(section.format, section.value, target.dotsPerLine, commands))
    case 'image':
      output.modes('center', false)
      return output.raster(toDots(fitWidth(decodeImage(section.mediaType, section.data), target.dotsPerLine)))
  }
}

