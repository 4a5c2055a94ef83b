// StarPRNT read the way a Star TSP100IV reads it (Star Micronics "StarPRNT Command
// Specifications"): text, the commands that change how it prints, cuts, QR codes (`ESC GS y`),
// barcodes (`ESC b`) and raster graphics (`ESC GS S`).
import { type ByteReader, eachCommand } from './byte-reader.ts'
import { isZeroOrAsciiZero, never, type ParameterCommands, readParameterCommand } from './parameter-commands.ts'
import { hex, type Printer } from './printer.ts'
import { printRaster } from './raster.ts'
import type { Alignment, BarcodeSymbology, QrErrorCorrection } from './receipt.ts'
import { printBarcode, printQr, type QrSettings } from './symbols.ts'

const LF = 0x0a
const ESC = 0x1b
const GS = 0x1d
const RS = 0x1e

interface StarContext {
  readonly reader: ByteReader
  readonly printer: Printer
  readonly dotsPerLine: number
  qr: QrSettings
  /** The drawer pulse `ESC BEL` set, in ms. */
  pulse: { onMs: number; offMs: number }
  /** The external buzzer's pulse `ESC GS EM DC1` set, in ms. */
  buzzer: { onMs: number }
}

/** The power-on drawer pulse (ESC BEL 20 20: 200 ms on, 200 ms off) and buzzer pulse. */
const initialPulse = () => ({ onMs: 200, offMs: 200 })
const initialBuzzer = () => ({ onMs: 200 })

/**
 * Control bytes that change nothing the preview draws: the drive of peripheral 1 at once (FS), EM,
 * CAN, and DC2 and DC4, which cancel upside-down and double width printing. BEL and SUB drive the
 * drawer connector's pins 2 and 5 with the pulse `ESC BEL` set.
 */
const SILENT_CONTROLS = new Set([0x12, 0x14, 0x18, 0x19, 0x1c])
const BEL = 0x07
const SUB = 0x1a
/** Control bytes that start a mode the preview does not draw: double width (SO) and upside-down (SI). */
const CONTROLS_NOT_DRAWN: Readonly<Record<number, string>> = { 0x0e: 'SO (double width)', 0x0f: 'SI (upside-down)' }

export function decodeStarPrnt(reader: ByteReader, printer: Printer, dotsPerLine: number): void {
  const context: StarContext = {
    reader,
    printer,
    dotsPerLine,
    qr: initialQr(),
    pulse: initialPulse(),
    buzzer: initialBuzzer(),
  }
  eachCommand(reader, printer.warnings, (offset) => {
    const byte = reader.u8()
    if (byte >= 0x20 && byte !== 0x7f) printer.character(byte, offset)
    else if (byte === LF) printer.printLine()
    else if (byte === ESC) escCommand(context, offset)
    else if (byte === BEL || byte === SUB) printer.note({ kind: 'pulse', pin: byte === BEL ? 2 : 5, ...context.pulse })
    else if (CONTROLS_NOT_DRAWN[byte])
      printer.warnings.add(offset, `${CONTROLS_NOT_DRAWN[byte]} is not drawn by the preview`)
    else if (!SILENT_CONTROLS.has(byte))
      printer.warnings.add(offset, `control byte 0x${hex(byte)} is not read by the preview; ignored`)
  })
}

/** The initial QR settings (StarPRNT: model 2, level L, 3-dot cells). */
const initialQr = (): QrSettings => ({ moduleDots: 3, errorCorrection: 'L', data: undefined })

