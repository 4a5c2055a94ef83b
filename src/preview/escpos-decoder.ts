// Epson ESC/POS read the way a TM-series printer reads it (Epson "ESC/POS Command Reference"):
// text, the commands that change how it prints, and the `ESC`, `DLE` and `FS` commands. `GS`
// commands are in escpos-gs.ts.
import { type ByteReader, eachCommand } from './byte-reader.ts'
import { type EscPosContext, gsCommand } from './escpos-gs.ts'
import {
  isOff,
  isZero,
  isZeroOrAsciiZero,
  never,
  type ParameterCommands,
  readParameterCommand,
} from './parameter-commands.ts'
import { hex, type Printer } from './printer.ts'
import type { Alignment } from './receipt.ts'

const LF = 0x0a
const DLE = 0x10
const FS = 0x1c
const ESC = 0x1b
const GS = 0x1d

export function decodeEscPos(reader: ByteReader, printer: Printer, dotsPerLine: number): void {
  const context = initialContext(reader, printer, dotsPerLine)
  eachCommand(reader, printer.warnings, (offset) => {
    const byte = reader.u8()
    if (byte >= 0x20 && byte !== 0x7f) printer.character(byte, offset)
    else if (byte === LF) printer.printLine()
    else if (byte === ESC) escCommand(context, offset)
    else if (byte === GS) gsCommand(context, offset)
    else if (byte === DLE) dleCommand(context, offset)
    else if (byte === FS) fsCommand(context, offset)
    else printer.warnings.add(offset, `control byte 0x${hex(byte)} is not read by the preview; ignored`)
  })
}

/**
 * The power-on settings `ESC @` returns to: QR module 3 dots at level L, bars 162 dots high of 3-dot modules, no text.
 */
function initialContext(reader: ByteReader, printer: Printer, dotsPerLine: number): EscPosContext {
  return {
    reader,
    printer,
    dotsPerLine,
    qr: { moduleDots: 3, errorCorrection: 'L', data: undefined },
    barcode: { moduleDots: 3, wideDots: 8, heightDots: 162, hri: 'none' },
  }
}

/** `ESC` commands read for their length only. */
const ESC_PARAMETER_COMMANDS: ParameterCommands = {
  0x20: { name: 'ESC SP (character spacing)', parameters: 1, drawn: isZero },
  0x24: { name: 'ESC $ (absolute position)', parameters: 2, drawn: never },
  0x25: { name: 'ESC % (user-defined characters)', parameters: 1, drawn: isOff },
  0x32: { name: 'ESC 2 (default line spacing)', parameters: 0 },
  0x33: { name: 'ESC 3 (line spacing)', parameters: 1 },
  0x3d: { name: 'ESC = (peripheral device)', parameters: 1 },
  0x3f: { name: 'ESC ? (cancel user-defined character)', parameters: 1 },
  0x47: { name: 'ESC G (double-strike)', parameters: 1, drawn: isOff },
  0x4c: { name: 'ESC L (page mode)', parameters: 0, drawn: never },
  0x52: { name: 'ESC R (international character set)', parameters: 1, drawn: isZero },
  0x53: { name: 'ESC S (standard mode)', parameters: 0 },
  0x54: { name: 'ESC T (page mode direction)', parameters: 1 },
  0x55: { name: 'ESC U (unidirectional printing)', parameters: 1 },
  0x56: { name: 'ESC V (90° rotation)', parameters: 1, drawn: isZeroOrAsciiZero },
  0x57: { name: 'ESC W (page mode area)', parameters: 8 },
  0x5c: { name: 'ESC \\ (relative position)', parameters: 2, drawn: never },
  0x63: { name: 'ESC c (paper sensors, panel buttons)', parameters: 2 },
  0x65: { name: 'ESC e (reverse feed)', parameters: 1, drawn: never },
  0x72: { name: 'ESC r (print colour)', parameters: 1, drawn: isZeroOrAsciiZero },
  0x75: { name: 'ESC u (peripheral status)', parameters: 1 },
  0x76: { name: 'ESC v (paper sensor status)', parameters: 0 },
  0x7b: { name: 'ESC { (upside-down)', parameters: 1, drawn: isOff },
}

const JUSTIFICATIONS: Readonly<Record<number, Alignment>> = {
  0: 'left',
  1: 'center',
  2: 'right',
  48: 'left',
  49: 'center',
  50: 'right',
}

/** A parameter that is 0 to 2, or "0" to "2" (48 to 50), as most on/off and level commands take it. */
const level = (n: number) => (n >= 48 ? n - 48 : n)

