// Named builders for the StarPRNT commands the renderer uses (Star Micronics, "StarPRNT Command
// Specifications"), each citing its command, so no byte sequence is written inline anywhere else.
import type { Alignment } from './escpos-commands.ts'

const ESC = 0x1b
const GS = 0x1d
const RS = 0x1e

const ALIGNMENT_CODES: Record<Alignment, number> = { left: 0, center: 1, right: 2 }

/** A one-byte command parameter; a value out of range is a bug in the caller. */
function byte(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 255)
    throw new RangeError(`StarPRNT parameter ${value} is not a byte`)
  return value
}

/** `ESC @`: initialise the printer (print modes back to their defaults). */
export const initialize = () => Uint8Array.of(ESC, 0x40)

/** `ESC GS t n`: select the code page, in Star's numbering. */
export const selectCodePage = (n: number) => Uint8Array.of(ESC, GS, 0x74, byte(n))

/** `ESC GS a n`: position alignment (0 left, 1 center, 2 right). */
export const specifyAlignment = (alignment: Alignment) => Uint8Array.of(ESC, GS, 0x61, ALIGNMENT_CODES[alignment])

/** `ESC E` selects emphasised printing, `ESC F` cancels it. */
export const emphasis = (on: boolean) => Uint8Array.of(ESC, on ? 0x45 : 0x46)

/** `ESC a n`: feed n lines. */
export const feedLines = (lines: number) => Uint8Array.of(ESC, 0x61, byte(lines))

/** `ESC d n` with n = 2 (full) or 3 (partial): feed to the cutter and cut. */
export const feedAndCut = (kind: 'full' | 'partial') => Uint8Array.of(ESC, 0x64, kind === 'full' ? 2 : 3)

/** `ESC GS y S 0 n`: QR model; n = 2 is model 2. */
export const qrSelectModel2 = () => Uint8Array.of(ESC, GS, 0x79, 0x53, 0x30, 2)

/** `ESC GS y S 1 n`: QR error correction level; n = 1 is level M (about 15 % recovery). */
export const qrErrorCorrectionM = () => Uint8Array.of(ESC, GS, 0x79, 0x53, 0x31, 1)

/** `ESC GS y S 2 n`: QR cell (module) size in dots, 1 to 8. */
export const qrCellSize = (dots: number) => Uint8Array.of(ESC, GS, 0x79, 0x53, 0x32, byte(dots))

/** `ESC GS y D 1 m nL nH d1...dk` with m = 0: store QR data of k = nL + 256 nH bytes. */
export function qrStore(data: Uint8Array): Uint8Array {
  if (data.length > 0xffff) throw new RangeError(`QR data of ${data.length} bytes cannot be stored`)
  const command = new Uint8Array(8 + data.length)
  command.set([ESC, GS, 0x79, 0x44, 0x31, 0, data.length & 0xff, data.length >> 8])
  command.set(data, 8)
  return command
}

/** `ESC GS y P`: print the stored QR symbol. */
export const qrPrint = () => Uint8Array.of(ESC, GS, 0x79, 0x50)

/**
 * `ESC b n1 n2 n3 n4 d1...dk RS`: print barcode of type n1 with the text below it and a line feed
 * (n2 = 2), module mode n3 and height n4 in dots.
 */
export function printBarcode(type: number, mode: number, heightDots: number, data: Uint8Array): Uint8Array {
  const command = new Uint8Array(7 + data.length)
  command.set([ESC, 0x62, byte(type), 2, byte(mode), byte(heightDots)])
  command.set(data, 6)
  command[6 + data.length] = RS
  return command
}

/**
 * `ESC GS S m xL xH yL yH n d1...dk` with m = 1 and n = 0 (monochrome): print a raster graphic of
 * `widthBytes` bytes (8 dots each, high bit leftmost) by `height` rows.
 */
export function rasterGraphic(widthBytes: number, height: number, rows: Uint8Array): Uint8Array {
  if (widthBytes < 1 || widthBytes > 0xffff || height < 1 || height > 0xffff || rows.length !== widthBytes * height) {
    throw new RangeError(
      `a raster graphic of ${widthBytes} bytes by ${height} rows (${rows.length} bytes given) cannot be sent`,
    )
  }
  const command = new Uint8Array(9 + rows.length)
  command.set([ESC, GS, 0x53, 1, widthBytes & 0xff, widthBytes >> 8, height & 0xff, height >> 8, 0])
  command.set(rows, 9)
  return command
}

/** `ESC i n1 n2`: character expansion, n1 = height - 1 and n2 = width - 1 (0-5: 1 to 6 times). */
export const characterExpansion = (width: number, height: number) =>
  Uint8Array.of(ESC, 0x69, byte(height - 1), byte(width - 1))

/** `ESC - n`: underline on (1) or off (0); StarPRNT has one thickness. */
export const underline = (on: boolean) => Uint8Array.of(ESC, 0x2d, on ? 1 : 0)

/** `ESC 4` selects white/black inverted printing, `ESC 5` cancels it. */
export const whiteBlackInvert = (on: boolean) => Uint8Array.of(ESC, on ? 0x34 : 0x35)

/** `ESC RS F n`: font, 0 for font A (12 x 24), 1 for font B (9 x 24). */
export const selectFont = (font: 'a' | 'b') => Uint8Array.of(ESC, RS, 0x46, font === 'a' ? 0 : 1)

/**
 * `ESC BEL n1 n2` sets the drive pulse (on n1 x 10 ms, off n2 x 10 ms), then `BEL` drives
 * peripheral 1 (the drawer connector's pin 2) or `SUB` peripheral 2 (pin 5).
 */
export function drivePeripheral(pin: 2 | 5, onMs: number, offMs: number): Uint8Array {
  const tens = (ms: number) => Math.min(127, Math.max(1, Math.round(ms / 10)))
  return Uint8Array.of(ESC, 0x07, tens(onMs), tens(offMs), pin === 2 ? 0x07 : 0x1a)
}

/**
 * `ESC GS EM DC1 m n1 n2` sets the external buzzer's pulse on terminal 1 (on n1 x 20 ms, off
 * n2 x 20 ms), then `ESC GS EM DC2 m n1 n2` sounds it n1 times (1-20).
 */
export function externalBuzzer(times: number, durationMs: number): Uint8Array {
  const twenties = Math.min(255, Math.max(1, Math.round(durationMs / 20)))
  return Uint8Array.of(ESC, GS, 0x19, 0x11, 1, twenties, twenties, ESC, GS, 0x19, 0x12, 1, byte(times), 0)
}
