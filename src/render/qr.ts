// QR code sections: model 2, error correction M, with the largest module size that fits the line;
// printed by the printer's own QR command, or drawn here for a printer without one.
import { encodeQR } from '@paulmillr/qr'
import { MAX_QR_BYTES } from '../protocol/limits.ts'
import type { CommandSet } from './command-set.ts'
import { RenderError } from './errors.ts'
import type { DotImage } from './image.ts'

/** Byte-mode capacity of versions 1 to 40 at error correction M (ISO/IEC 18004). */
const BYTE_CAPACITY_M = [
  14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560, 624, 666, 711, 779, 857, 911,
  997, 1059, 1125, 1190, 1264, 1370, 1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331,
] as const

/** Larger modules scan no better and only take paper. */
const MAX_MODULE_DOTS = 8

const utf8 = new TextEncoder()

/** The smallest version whose byte-mode capacity at M holds `bytes`, or undefined past version 40. */
export function qrVersionM(bytes: number): number | undefined {
  const index = BYTE_CAPACITY_M.findIndex((capacity) => capacity >= bytes)
  return index < 0 ? undefined : index + 1
}

/** The largest module size, in dots and capped, at which a symbol of this version fits the line. */
export function qrModuleDots(version: number, dotsPerLine: number): number {
  const modules = 17 + 4 * version
  return Math.max(1, Math.min(MAX_MODULE_DOTS, Math.floor(dotsPerLine / modules)))
}

/**
 * The commands for one symbol, sized for byte mode: the printer picks the version itself, maybe a
 * smaller one in a denser mode (digits only) but never a larger one, so the symbol always fits.
 */
export function qrCommands(value: string, dotsPerLine: number, commands: CommandSet): Uint8Array[] {
  const data = utf8.encode(value)
  return commands.qr(data, qrModuleDots(versionFor(data.length), dotsPerLine))
}

function versionFor(bytes: number): number {
  const version = qrVersionM(bytes)
  if (version === undefined)
    throw new RenderError(
      'render.qr_too_long',
      `QR value is ${bytes} bytes in UTF-8; a QR code holds at most ${MAX_QR_BYTES}`,
      false,
    )
  return version
}

/** White modules around a drawn symbol, as the QR specification asks (a printer adds its own). */
const QUIET_ZONE_MODULES = 4

/**
 * The symbol drawn as dots, for a printer without a QR command: the same version, level and
 * module size the printer would choose, with its quiet zone.
 */
export function qrDots(value: string, dotsPerLine: number): DotImage {
  versionFor(utf8.encode(value).length)
  const modules = encodeQR(value, 'raw', { ecc: 'medium', border: QUIET_ZONE_MODULES })
  const side = modules.length
  const scale = Math.max(1, Math.min(MAX_MODULE_DOTS, Math.floor(dotsPerLine / side)))
  const width = side * scale
  const widthBytes = Math.ceil(width / 8)
  const rows = new Uint8Array(widthBytes * width)
  for (let y = 0; y < width; y++) {
    const row = modules[Math.floor(y / scale)]!
    for (let x = 0; x < width; x++) if (row[Math.floor(x / scale)]) rows[y * widthBytes + (x >> 3)]! |= 0x80 >> (x & 7)
  }
  return { widthBytes, height: width, rows }
}