/** `ESC` commands read for their length only. */
const ESC_PARAMETER_COMMANDS: ParameterCommands = {
  0x06: { name: 'ESC ACK SOH (status)', parameters: 1 },
  0x0e: { name: 'ESC SO (double height)', parameters: 0, drawn: never },
  0x14: { name: 'ESC DC4 (cancel double height)', parameters: 0 },
  0x20: { name: 'ESC SP (character spacing)', parameters: 1, drawn: isZeroOrAsciiZero },
  0x2f: { name: 'ESC / (slashed zero)', parameters: 1 },
  0x30: { name: 'ESC 0 (3 mm line spacing)', parameters: 0 },
  0x3a: { name: 'ESC : (16-dot pitch)', parameters: 0, drawn: never },
  0x43: { name: 'ESC C (page length)', parameters: 1 },
  0x49: { name: 'ESC I (feed in 1/8 mm)', parameters: 1, drawn: never },
  0x4a: { name: 'ESC J (feed in 1/4 mm)', parameters: 1, drawn: never },
  0x4d: { name: 'ESC M (12-dot pitch)', parameters: 0 },
  0x50: { name: 'ESC P (15-dot pitch)', parameters: 0, drawn: never },
  0x51: { name: 'ESC Q (right margin)', parameters: 1, drawn: isZeroOrAsciiZero },
  0x52: { name: 'ESC R (international character set)', parameters: 1, drawn: isZeroOrAsciiZero },
  0x57: { name: 'ESC W (double width)', parameters: 1, drawn: isZeroOrAsciiZero },
  0x5f: { name: 'ESC _ (upperline)', parameters: 1, drawn: isZeroOrAsciiZero },
  0x67: { name: 'ESC g (14-dot pitch)', parameters: 0, drawn: never },
  0x68: { name: 'ESC h (double height)', parameters: 1, drawn: isZeroOrAsciiZero },
  0x6c: { name: 'ESC l (left margin)', parameters: 1, drawn: isZeroOrAsciiZero },
  0x7a: { name: 'ESC z (line spacing)', parameters: 1 },
}

/** `ESC d n`: 0 full and 1 partial cut where the paper is; 2 and 3 the same after feeding it to the cutter. */
const CUTS: Readonly<Record<number, boolean>> = { 0: false, 1: true, 2: false, 3: true }

function escCommand(context: StarContext, offset: number): void {
  const { reader, printer } = context
  const code = reader.u8()
  switch (code) {
    case 0x40: // ESC @: initialise
      printer.initialize(offset)
      context.qr = initialQr()
      context.pulse = initialPulse()
      context.buzzer = initialBuzzer()
      return
    case 0x07: // ESC BEL n1 n2: the drawer pulse, on n1 x 10 ms, off n2 x 10 ms
      context.pulse = { onMs: reader.u8() * 10, offMs: reader.u8() * 10 }
      return
    case 0x2d: {
      // ESC - n: underline on or off
      const n = reader.u8()
      printer.underline = n === 1 || n === 49 ? 1 : 0
      return
    }
    case 0x34: // ESC 4: white on black
      printer.invert = true
      return
    case 0x35: // ESC 5: cancel it
      printer.invert = false
      return
    case 0x69: {
      // ESC i n1 n2: character expansion, n1 + 1 times as tall, n2 + 1 times as wide (0 to 5)
      const n1 = reader.u8()
      const n2 = reader.u8()
      const tall = n1 >= 48 ? n1 - 48 : n1
      const wide = n2 >= 48 ? n2 - 48 : n2
      if (tall <= 5 && wide <= 5) printer.size = { width: wide + 1, height: tall + 1 }
      else printer.warnings.add(offset, `ESC i ${n1} ${n2} is not a character expansion (0 to 5); ignored`)
      return
    }
    case GS:
      return escGsCommand(context, offset)
    case RS: {
      // ESC RS F n (font) and ESC RS a n (automatic status) are the ones a receipt uses.
      const fn = reader.u8()
      const n = reader.u8()
      if (fn === 0x46) {
        const font = n >= 48 ? n - 48 : n
        printer.font = font === 0 ? 'a' : 'b'
        if (font > 1) printer.warnings.add(offset, `ESC RS F ${n}: font ${font} is drawn as font B`)
      } else if (fn !== 0x61) printer.warnings.add(offset, `ESC RS 0x${hex(fn)} is not read by the preview; skipped`)
      return
    }
    case 0x45: // ESC E: emphasised printing
      printer.bold = true
      return
    case 0x46: // ESC F: cancel it
      printer.bold = false
      return
    case 0x61: // ESC a n: feed n lines
      return printer.printAndFeed(reader.u8())
    case 0x64: {
      const n = reader.u8()
      const partial = CUTS[n >= 48 ? n - 48 : n]
      if (partial === undefined) return printer.warnings.add(offset, `ESC d ${n} is not a cut; ignored`)
      return printer.print({ kind: 'cut', partial }, offset, 'ESC d')
    }
    case 0x62:
      return barcode(context, offset)
    case 0x58: // ESC X n1 n2 d...: 24-dot bit image, 3 bytes a column
      reader.skip(3 * reader.u16())
      return printer.warnings.add(offset, 'ESC X (24-dot bit image) is not drawn by the preview; use ESC GS S')
  }
  if (!readParameterCommand(ESC_PARAMETER_COMMANDS, code, { reader, warnings: printer.warnings, offset })) {
    printer.warnings.add(offset, `unknown command ESC 0x${hex(code)}; skipped`)
  }
}

