// Named builders for the Epson ESC/POS commands the renderer uses, each citing its command, so no
// byte sequence is written inline anywhere else.

import type { BarcodeFormat } from '../protocol/barcode.ts'

const ESC = 0x1b
const GS = 0x1d
export const LF = 0x0a

export type Alignment = 'left' | 'center' | 'right'

const ALIGNMENT_CODES: Record<Alignment, number> = { left: 0, center: 1, right: 2 }

/** A one-byte command parameter; a value out of range is a bug in the caller. */
function byte(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 255)
    throw new RangeError(`ESC/POS parameter ${value} is not a byte`)
  return value
}

/** `ESC @`: initialise the printer (modes back to their power-on defaults, buffer cleared). */
export const initialize = () => Uint8Array.of(ESC, 0x40)

/** `ESC t n`: select the character code table. */
export const selectCodeTable = (n: number) => Uint8Array.of(ESC, 0x74, byte(n))

/** `ESC a n`: justification (0 left, 1 center, 2 right). */
export const selectJustification = (alignment: Alignment) => Uint8Array.of(ESC, 0x61, ALIGNMENT_CODES[alignment])

/** `ESC E n`: emphasised (bold) mode on or off. */
export const selectEmphasis = (on: boolean) => Uint8Array.of(ESC, 0x45, on ? 1 : 0)

/** `ESC d n`: print the buffer and feed n lines. */
export const printAndFeedLines = (lines: number) => Uint8Array.of(ESC, 0x64, byte(lines))

/** `GS V m`: m = 0 full cut, m = 1 partial cut (one point left uncut). */
export const cut = (kind: 'full' | 'partial') => Uint8Array.of(GS, 0x56, kind === 'full' ? 0 : 1)

/** `GS ( k` with cn = 49 (QR code): the function `fn`, its parameters, pL/pH counting cn, fn and them. */
function qrFunction(fn: number, parameters: Uint8Array): Uint8Array {
  const length = parameters.length + 2
  if (length > 0xffff) throw new RangeError(`QR function ${fn} parameters are ${parameters.length} bytes`)
  const command = new Uint8Array(7 + parameters.length)
  command.set([GS, 0x28, 0x6b, length & 0xff, length >> 8, 49, fn])
  command.set(parameters, 7)
  return command
}

/** `GS ( k` fn 65: select the model; n1 = 50 is model 2, n2 = 0. */
export const qrSelectModel2 = () => qrFunction(65, Uint8Array.of(50, 0))

/** `GS ( k` fn 67: module size in dots. */
export const qrModuleSize = (dots: number) => qrFunction(67, Uint8Array.of(byte(dots)))

/** `GS ( k` fn 69: error correction level; n = 49 is level M (about 15 % recovery). */
export const qrErrorCorrectionM = () => qrFunction(69, Uint8Array.of(49))

/** `GS ( k` fn 80: store the symbol data (m = 48). */
export function qrStore(data: Uint8Array): Uint8Array {
  const parameters = new Uint8Array(1 + data.length)
  parameters[0] = 48
  parameters.set(data, 1)
  return qrFunction(80, parameters)
}

/** `GS ( k` fn 81: print the stored symbol (m = 48). */
export const qrPrint = () => qrFunction(81, Uint8Array.of(48))

/** `GS H n`: where the human-readable text goes; n = 2 is below the bars. */
export const barcodeTextBelow = () => Uint8Array.of(GS, 0x48, 2)

/** `GS h n`: bar height in dots. */
export const barcodeHeight = (dots: number) => Uint8Array.of(GS, 0x68, byte(dots))

/** `GS w n`: module (narrowest bar) width in dots. */
export const barcodeModuleWidth = (dots: number) => Uint8Array.of(GS, 0x77, byte(dots))

/** The `GS k` symbology numbers of the function B form (the one with a length byte). */
export const BARCODE_SYSTEMS: Readonly<Record<BarcodeFormat, number>> = { upca: 65, ean13: 67, code39: 69, code128: 73 }

/** `GS k m n d1...dn`, function B: print a barcode of system m with n data bytes. */
export function printBarcode(system: number, data: Uint8Array): Uint8Array {
  const command = new Uint8Array(4 + data.length)
  command.set([GS, 0x6b, byte(system), byte(data.length)])
  command.set(data, 4)
  return command
}

/**
 * `GS v 0 m xL xH yL yH d1...dk` with m = 0 (normal scale): print a raster bit image of
 * `widthBytes` bytes (8 dots each, high bit leftmost) by `height` rows. Epson limits one block to
 * 4,095 rows; callers send taller images in bands.
 */
export function rasterBitImage(widthBytes: number, height: number, rows: Uint8Array): Uint8Array {
  if (widthBytes < 1 || widthBytes > 0xffff || height < 1 || height > 4_095 || rows.length !== widthBytes * height) {
    throw new RangeError(
      `a raster block of ${widthBytes} bytes by ${height} rows (${rows.length} bytes given) cannot be sent`,
    )
  }
  const command = new Uint8Array(8 + rows.length)
  command.set([GS, 0x76, 0x30, 0, widthBytes & 0xff, widthBytes >> 8, height & 0xff, height >> 8])
  command.set(rows, 8)
  return command
}

/** `GS ! n`: character size, width (1-8) in the high nibble and height (1-8) in the low, each less one. */
export const selectCharacterSize = (width: number, height: number) =>
  Uint8Array.of(GS, 0x21, ((width - 1) << 4) | (height - 1))

/** `ESC - n`: underline off (0), one dot thick (1) or two (2). */
export const selectUnderline = (dots: 0 | 1 | 2) => Uint8Array.of(ESC, 0x2d, dots)

/** `GS B n`: white/black reverse printing on or off. */
export const selectReverse = (on: boolean) => Uint8Array.of(GS, 0x42, on ? 1 : 0)

/** `ESC M n`: character font, 0 for font A (12 x 24), 1 for font B (9 x 17). */
export const selectFont = (font: 'a' | 'b') => Uint8Array.of(ESC, 0x4d, font === 'a' ? 0 : 1)

/** `ESC p m t1 t2`: a pulse on the drawer connector's pin 2 (m = 0) or pin 5 (m = 1), on t1 x 2 ms, off t2 x 2 ms. */
export const generatePulse = (pin: 2 | 5, onMs: number, offMs: number) =>
  Uint8Array.of(
    ESC,
    0x70,
    pin === 2 ? 0 : 1,
    byte(Math.max(1, Math.round(onMs / 2))),
    byte(Math.max(1, Math.round(offMs / 2))),
  )

/**
 * `ESC ( A pL pH fn n c t` with fn = 48: beep the buzzer c times, sound n = 49, each cycle t x 100 ms (Epson's optional
 * buzzer).
 */
export const beepBuzzer = (times: number, durationMs: number) =>
  Uint8Array.of(ESC, 0x28, 0x41, 4, 0, 48, 49, byte(times), byte(Math.max(1, Math.round(durationMs / 100))))

/** `ESC B n t`: beep n times, each t x 50 ms (1-9), the command Xprinter's models take. */
export const beepTimes = (times: number, durationMs: number) =>
  Uint8Array.of(ESC, 0x42, byte(times), Math.min(9, Math.max(1, Math.round(durationMs / 50))))