function escCommand(context: EscPosContext, offset: number): void {
  const { reader, printer } = context
  const code = reader.u8()
  const name = `ESC ${String.fromCharCode(code)}`
  switch (code) {
    case 0x40: // ESC @: initialise
      printer.initialize(offset)
      Object.assign(context, initialContext(reader, printer, context.dotsPerLine))
      return
    case 0x74: // ESC t n: select character code table
      return printer.selectCodeTable(reader.u8(), offset)
    case 0x61: {
      // ESC a n: justification
      const n = reader.u8()
      const alignment = JUSTIFICATIONS[n]
      if (alignment) return printer.setAlignment(alignment, offset, name)
      return printer.warnings.add(offset, `ESC a ${n} is not a justification; ignored`)
    }
    case 0x45: // ESC E n: emphasis
      printer.bold = (reader.u8() & 1) === 1
      return
    case 0x21: {
      // ESC ! n: print modes: font B (1), emphasis (8), double height (16) and width (32), underline (128)
      const n = reader.u8()
      printer.bold = (n & 0x08) !== 0
      printer.font = n & 0x01 ? 'b' : 'a'
      printer.size = { width: n & 0x20 ? 2 : 1, height: n & 0x10 ? 2 : 1 }
      printer.underline = n & 0x80 ? 1 : 0
      return
    }
    case 0x2d: {
      // ESC - n: underline off, 1 dot or 2 dots thick
      const n = level(reader.u8())
      if (n <= 2) printer.underline = n as 0 | 1 | 2
      else printer.warnings.add(offset, `ESC - ${n} is not an underline mode; ignored`)
      return
    }
    case 0x4d: {
      // ESC M n: font A or B (C and the others are drawn as B)
      const n = level(reader.u8())
      printer.font = n === 0 ? 'a' : 'b'
      if (n > 1) printer.warnings.add(offset, `ESC M ${n}: font ${n} is drawn as font B`)
      return
    }
    case 0x70: {
      // ESC p m t1 t2: a pulse on the drawer connector's pin 2 (m 0) or 5 (m 1), t x 2 ms
      const m = reader.u8()
      const on = reader.u8()
      const off = reader.u8()
      return printer.note({ kind: 'pulse', pin: level(m) === 1 ? 5 : 2, onMs: on * 2, offMs: off * 2 })
    }
    case 0x42: {
      // ESC B n t: beep n times, t x 50 ms
      const times = reader.u8()
      const t = reader.u8()
      return printer.note({ kind: 'beep', times, durationMs: t * 50 })
    }
    case 0x64: // ESC d n: print and feed n lines
      return printer.printAndFeed(reader.u8())
    case 0x4a: // ESC J n: print and feed n dots
      reader.u8()
      printer.printAndFeed(1)
      return printer.warnings.add(offset, 'ESC J (feed in dots) is drawn as one line')
    case 0x69: // ESC i, ESC m: the old partial cut commands
    case 0x6d:
      return printer.print({ kind: 'cut', partial: true }, offset, name)
    case 0x2a:
      return bitImage(context, offset)
    case 0x26:
      return userDefinedCharacters(context, offset)
    case 0x44: // ESC D n1 ... NUL: tab positions
      reader.takeUntil(0)
      return
    case 0x28: {
      // ESC ( x pL pH ...: ESC ( A fn 48 n c t beeps c times, t x 100 ms; the others change nothing the preview draws
      const group = reader.u8()
      const parameters = reader.take(reader.u16())
      if (group === 0x41 && parameters.length === 4 && parameters[0] === 48)
        return printer.note({ kind: 'beep', times: parameters[2]!, durationMs: parameters[3]! * 100 })
      if (group !== 0x41)
        printer.warnings.add(offset, `ESC ( ${String.fromCharCode(group)} is not read by the preview; skipped`)
      return
    }
  }
  if (!readParameterCommand(ESC_PARAMETER_COMMANDS, code, { reader, warnings: printer.warnings, offset })) {
    printer.warnings.add(offset, `unknown command ESC 0x${hex(code)}; skipped`)
  }
}

/** `ESC * m nL nH d...`: a column-format bit image, read for its length only. */
function bitImage({ reader, printer }: EscPosContext, offset: number): void {
  const mode = reader.u8()
  const columns = reader.u16()
  const bytesPerColumn = mode === 0 || mode === 1 ? 1 : mode === 32 || mode === 33 ? 3 : undefined
  if (bytesPerColumn === undefined)
    return printer.warnings.add(offset, `ESC * mode ${mode} is not a bit image mode; its data is read as text`)
  reader.skip(columns * bytesPerColumn)
  printer.warnings.add(offset, 'ESC * (column bit image) is not drawn by the preview; use GS v 0')
}

/** `ESC & y c1 c2 [x d1...d(y*x)]...`: user-defined characters, read for their length only. */
function userDefinedCharacters({ reader, printer }: EscPosContext, offset: number): void {
  const height = reader.u8()
  const first = reader.u8()
  const last = reader.u8()
  for (let code = first; code <= last; code++) reader.skip(height * reader.u8())
  printer.warnings.add(offset, 'ESC & (user-defined characters) is not drawn by the preview')
}

function dleCommand({ reader, printer }: EscPosContext, offset: number): void {
  const code = reader.u8()
  // DLE EOT n and DLE ENQ n (real-time status and requests), DLE DC4 fn m t (real-time pulse).
  if (code === 0x04 || code === 0x05) reader.skip(1)
  else if (code === 0x14) reader.skip(3)
  else printer.warnings.add(offset, `unknown command DLE 0x${hex(code)}; skipped`)
}

function fsCommand({ reader, printer }: EscPosContext, offset: number): void {
  const code = reader.u8()
  switch (code) {
    case 0x26: // FS &: Kanji mode
      return printer.warnings.add(
        offset,
        'FS & (Kanji mode) is not read by the preview; bytes from 0x80 stay in the code table',
      )
    case 0x2e: // FS .: cancel Kanji mode
      return
    case 0x21: // FS ! n, FS - n, FS C n, FS W n: Kanji print modes
    case 0x2d:
    case 0x43:
    case 0x57:
      return reader.skip(1)
    case 0x53: // FS S n1 n2: Kanji spacing
      return reader.skip(2)
    case 0x70: // FS p n m: print NV bit image
      reader.skip(2)
      return printer.warnings.add(offset, 'FS p (stored logo) is not drawn by the preview')
  }
  printer.warnings.add(offset, `unknown command FS 0x${hex(code)}; skipped`)
}
