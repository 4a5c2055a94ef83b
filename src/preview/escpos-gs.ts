// The ESC/POS `GS` commands: cuts, barcodes and their settings, QR codes (`GS ( k`), raster
// images (`GS v 0`), and those read for their length only.
import type { ByteReader } from './byte-reader.ts'
import { isZero, never, type ParameterCommands, readParameterCommand } from './parameter-commands.ts'
import { hex, type Printer } from './printer.ts'
import { printRaster } from './raster.ts'
import type { BarcodeSymbology, HriPosition, QrErrorCorrection } from './receipt.ts'
import { type BarcodeSettings, printBarcode, printQr, type QrSettings } from './symbols.ts'

export interface EscPosContext {
  readonly reader: ByteReader
  readonly printer: Printer
  readonly dotsPerLine: number
  qr: QrSettings
  barcode: BarcodeSettings
}

const HRI_POSITIONS: readonly HriPosition[] = ['none', 'above', 'below', 'both']

/**
 * `GS w n`: code 39's wide element for each module width, from Epson's table (2:5, 3:8, 4:10, 5:13, 6:16 dots at 203
 * dpi).
 */
const CODE39_WIDE_DOTS: Readonly<Record<number, number>> = { 1: 3, 2: 5, 3: 8, 4: 10, 5: 13, 6: 16 }

/** `GS k` systems the preview draws: function A (m 0 to 6, NUL-terminated) and function B (m 65 up, with a length). */
const BARCODE_SYSTEMS: Readonly<Record<number, BarcodeSymbology>> = {
  0: 'upca',
  2: 'ean13',
  4: 'code39',
  65: 'upca',
  67: 'ean13',
  69: 'code39',
  73: 'code128',
}
/** The last function B system number (GS1 DataBar and the like run up to here). */
const LAST_FUNCTION_B_SYSTEM = 79

const QR_LEVELS: Readonly<Record<number, QrErrorCorrection>> = { 48: 'L', 49: 'M', 50: 'Q', 51: 'H' }

/** `GS` commands read for their length only. */
const GS_PARAMETER_COMMANDS: ParameterCommands = {
  0x24: { name: 'GS $ (page mode position)', parameters: 2, drawn: never },
  0x2f: { name: 'GS / (downloaded bit image)', parameters: 1, drawn: never },
  0x3a: { name: 'GS : (macro definition)', parameters: 0 },
  0x49: { name: 'GS I (printer ID)', parameters: 1 },
  0x4c: { name: 'GS L (left margin)', parameters: 2, drawn: isZero },
  0x50: { name: 'GS P (motion units)', parameters: 2 },
  0x54: { name: 'GS T (print position to line start)', parameters: 1 },
  0x5c: { name: 'GS \\ (page mode relative position)', parameters: 2, drawn: never },
  0x5e: { name: 'GS ^ (macro execution)', parameters: 3, drawn: never },
  0x61: { name: 'GS a (automatic status back)', parameters: 1 },
  0x62: { name: 'GS b (smoothing)', parameters: 1 },
  0x66: { name: 'GS f (HRI font)', parameters: 1 },
  0x72: { name: 'GS r (status)', parameters: 1 },
}

export function gsCommand(context: EscPosContext, offset: number): void {
  const { reader, printer } = context
  const code = reader.u8()
  switch (code) {
    case 0x56:
      return cut(context, offset)
    case 0x21: {
      // GS ! n: character size, width - 1 in the high nibble, height - 1 in the low (each 0 to 7)
      const n = reader.u8()
      if (n >> 4 <= 7 && (n & 0x0f) <= 7) printer.size = { width: (n >> 4) + 1, height: (n & 0x0f) + 1 }
      else printer.warnings.add(offset, `GS ! 0x${hex(n)} is not a character size; ignored`)
      return
    }
    case 0x42: // GS B n: white on black on or off
      printer.invert = (reader.u8() & 1) === 1
      return
    case 0x48: {
      // GS H n: where the human-readable text goes
      const n = reader.u8()
      const hri = HRI_POSITIONS[n >= 48 ? n - 48 : n]
      if (hri) context.barcode.hri = hri
      else printer.warnings.add(offset, `GS H ${n} is not an HRI position; ignored`)
      return
    }
    case 0x68: {
      // GS h n: bar height in dots
      const n = reader.u8()
      if (n > 0) context.barcode.heightDots = n
      else printer.warnings.add(offset, 'GS h 0 is not a bar height; ignored')
      return
    }
    case 0x77: {
      // GS w n: module width in dots
      const n = reader.u8()
      const wide = CODE39_WIDE_DOTS[n]
      if (wide) Object.assign(context.barcode, { moduleDots: n, wideDots: wide })
      else printer.warnings.add(offset, `GS w ${n} is not a module width (1 to 6); ignored`)
      return
    }
    case 0x57: {
      // GS W nL nH: printing area width
      const width = reader.u16()
      if (width < context.dotsPerLine)
        printer.warnings.add(offset, `GS W ${width} (narrower printing area) is not drawn by the preview`)
      return
    }
    case 0x6b:
      return barcode(context, offset)
    case 0x76:
      return raster(context, offset)
    case 0x28:
      return functionCommand(context, offset)
    case 0x2a: {
      // GS * x y d...: define a downloaded bit image
      const x = reader.u8()
      reader.skip(x * reader.u8() * 8)
      return printer.warnings.add(offset, 'GS * (downloaded bit image) is not drawn by the preview')
    }
    case 0x38: {
      // GS 8 x p1 p2 p3 p4 ...: the long form of GS ( x
      const fn = reader.u8()
      const length = reader.u16() + reader.u16() * 0x10000
      reader.skip(length)
      return printer.warnings.add(offset, `GS 8 ${String.fromCharCode(fn)} is not read by the preview; skipped`)
    }
  }
  if (!readParameterCommand(GS_PARAMETER_COMMANDS, code, { reader, warnings: printer.warnings, offset })) {
    printer.warnings.add(offset, `unknown command GS 0x${hex(code)}; skipped`)
  }
}

