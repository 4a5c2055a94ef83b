// Barcode sections: the text below the bars, and the widest module width that keeps the symbol
// on the paper.
import { type BarcodeFormat, barcodeProblem } from '../protocol/barcode.ts'
import type { BarcodeModuleDots, CommandSet } from './command-set.ts'
import { RenderError } from './errors.ts'

/** 10 mm at 203 dpi: tall enough for a hand scanner held at an angle. */
const BAR_HEIGHT_DOTS = 80
/** Widest first: 3-dot modules scan most reliably; below 2 dots many scanners fail. */
const MODULE_WIDTHS: readonly BarcodeModuleDots[] = [3, 2]
/** A code 128 digit run goes in code set C (two digits per symbol) from this length on. */
const MIN_CODE_SET_C_RUN = 4
/** One code 39 character: 6 narrow and 3 wide elements (wide counted as 3 narrow), and the gap after it. */
const CODE39_CHARACTER_MODULES = 16
/** EAN-13 and UPC-A: guards and 12 digits of 7 modules, whatever the value. */
const EAN_UPC_MODULES = 95

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0))

interface EncodedBarcode {
  data: Uint8Array
  modules: number
}

/**
 * Code 128 in the ESC/POS `GS k` data format: a `{B` or `{C` selects the code set (the first one is the
 * start character, later ones a symbol of their own), `{{` is a literal `{`, and in code set C
 * each byte is one pair of digits, 0 to 99.
 */
function code128(value: string): EncodedBarcode {
  const data: number[] = []
  let symbols = 0
  let codeSet: 'B' | 'C' | undefined
  const select = (next: 'B' | 'C') => {
    if (codeSet === next) return
    if (codeSet !== undefined) symbols++
    data.push(0x7b, next.charCodeAt(0))
    codeSet = next
  }
  const inB = (text: string) => {
    select('B')
    for (const c of text) data.push(...(c === '{' ? [0x7b, 0x7b] : [c.charCodeAt(0)]))
    symbols += text.length
  }
  const inC = (digits: string) => {
    select('C')
    for (let i = 0; i < digits.length; i += 2) data.push(Number(digits.slice(i, i + 2)))
    symbols += digits.length / 2
  }
  for (const [run] of value.matchAll(/\d+|\D+/g)) {
    if (!/^\d/.test(run) || run.length < MIN_CODE_SET_C_RUN) {
      inB(run)
    } else if (run.length % 2 === 0) {
      inC(run)
    } else if (codeSet === undefined) {
      // An odd run that opens the value: start in C, and the last digit joins the text after it in B.
      inC(run.slice(0, -1))
      inB(run.slice(-1))
    } else {
      // An odd run after text: its first digit still fits in B, saving a code set switch.
      inB(run.slice(0, 1))
      inC(run.slice(1))
    }
  }
  // Start, check and stop characters of 11 modules each, and the stop's 2-module bar.
  return { data: Uint8Array.from(data), modules: (symbols + 3) * 11 + 2 }
}

/**
 * Code 128 for StarPRNT: plain ASCII, the printer picks the code sets itself, and `%` is sent as
 * `%0` (a lone `%` starts a function code). Measured all in code set B, the widest it can come out.
 */
function code128Star(value: string): EncodedBarcode {
  return { data: ascii(value.replaceAll('%', '%0')), modules: (value.length + 3) * 11 + 2 }
}

function symbolOf(format: BarcodeFormat, value: string, commands: CommandSet): EncodedBarcode {
  switch (format) {
    case 'code128':
      return commands.code128CodeSets ? code128(value) : code128Star(value)
    case 'code39':
      // The printer adds the `*` start and stop characters.
      return { data: ascii(value), modules: (value.length + 2) * CODE39_CHARACTER_MODULES }
    case 'ean13':
    case 'upca':
      // The printer computes the check digit when it is left out, and checks it when it is given.
      return { data: ascii(value), modules: EAN_UPC_MODULES }
  }
}

export function barcodeCommands(
  format: BarcodeFormat,
  value: string,
  dotsPerLine: number,
  commands: CommandSet,
): Uint8Array[] {
  // Frames are decoded without the symbology rules, so they are checked again here.
  const problem = /^[\x20-\x7E]+$/.test(value) ? barcodeProblem(format, value) : 'must be printable ASCII'
  if (problem) throw new RenderError('render.barcode_invalid', `barcode value ${problem}`, false)
  const symbol = symbolOf(format, value, commands)
  const moduleWidth = MODULE_WIDTHS.find((dots) => symbol.modules * dots <= dotsPerLine)
  if (moduleWidth === undefined) {
    const needed = symbol.modules * Math.min(...MODULE_WIDTHS)
    throw new RenderError(
      'render.barcode_too_wide',
      `${format} barcode needs ${needed} dots; the paper has ${dotsPerLine}`,
      false,
    )
  }
  return commands.barcode(format, symbol.data, moduleWidth, BAR_HEIGHT_DOTS)
}
