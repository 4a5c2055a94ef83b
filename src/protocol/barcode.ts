// Symbology rules for barcode sections: what each format can encode, check digits included.

export const BARCODE_FORMATS = ['code128', 'code39', 'ean13', 'upca'] as const
export type BarcodeFormat = (typeof BARCODE_FORMATS)[number]

/** CODE128 is sent in code set B behind a two-byte `{B` prefix, and `GS k` counts at most 255 bytes. */
const MAX_CODE128_LENGTH = 253

/** GS1 mod-10 check digit: from the right, data digits weigh 3, 1, 3, 1, ... */
function gs1CheckDigit(digits: string): number {
  let sum = 0
  for (let i = digits.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += Number(digits[i]) * weight
  return (10 - (sum % 10)) % 10
}

function checkGs1(value: string, name: string, dataLength: number): string | undefined {
  if (!/^\d+$/.test(value) || (value.length !== dataLength && value.length !== dataLength + 1)) {
    return `must be ${dataLength} digits, or ${dataLength + 1} with the check digit, for ${name}`
  }
  if (value.length === dataLength + 1) {
    const expected = gs1CheckDigit(value.slice(0, dataLength))
    if (Number(value[dataLength]) !== expected) return `has a wrong check digit for ${name} (expected ${expected})`
  }
  return undefined
}

/** Returns what is wrong with `value` as a barcode of `format`, or undefined when it can be printed. */
export function barcodeProblem(format: BarcodeFormat, value: string): string | undefined {
  switch (format) {
    case 'code128':
      return value.length > MAX_CODE128_LENGTH
        ? `must be at most ${MAX_CODE128_LENGTH} characters for code128`
        : undefined
    case 'code39':
      return /^[A-Z0-9 .$/+%-]+$/.test(value) ? undefined : 'may only hold A-Z, 0-9, space and - . $ / + % for code39'
    case 'ean13':
      return checkGs1(value, 'ean13', 12)
    case 'upca':
      return checkGs1(value, 'upca', 11)
  }
}
