// The two command languages a profile can name, behind one interface: Epson ESC/POS (most
// printers) and StarPRNT (Star's own printers). The layout code speaks only to this interface.
import type { BarcodeFormat } from '../protocol/barcode.ts'
import type { CommandSetName, PrinterProfile } from '../profiles/profile.ts'
import * as escpos from './escpos-commands.ts'
import * as star from './starprnt-commands.ts'

export type Alignment = escpos.Alignment
export type CutKind = 'full' | 'partial'
export type Underline = 'none' | 'single' | 'double'
export type BuzzerKind = PrinterProfile['buzzer']

export interface CommandSet {
  initialize(): Uint8Array
  selectCodePage(table: number): Uint8Array
  align(alignment: Alignment): Uint8Array
  bold(on: boolean): Uint8Array
  /** Magnification, 1 to the profile's `text.maxSize` in each direction. */
  size(width: number, height: number): Uint8Array
  /** Double where the language has it, else single. */
  underline(kind: Underline): Uint8Array
  invert(on: boolean): Uint8Array
  font(font: 'a' | 'b'): Uint8Array
  /** A pulse on the cash drawer connector's pin 2 or 5. */
  drawer(pin: 2 | 5, onMs: number, offMs: number): Uint8Array
  feed(lines: number): Uint8Array
  /** Cuts after the printer has fed whatever the profile says; a Star printer also feeds to its cutter itself. */
  cut(kind: CutKind): Uint8Array
  qr(data: Uint8Array, moduleDots: number): Uint8Array[]
  /** A barcode whose data is already in the command's format (see `barcodeData`), text below the bars. */
  barcode(format: BarcodeFormat, data: Uint8Array, moduleDots: BarcodeModuleDots, heightDots: number): Uint8Array[]
  /**
   * True when code 128 data names its code sets (ESC/POS); false for StarPRNT's own format, where the printer picks
   * them.
   */
  readonly code128CodeSets: boolean
  raster(widthBytes: number, height: number, rows: Uint8Array): Uint8Array
}

/** Module widths both languages can print: 2 or 3 dots. */
export type BarcodeModuleDots = 2 | 3

const ESCPOS: CommandSet = {
  initialize: escpos.initialize,
  selectCodePage: escpos.selectCodeTable,
  align: escpos.selectJustification,
  bold: escpos.selectEmphasis,
  size: escpos.selectCharacterSize,
  underline: (kind) => escpos.selectUnderline(kind === 'none' ? 0 : kind === 'single' ? 1 : 2),
  invert: escpos.selectReverse,
  font: escpos.selectFont,
  drawer: escpos.generatePulse,
  feed: escpos.printAndFeedLines,
  cut: escpos.cut,
  qr: (data, moduleDots) => [
    escpos.qrSelectModel2(),
    escpos.qrModuleSize(moduleDots),
    escpos.qrErrorCorrectionM(),
    escpos.qrStore(data),
    escpos.qrPrint(),
  ],
  barcode: (format, data, moduleDots, heightDots) => [
    escpos.barcodeTextBelow(),
    escpos.barcodeHeight(heightDots),
    escpos.barcodeModuleWidth(moduleDots),
    escpos.printBarcode(escpos.BARCODE_SYSTEMS[format], data),
  ],
  code128CodeSets: true,
  raster: escpos.rasterBitImage,
}

/** StarPRNT `ESC b` barcode types. */
const STAR_BARCODE_TYPES: Readonly<Record<BarcodeFormat, number>> = { upca: 1, ean13: 3, code39: 4, code128: 6 }
/** StarPRNT `ESC b` n3 mode for a module width: 2 dots is mode 1, 3 dots mode 2 (code 39: narrow bar). */
const STAR_BARCODE_MODES: Readonly<Record<BarcodeModuleDots, number>> = { 2: 1, 3: 2 }

const STARPRNT: CommandSet = {
  initialize: star.initialize,
  selectCodePage: star.selectCodePage,
  align: star.specifyAlignment,
  bold: star.emphasis,
  size: star.characterExpansion,
  underline: (kind) => star.underline(kind !== 'none'),
  invert: star.whiteBlackInvert,
  font: star.selectFont,
  drawer: star.drivePeripheral,
  feed: star.feedLines,
  cut: star.feedAndCut,
  qr: (data, moduleDots) => [
    star.qrSelectModel2(),
    star.qrErrorCorrectionM(),
    star.qrCellSize(moduleDots),
    star.qrStore(data),
    star.qrPrint(),
  ],
  barcode: (format, data, moduleDots, heightDots) => [
    star.printBarcode(STAR_BARCODE_TYPES[format], STAR_BARCODE_MODES[moduleDots], heightDots, data),
  ],
  code128CodeSets: false,
  raster: star.rasterGraphic,
}

export const COMMAND_SETS: Readonly<Record<CommandSetName, CommandSet>> = { escpos: ESCPOS, starprnt: STARPRNT }

/**
 * The buzzer command of a profile's kind of buzzer: `times` beeps of `durationMs`; undefined for a model without one.
 */
export function buzzerCommand(kind: BuzzerKind, times: number, durationMs: number): Uint8Array | undefined {
  switch (kind) {
    case 'epson-optional':
      return escpos.beepBuzzer(times, durationMs)
    case 'xprinter-esc-b':
      return escpos.beepTimes(times, durationMs)
    case 'star-external':
      return star.externalBuzzer(times, durationMs)
    case 'none':
      return undefined
  }
}
