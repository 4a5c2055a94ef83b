// The ESC/POS renderer: a print document in, the bytes for an Epson-compatible printer out.
import type { PaperWidth, PrintDocument, Section } from '../protocol/document.ts'
import { barcodeCommands } from './barcode.ts'
import { DEFAULT_CODE_PAGES, CodePageEncoder } from './code-page.ts'
import { initialize, partialCut, printAndFeedLines, rasterBitImage, selectCodeTable } from './commands.ts'
import { RenderError } from './errors.ts'
import { decodeImage, fitWidth, toDots } from './image.ts'
import { Output } from './output.ts'
import { qrCommands } from './qr.ts'
import { layoutRow, wrapText } from './text-layout.ts'

export { RenderError, type RenderErrorCode } from './errors.ts'

export interface RenderTarget {
  /** Characters per line in Font A (12 dots wide). */
  readonly columns: number
  /** Printable width in dots (203 dpi). */
  readonly dotsPerLine: number
}

const TARGETS: Readonly<Record<PaperWidth, RenderTarget>> = {
  58: Object.freeze({ columns: 32, dotsPerLine: 384 }),
  80: Object.freeze({ columns: 48, dotsPerLine: 576 }),
}

/** Lines fed before a cut: the cutter sits about this many default lines above the print head. */
const FEED_BEFORE_CUT = 4

/**
 * Rows of one raster block. Far below Epson's 4,095-row limit: a printer with a small receive
 * buffer prints a band while the next one arrives, instead of stalling on one long block.
 */
export const RASTER_BAND_ROWS = 256

export function renderTarget(width: PaperWidth): RenderTarget {
  return TARGETS[width]
}

/**
 * Renders a document, or throws a RenderError when some section cannot be printed. Only text
 * sections set alignment and bold; images print centred (a logo narrower than the paper), every
 * other section left aligned, none bold, since the document cannot ask otherwise; the output
 * ends left aligned and not bold.
 */
export function render(document: PrintDocument, target: RenderTarget): Uint8Array {
  // ESC @ puts the code table back to the printer's default, so the first code page is selected
  // after it; text switches to another one when a character needs it.
  const [first] = DEFAULT_CODE_PAGES
  const output = new Output(new CodePageEncoder(DEFAULT_CODE_PAGES, first!))
  output.push(initialize(), selectCodeTable(first!.escT))
  document.sections.forEach((section, index) => {
    try {
      renderSection(section, target, output)
    } catch (error) {
      throw error instanceof RenderError ? new RenderError(error.code, `sections[${index}]: ${error.message}`, error.retryable) : error
    }
  })
  output.modes('left', false)
  return output.bytes()
}

function renderSection(section: Section, target: RenderTarget, output: Output): void {
  switch (section.type) {
    case 'text':
      output.modes(section.align ?? 'left', section.bold ?? false)
      return output.lines(wrapText(section.value, target.columns))
    case 'row':
      // The layout pads with spaces to the right edge, so it must print left aligned.
      output.modes('left', false)
      return output.lines(layoutRow(section.left, section.right, target.columns))
    case 'divider':
      output.modes('left', false)
      return output.lines(['-'.repeat(target.columns)])
    case 'feed':
      return output.push(printAndFeedLines(section.lines))
    case 'cut':
      // Feed the last printed line past the cutter, then cut partially (GS V 1, not the full cut
      // GS V 0): the ticket hangs on a small hinge for staff to tear off instead of dropping
      // into the tray or onto the floor.
      return output.push(printAndFeedLines(FEED_BEFORE_CUT), partialCut())
    case 'qr':
      output.modes('left', false)
      return output.push(...qrCommands(section.value, target.dotsPerLine))
    case 'barcode':
      output.modes('left', false)
      return output.push(...barcodeCommands(section.format, section.value, target.dotsPerLine))
    case 'image': {
      output.modes('center', false)
      const dots = toDots(fitWidth(decodeImage(section.mediaType, section.data), target.dotsPerLine))
      for (let top = 0; top < dots.height; top += RASTER_BAND_ROWS) {
        const bottom = Math.min(top + RASTER_BAND_ROWS, dots.height)
        output.push(rasterBitImage(dots.widthBytes, bottom - top, dots.rows.subarray(top * dots.widthBytes, bottom * dots.widthBytes)))
      }
      return
    }
  }
}