/** `GS V m` (0/48 full, 1/49 partial) and `GS V m n` (65/97/103 full, 66/98/104 partial, after feeding). */
function cut({ reader, printer }: EscPosContext, offset: number): void {
  const m = reader.u8()
  if ([65, 66, 97, 98, 103, 104].includes(m)) reader.u8()
  else if (![0, 1, 48, 49].includes(m)) return printer.warnings.add(offset, `GS V ${m} is not a cut; ignored`)
  const partial = [1, 49, 66, 98, 104].includes(m)
  printer.print({ kind: 'cut', partial }, offset, 'GS V')
}

/** `GS k m d... NUL` (function A) or `GS k m n d1...dn` (function B). */
function barcode(context: EscPosContext, offset: number): void {
  const { reader, printer } = context
  const m = reader.u8()
  if (m > 6 && (m < 65 || m > LAST_FUNCTION_B_SYSTEM))
    return printer.warnings.add(offset, `GS k ${m} is not a barcode system; skipped`)
  const data = m <= 6 ? reader.takeUntil(0) : reader.take(reader.u8())
  const symbology = BARCODE_SYSTEMS[m]
  if (!symbology) return printer.warnings.add(offset, `GS k ${m}: this barcode system is not drawn by the preview`)
  printBarcode(
    printer,
    { symbology, data, code128Data: 'escpos', settings: { ...context.barcode } },
    offset,
    `GS k ${m}`,
  )
}

/** `GS v 0 m xL xH yL yH d...`: a raster bit image of x bytes by y rows, m its scale. */
function raster(context: EscPosContext, offset: number): void {
  const { reader, printer } = context
  const form = reader.u8()
  if (form !== 0x30) return printer.warnings.add(offset, `unknown command GS v 0x${hex(form)}; skipped`)
  const mode = reader.u8()
  const widthBytes = reader.u16()
  const height = reader.u16()
  const rows = reader.take(widthBytes * height)
  // Modes 0 to 3 (or 48 to 51): normal, double width, double height, both.
  const scaleBits = mode >= 48 ? mode - 48 : mode
  if (scaleBits > 3)
    return printer.warnings.add(offset, `GS v 0 mode ${mode} is not a raster mode; the image is skipped`)
  if (rows.length === 0) return printer.warnings.add(offset, 'GS v 0 with no dots; ignored')
  const scale = { x: scaleBits & 1 ? 2 : 1, y: scaleBits & 2 ? 2 : 1 } as const
  printRaster(
    printer,
    { image: { widthBytes, height, rows, scale }, dotsPerLine: context.dotsPerLine },
    offset,
    'GS v 0',
  )
}

/** `GS ( x pL pH ...`: for `GS ( k` with cn 49, the QR code functions; the others are skipped. */
function functionCommand(context: EscPosContext, offset: number): void {
  const { reader, printer } = context
  const fn = reader.u8()
  const parameters = reader.take(reader.u16())
  if (fn !== 0x6b)
    return printer.warnings.add(offset, `GS ( ${String.fromCharCode(fn)} is not read by the preview; skipped`)
  const [cn, qrFunction, n] = parameters
  if (cn === undefined || qrFunction === undefined)
    return printer.warnings.add(offset, 'GS ( k without cn and fn; skipped')
  if (cn !== 49) {
    if (qrFunction === 81) printer.warnings.add(offset, `GS ( k cn ${cn}: this 2D symbol is not drawn by the preview`)
    return
  }
  const qr = context.qr
  switch (qrFunction) {
    case 65: // model: 49 model 1, 50 model 2, 51 micro QR
      if (n !== 50) printer.warnings.add(offset, `GS ( k fn 65: QR model ${n} is drawn as model 2`)
      return
    case 67: // module size
      if (n !== undefined && n >= 1 && n <= 16) qr.moduleDots = n
      else printer.warnings.add(offset, `GS ( k fn 67: module size ${n} is not 1 to 16; ignored`)
      return
    case 69: {
      // error correction level
      const level = n === undefined ? undefined : QR_LEVELS[n]
      if (level) qr.errorCorrection = level
      else printer.warnings.add(offset, `GS ( k fn 69: ${n} is not an error correction level (48 to 51); ignored`)
      return
    }
    case 80: // store the data (m = 48), copied so the receipt does not change with the caller's buffer
      qr.data = parameters.slice(3)
      return
    case 81: // print the stored symbol
      return printQr(printer, { ...qr }, offset, 'GS ( k fn 81')
    case 82: // transmit size information
      return
  }
  printer.warnings.add(offset, `GS ( k fn ${qrFunction} is not a QR function; ignored`)
}