const ALIGNMENTS: readonly Alignment[] = ['left', 'center', 'right']

function escGsCommand(context: StarContext, offset: number): void {
  const { reader, printer } = context
  const code = reader.u8()
  switch (code) {
    case 0x74: // ESC GS t n: code page
      return printer.selectCodeTable(reader.u8(), offset)
    case 0x61: {
      // ESC GS a n: position alignment
      const n = reader.u8()
      const alignment = ALIGNMENTS[n >= 48 ? n - 48 : n]
      if (alignment) return printer.setAlignment(alignment, offset, 'ESC GS a')
      return printer.warnings.add(offset, `ESC GS a ${n} is not an alignment; ignored`)
    }
    case 0x79:
      return qrCommand(context, offset)
    case 0x19: {
      // ESC GS EM DC1 m n1 n2 sets the external buzzer's pulse (n1 x 20 ms on); ESC GS EM DC2 m n1 n2 sounds it n1
      // times
      const fn = reader.u8()
      reader.u8() // m: the terminal
      const n1 = reader.u8()
      reader.u8() // n2: the off time (DC1), 0 (DC2)
      if (fn === 0x11) context.buzzer = { onMs: n1 * 20 }
      else if (fn === 0x12) printer.note({ kind: 'beep', times: n1, durationMs: context.buzzer.onMs })
      else printer.warnings.add(offset, `ESC GS EM 0x${hex(fn)} is not read by the preview; skipped`)
      return
    }
    case 0x53:
      return raster(context, offset)
    case 0x50: // ESC GS P n: page mode control
      reader.skip(1)
      return
    case 0x41: // ESC GS A n1 n2, ESC GS R n1 n2: absolute and relative position
    case 0x52:
      reader.skip(2)
      return printer.warnings.add(
        offset,
        `ESC GS ${String.fromCharCode(code)} (print position) is not drawn by the preview`,
      )
  }
  printer.warnings.add(offset, `unknown command ESC GS 0x${hex(code)}; skipped`)
}

const QR_LEVELS: readonly QrErrorCorrection[] = ['L', 'M', 'Q', 'H']

/**
 * `ESC GS y S 0/1/2 n` (model, error correction, cell size), `ESC GS y D 1 m nL nH d...` (store), `ESC GS y P` (print).
 */
