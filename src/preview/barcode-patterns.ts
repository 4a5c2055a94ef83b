// Bar patterns of the symbologies the preview draws, written from the symbology standards
// (ISO/IEC 15417 code 128, ISO/IEC 16388 code 39, ISO/IEC 15420 EAN/UPC), not from the renderer.

/**
 * Code 128 symbol values 0 to 106: widths in modules of bar, space, bar, space, bar, space (the
 * stop, 106, has a seventh element, its final bar).
 */
export const CODE128_PATTERNS: readonly string[] = [
  '212222',
  '222122',
  '222221',
  '121223',
  '121322',
  '131222',
  '122213',
  '122312',
  '132212',
  '221213', // 0
  '221312',
  '231212',
  '112232',
  '122132',
  '122231',
  '113222',
  '123122',
  '123221',
  '223211',
  '221132', // 10
  '221231',
  '213212',
  '223112',
  '312131',
  '311222',
  '321122',
  '321221',
  '312212',
  '322112',
  '322211', // 20
  '212123',
  '212321',
  '232121',
  '111323',
  '131123',
  '131321',
  '112313',
  '132113',
  '132311',
  '211313', // 30
  '231113',
  '231311',
  '112133',
  '112331',
  '132131',
  '113123',
  '113321',
  '133121',
  '313121',
  '211331', // 40
  '231131',
  '213113',
  '213311',
  '213131',
  '311123',
  '311321',
  '331121',
  '312113',
  '312311',
  '332111', // 50
  '314111',
  '221411',
  '431111',
  '111224',
  '111422',
  '121124',
  '121421',
  '141122',
  '141221',
  '112214', // 60
  '112412',
  '122114',
  '122411',
  '142112',
  '142211',
  '241211',
  '221114',
  '413111',
  '241112',
  '134111', // 70
  '111242',
  '121142',
  '121241',
  '114212',
  '124112',
  '124211',
  '411212',
  '421112',
  '421211',
  '212141', // 80
  '214121',
  '412121',
  '111143',
  '111341',
  '131141',
  '114113',
  '114311',
  '411113',
  '411311',
  '113141', // 90
  '114131',
  '311141',
  '411131',
  '211412',
  '211214',
  '211232',
  '2331112', // 100
]

/** Code 128 symbol values with a meaning of their own. */
export const CODE128 = {
  fnc3: 96,
  fnc2: 97,
  shift: 98,
  codeC: 99,
  /** Code B in code sets A and C; FNC4 in code set B. */
  codeB: 100,
  /** Code A in code sets B and C; FNC4 in code set A. */
  codeA: 101,
  fnc1: 102,
  startA: 103,
  startB: 104,
  startC: 105,
  stop: 106,
} as const

/**
 * Code 39 characters: nine elements (bar, space, ... bar), 1 for a wide one. Three of the nine
 * are wide, hence the name.
 */
export const CODE39_PATTERNS: Readonly<Record<string, string>> = {
  '0': '000110100',
  '1': '100100001',
  '2': '001100001',
  '3': '101100000',
  '4': '000110001',
  '5': '100110000',
  '6': '001110000',
  '7': '000100101',
  '8': '100100100',
  '9': '001100100',
  A: '100001001',
  B: '001001001',
  C: '101001000',
  D: '000011001',
  E: '100011000',
  F: '001011000',
  G: '000001101',
  H: '100001100',
  I: '001001100',
  J: '000011100',
  K: '100000011',
  L: '001000011',
  M: '101000010',
  N: '000010011',
  O: '100010010',
  P: '001010010',
  Q: '000000111',
  R: '100000110',
  S: '001000110',
  T: '000010110',
  U: '110000001',
  V: '011000001',
  W: '111000000',
  X: '010010001',
  Y: '110010000',
  Z: '011010000',
  '-': '010000101',
  '.': '110000100',
  ' ': '011000100',
  $: '010101000',
  '/': '010100010',
  '+': '010001010',
  '%': '000101010',
  '*': '010010100',
}

/** EAN/UPC digits in the left half, odd parity (set A, "L"): 7 modules, 1 for a bar. */
const EAN_L: readonly string[] = [
  '0001101',
  '0011001',
  '0010011',
  '0111101',
  '0100011',
  '0110001',
  '0101111',
  '0111011',
  '0110111',
  '0001011',
]

const invert = (modules: string) => Array.from(modules, (m) => (m === '1' ? '0' : '1')).join('')

/** The right half ("R", set C): the L patterns with bars and spaces swapped. */
export const EAN_R: readonly string[] = EAN_L.map(invert)
/** Even parity for the left half ("G", set B): the R patterns reversed. */
const EAN_G: readonly string[] = EAN_R.map((modules) => Array.from(modules).reverse().join(''))

/** Which of the six left-half digits use G, by the first digit of an EAN-13 (encoded by it, not drawn). */
const EAN13_PARITY: readonly string[] = [
  'LLLLLL',
  'LLGLGG',
  'LLGGLG',
  'LLGGGL',
  'LGLLGG',
  'LGGLLG',
  'LGGGLL',
  'LGLGLG',
  'LGLGGL',
  'LGGLGL',
]

/** The left-half pattern of `digit` at `position` (0 to 5) of an EAN-13 starting with `first`. */
export function eanLeft(first: number, position: number, digit: number): string {
  return (EAN13_PARITY[first]![position] === 'G' ? EAN_G : EAN_L)[digit]!
}

export const EAN_GUARD = '101'
export const EAN_CENTRE = '01010'

/** The EAN/UPC check digit of the digits before it (weights 3 and 1 from the right). */
export function eanCheckDigit(digits: string): number {
  let sum = 0
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 3 : 1)
  return (10 - (sum % 10)) % 10
}
