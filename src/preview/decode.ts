// Printer bytes in, what the printer would print out. Never throws on any input: what it cannot
// read becomes a warning, and a command cut short by the end of the input ends decoding.
import type { CommandSetName } from '../profiles/profile.ts'
import { ByteReader } from './byte-reader.ts'
import { type CodePageName, DEFAULT_TABLE, EPSON_CODE_TABLES, STAR_CODE_PAGES } from './code-tables.ts'
import { decodeEscPos } from './escpos-decoder.ts'
import { Printer } from './printer.ts'
import type { Receipt } from './receipt.ts'
import { decodeStarPrnt } from './starprnt-decoder.ts'
import { Warnings } from './warnings.ts'

export type { CommandSetName }

export interface DecodeOptions {
  /** Printable dots across the paper; text wraps at dotsPerLine / 12 characters (Font A). */
  readonly dotsPerLine: number
  readonly commandSet: CommandSetName
  /**
   * The code page each select-code-page number means on this model; by default Epson's `ESC t`
   * numbering for ESC/POS and Star's `ESC GS t` numbering for StarPRNT (see code-tables.ts).
   */
  readonly codeTables?: Readonly<Record<number, CodePageName>>
}

/** The widest paper the preview draws: 832 dots is 104 mm at 203 dpi. */
export const MAX_DOTS_PER_LINE = 832

const DECODERS = { escpos: decodeEscPos, starprnt: decodeStarPrnt } as const
const DEFAULT_TABLES = { escpos: EPSON_CODE_TABLES, starprnt: STAR_CODE_PAGES } as const

export function decodeReceipt(bytes: Uint8Array, options: DecodeOptions): Receipt {
  const { dotsPerLine, commandSet } = options
  if (!Number.isInteger(dotsPerLine) || dotsPerLine < 8 || dotsPerLine > MAX_DOTS_PER_LINE) {
    throw new RangeError(`dotsPerLine must be an integer from 8 to ${MAX_DOTS_PER_LINE}, not ${dotsPerLine}`)
  }
  const tables = options.codeTables ?? DEFAULT_TABLES[commandSet]
  const warnings = new Warnings()
  // Initialisation selects table 0: PC437 on Epson and Star printers alike, unless codeTables says otherwise.
  const printer = new Printer(dotsPerLine, warnings, (table) => tables[table], tables[DEFAULT_TABLE] ?? 'cp437')
  DECODERS[commandSet](new ByteReader(bytes), printer, dotsPerLine)
  return { blocks: printer.finish(bytes.length), warnings: warnings.toArray() }
}