function qrCommand(context: StarContext, offset: number): void {
  const { reader, printer, qr } = context
  const fn = reader.u8()
  if (fn === 0x50) return printQr(printer, { ...qr }, offset, 'ESC GS y P')
  if (fn === 0x49) return // ESC GS y I: symbol information
  if (fn === 0x44) {
    const form = reader.u8()
    if (form !== 0x31)
      return printer.warnings.add(
        offset,
        `ESC GS y D ${String.fromCharCode(form)} is not read by the preview; the data that follows is read as text`,
      )
    reader.u8() // m = 0
    qr.data = reader.take(reader.u16()).slice()
    return
  }
  if (fn !== 0x53) return printer.warnings.add(offset, `unknown command ESC GS y 0x${hex(fn)}; skipped`)
  const setting = reader.u8()
  const n = reader.u8()
  if (setting === 0x30) {
    if (n !== 2) printer.warnings.add(offset, `ESC GS y S 0: QR model ${n} is drawn as model 2`)
  } else if (setting === 0x31) {
    const level = QR_LEVELS[n]
    if (level) qr.errorCorrection = level
    else printer.warnings.add(offset, `ESC GS y S 1 ${n} is not an error correction level (0 to 3); ignored`)
  } else if (setting === 0x32) {
    if (n >= 1 && n <= 8) qr.moduleDots = n
    else printer.warnings.add(offset, `ESC GS y S 2 ${n} is not a cell size (1 to 8); ignored`)
  } else printer.warnings.add(offset, `ESC GS y S 0x${hex(setting)} is not a QR setting; ignored`)
}

/** `ESC b n1` types the preview draws (0 UPC-E, 2 EAN-8, 5 ITF, 7 code 93 and 8 NW-7 it does not). */
const BARCODE_TYPES: Readonly<Record<number, BarcodeSymbology>> = { 1: 'upca', 3: 'ean13', 4: 'code39', 6: 'code128' }

/** `ESC b n1 n2 n3 n4 d... RS`: type, text below or not (2 and 4: below), mode (module width), height. */
function barcode(context: StarContext, offset: number): void {
  const { reader, printer } = context
  const [type, hri, mode, heightDots] = Array.from(reader.take(4), (n, index) =>
    index < 3 && n >= 48 ? n - 48 : n,
  ) as [number, number, number, number]
  const data = reader.takeUntil(RS)
  const symbology = BARCODE_TYPES[type]
  if (!symbology)
    return printer.warnings.add(offset, `ESC b type ${type}: this barcode type is not drawn by the preview`)
  const widths = moduleWidths(mode)
  if (!widths || hri < 1 || hri > 4 || heightDots === 0)
    return printer.warnings.add(
      offset,
      `ESC b ${type} ${hri} ${mode} ${heightDots}: parameters out of range; nothing prints`,
    )
  const settings = { ...widths, heightDots, hri: hri === 2 || hri === 4 ? 'below' : 'none' } as const
  printBarcode(printer, { symbology, data, code128Data: 'starprnt', settings }, offset, 'ESC b')
}

/** Mode n3 1 to 3: modules of 2, 3 or 4 dots; code 39's wide elements 3 modules (2:6, 3:9, 4:12 dots). */
function moduleWidths(mode: number): { moduleDots: number; wideDots: number } | undefined {
  return mode >= 1 && mode <= 3 ? { moduleDots: mode + 1, wideDots: 3 * (mode + 1) } : undefined
}

/** `ESC GS S m xL xH yL yH n d...`: raster graphics of x bytes by y rows; m = 1 and n = 0 for black dots. */
function raster(context: StarContext, offset: number): void {
  const { reader, printer } = context
  const m = reader.u8()
  const widthBytes = reader.u16()
  const height = reader.u16()
  const tone = reader.u8()
  const rows = reader.take(widthBytes * height)
  if (m !== 1 || tone !== 0)
    return printer.warnings.add(offset, `ESC GS S with m ${m} and n ${tone} is not a monochrome raster image; skipped`)
  if (rows.length === 0) return printer.warnings.add(offset, 'ESC GS S with no dots; ignored')
  printRaster(
    printer,
    { image: { widthBytes, height, rows, scale: { x: 1, y: 1 } }, dotsPerLine: context.dotsPerLine },
    offset,
    'ESC GS S',
  )
}
