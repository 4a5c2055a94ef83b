// A barcode as the widths, in dots, of its bars and spaces from left to right, starting with a
// bar; quiet zones are the drawer's business.
import {
  CODE39_PATTERNS,
  CODE128,
  CODE128_PATTERNS,
  EAN_CENTRE,
  EAN_GUARD,
  EAN_R,
  eanLeft,
} from './barcode-patterns.ts'
import type { Barcode } from './receipt.ts'

/** Code 128's check character: the start value plus each value times its position, modulo 103. */
function code128Check(values: readonly number[]): number {
  return values.reduce((sum, value, index) => sum + value * Math.max(1, index), 0) % 103
}

/** Runs of equal modules in a 0/1 module string, as widths in dots (the string starts with a bar). */
function runs(modules: string, moduleDots: number): number[] {
  const widths: number[] = []
  let run = 0
  for (let i = 0; i < modules.length; i++) {
    run++
    if (modules[i + 1] !== modules[i]) {
      widths.push(run * moduleDots)
      run = 0
    }
  }
  return widths
}

function code128Bars({ code128, moduleDots }: Barcode): number[] {
  const values = [...code128, code128Check(code128), CODE128.stop]
  return values.flatMap((value) => Array.from(CODE128_PATTERNS[value]!, (modules) => Number(modules) * moduleDots))
}

function code39Bars({ text, moduleDots, wideDots }: Barcode): number[] {
  const widths: number[] = []
  Array.from(`*${text}*`).forEach((character, index) => {
    // A narrow space between characters.
    if (index > 0) widths.push(moduleDots)
    for (const wide of CODE39_PATTERNS[character]!) widths.push(wide === '1' ? wideDots : moduleDots)
  })
  return widths
}

/** EAN-13, and UPC-A as the EAN-13 that starts with 0. */
function eanBars({ text, symbology, moduleDots }: Barcode): number[] {
  const digits = (symbology === 'upca' ? `0${text}` : text).split('').map(Number)
  const first = digits[0]!
  const left = digits.slice(1, 7).map((digit, position) => eanLeft(first, position, digit))
  const right = digits.slice(7).map((digit) => EAN_R[digit]!)
  return runs(EAN_GUARD + left.join('') + EAN_CENTRE + right.join('') + EAN_GUARD, moduleDots)
}

export function barcodeBars(barcode: Barcode): number[] {
  switch (barcode.symbology) {
    case 'code128':
      return code128Bars(barcode)
    case 'code39':
      return code39Bars(barcode)
    case 'ean13':
    case 'upca':
      return eanBars(barcode)
  }
}
