// The renderer: a print document in, the bytes for one printer model (its profile) out.
import type { PaperWidth, PrintDocument, Section } from '../protocol/document.ts'
import { findProfile } from '../profiles/catalog.ts'
import type { PrinterProfile } from '../profiles/profile.ts'
import type { Connection } from '../domain/connection-uri.ts'
import { barcodeCommands } from './barcode.ts'
import { CodePageEncoder, type PrinterCodePage } from './code-page.ts'
import { CODE_PAGES } from './code-pages.ts'
import { buzzerCommand, COMMAND_SETS, type CommandSet } from './command-set.ts'
import { leftOut } from './capabilities.ts'
import { RenderError } from './errors.ts'
import { decodeImage, fitWidth, toDots } from './image.ts'
import { Output } from './output.ts'
import { qrCommands, qrDots } from './qr.ts'
import { drawnCells } from './raster-text.ts'
import { type CellWidth, layoutRow, wrapText } from './text-layout.ts'
import { columnsOf, printable, styleOf } from './text-style.ts'
import { BUZZER_DURATION_MS, DRAWER_PULSE_MS } from '../protocol/document.ts'

export { RenderError, type RenderErrorCode } from './errors.ts'

/** One printer model at one paper width: everything the layout needs to know. */
export interface RenderTarget {
  readonly profile: PrinterProfile
  /** Characters per line in Font A (12 dots wide). */
  readonly columns: number
  /** Characters per line in Font B (9 dots wide). */
  readonly columnsFontB: number
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
    throw new RenderError(
      'render.width_unsupported',
      `the printer model ${profile.id} takes ${profile.paperWidths.join(' or ')} mm paper, not ${width} mm`,
      false,
    )
  }
  return {
    profile,
    columns: geometry.columns,
    columnsFontB: geometry.columnsFontB,
    dotsPerLine: geometry.dotsPerLine,
    commands: COMMAND_SETS[profile.commandSet],
    codePages: profile.codePages.map(({ page, table }) => ({ page: CODE_PAGES[page], table })),
    bandRows: link === 'serial' ? Math.min(SERIAL_BAND_ROWS, profile.raster.maxBandRows) : profile.raster.maxBandRows,
  }
}

/** The target for a printer record's profile ID and width, and how the printer is attached. */
export function targetFor(profileId: string, width: PaperWidth, link?: Connection['kind']): RenderTarget {
  const profile = findProfile(profileId)
  if (!profile)
    throw new RenderError('render.profile_unknown', `this printhub has no printer profile "${profileId}"`, false)
  return renderTarget(profile, width, link)
}

/** What rendering made: the bytes, and what of the document the model could not do (it was left out). */
export interface Rendered {
  bytes: Uint8Array
  warnings: string[]
}

/**
 * Renders a document, or throws a RenderError when some section cannot be printed. Only text
 * and row sections choose a text style (rows always left aligned); images, QR codes and barcodes
 * print centred, dividers left aligned, all in plain text, since the document cannot ask
 * otherwise; the output ends left aligned in plain text.
 */
export function render(document: PrintDocument, target: RenderTarget): Uint8Array {
  return renderWithWarnings(document, target).bytes
}

/** Renders a document; what the model cannot do and the renderer left out (a buzzer it lacks) is in `warnings`. */
export function renderWithWarnings(document: PrintDocument, target: RenderTarget): Rendered {
  const { commands } = target
  const text = new CodePageEncoder(target.codePages, commands.selectCodePage)
  const output = new Output(commands, text, target.dotsPerLine, target.bandRows)
  // Initialising puts the code page back to the printer's default, so the first page is selected after it.
  output.push(commands.initialize(), text.start())
  const cells = cellWidth(text)
  const warnings: string[] = []
  document.sections.forEach((section, index) => {
    try {
      const warning = renderSection(section, target, output, cells)
      if (warning) warnings.push(`sections[${index}]: ${warning}`)
    } catch (error) {
      throw error instanceof RenderError
        ? new RenderError(error.code, `sections[${index}]: ${error.message}`, error.retryable)
        : error
    }
  })
  output.modes('left')
  return { bytes: output.bytes(), warnings }
}

const hex = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`

/** One cell for a character of the printer's code pages; the drawn width for any other the font has. */
function cellWidth(text: CodePageEncoder): CellWidth {
  return (character) => {
    if (text.has(character)) return 1
    const cells = drawnCells(character)
    if (cells !== undefined) return cells
    // Never a silent `?`: a receipt with a wrong character is worse than a job that fails and says why.
    throw new RenderError(
      'render.unsupported_character',
      `${hex(character.codePointAt(0)!)} is neither in the printer's code pages nor in the font text is drawn with`,
      false,
    )
  }
}

/** Renders one section; returns why it was left out, when the model cannot do it at all. */
function renderSection(section: Section, target: RenderTarget, output: Output, cells: CellWidth): string | undefined {
  const { commands, profile } = target
  const columns = { a: target.columns, b: target.columnsFontB }
  switch (section.type) {
    case 'text': {
      const { style, drawn } = printable(styleOf(section), profile.text)
      output.modes(section.align ?? 'left', style, drawn)
      output.lines(wrapText(section.value, columnsOf(style, columns), cells))
      return
    }
    case 'row': {
      // The layout pads with spaces to the right edge, so it must print left aligned.
      const { style, drawn } = printable(styleOf(section), profile.text)
      output.modes('left', style, drawn)
      output.lines(layoutRow(section.left, section.right, columnsOf(style, columns), cells))
      return
    }
    case 'divider':
      output.modes('left')
      output.lines(['-'.repeat(target.columns)])
      return
    case 'feed':
      output.push(commands.feed(section.lines))
      return
    case 'cut':
      // Feed the last printed line past the cutter (or the tear bar), then cut. A partial cut
      // leaves the ticket on a small hinge for staff to tear off instead of dropping it.
      if (profile.cut.feedLines > 0) output.push(commands.feed(profile.cut.feedLines))
      if (profile.cut.kind !== 'none') output.push(commands.cut(profile.cut.kind))
      return
    case 'drawer': {
      const why = leftOut(section, profile)
      if (why) return why
      output.push(
        commands.drawer(section.pin, section.onMs ?? DRAWER_PULSE_MS.on, section.offMs ?? DRAWER_PULSE_MS.off),
      )
      return
    }
    case 'buzzer': {
      const why = leftOut(section, profile)
      if (why) return why
      output.push(buzzerCommand(profile.buzzer, section.times, section.durationMs ?? BUZZER_DURATION_MS.default)!)
      return
    }
    case 'qr':
      output.modes('center')
      // A model without a QR command gets the symbol as a picture.
      if (!profile.qr) output.raster(qrDots(section.value, target.dotsPerLine))
      else output.push(...qrCommands(section.value, target.dotsPerLine, commands))
      return
    case 'barcode':
      if (!profile.barcodes.includes(section.format)) {
        throw new RenderError(
          'render.barcode_unsupported',
          `the printer model ${profile.id} cannot print ${section.format} barcodes`,
          false,
        )
      }
      output.modes('center')
      output.push(...barcodeCommands(section.format, section.value, target.dotsPerLine, commands))
      return
    case 'image':
      output.modes('center')
      output.raster(toDots(fitWidth(decodeImage(section.mediaType, section.data), target.dotsPerLine)))
      return
    case 'logo':
      // The hub puts the project's image in a logo's place when it takes the job; alone, it names nothing printable.
      throw new RenderError(
        'render.image_invalid',
        `the logo "${section.name}" is an image stored on the hub; it prints in jobs the hub takes, not on its own`,
        false,
      )
  }
}
