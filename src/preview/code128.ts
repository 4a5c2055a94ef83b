// Code 128 data as each command language sends it, read into symbol values: ESC/POS names the
// code sets itself (Epson `GS k` m = 73); StarPRNT sends text with `%` escapes and the printer
// picks the code sets (Star "Line Mode Command Specifications", 5.1.4 Code 128).
import { CODE128 } from './barcode-patterns.ts'

export type Code128Data = 'escpos' | 'starprnt'

/** The symbol values from the start character on, and the text they carry; or what is wrong. */
export type Code128Content = { text: string; values: number[] } | string

type CodeSet = 'A' | 'B' | 'C'

const START: Record<CodeSet, number> = { A: CODE128.startA, B: CODE128.startB, C: CODE128.startC }
const SWITCH_TO: Record<CodeSet, number> = { A: CODE128.codeA, B: CODE128.codeB, C: CODE128.codeC }

/** The value of an ASCII byte in code set A (control characters, upper case) or B (printable), if it has one. */
function valueIn(codeSet: 'A' | 'B', byte: number): number | undefined {
  if (codeSet === 'A') return byte < 0x20 ? byte + 64 : byte < 0x60 ? byte - 0x20 : undefined
  return byte >= 0x20 && byte < 0x80 ? byte - 0x20 : undefined
}

/** FNC4 is value 101 in code set A and 100 in B. */
const fnc4In = (codeSet: 'A' | 'B') => (codeSet === 'A' ? CODE128.codeA : CODE128.codeB)

/**
 * ESC/POS: `{A`/`{B`/`{C` select a code set (the data must start with one), `{S` shifts, `{1`-`{4` are FNC1-4, `{{` is
 * `{`.
 */
export function code128EscPos(data: Uint8Array): Code128Content {
  if (data[0] !== 0x7b || !'ABC'.includes(String.fromCharCode(data[1] ?? 0)))
    return 'code 128 data must start with {A, {B or {C'
  let codeSet = String.fromCharCode(data[1]!) as CodeSet
  const values: number[] = [START[codeSet]]
  let text = ''
  const character = (set: 'A' | 'B', byte: number): string | undefined => {
    const value = valueIn(set, byte)
    if (value === undefined) return `code set ${set} has no byte 0x${byte.toString(16)}`
    values.push(value)
    text += String.fromCharCode(byte)
    return undefined
  }
  for (let i = 2; i < data.length; i++) {
    const byte = data[i]!
    if (byte !== 0x7b) {
      if (codeSet !== 'C') {
        const problem = character(codeSet, byte)
        if (problem) return problem
      } else if (byte > 99) {
        return `code set C takes bytes 0 to 99 (digit pairs), not ${byte}`
      } else {
        values.push(byte)
        text += String(byte).padStart(2, '0')
      }
      continue
    }
    const code = String.fromCharCode(data[++i] ?? 0)
    if (code === 'A' || code === 'B' || code === 'C') {
      if (code === codeSet) return `{${code} selects code set ${code}, which is already selected`
      values.push(SWITCH_TO[code])
      codeSet = code
    } else if (code === '1') {
      values.push(CODE128.fnc1)
    } else if (codeSet === 'C') {
      return `{${code} is not a code 128 function in code set C`
    } else if (code === 'S' && i + 1 < data.length) {
      values.push(CODE128.shift)
      const problem = character(codeSet === 'A' ? 'B' : 'A', data[++i]!)
      if (problem) return problem
    } else if (code === '2' || code === '3' || code === '4') {
      values.push(code === '2' ? CODE128.fnc2 : code === '3' ? CODE128.fnc3 : fnc4In(codeSet))
    } else if (code === '{' && codeSet === 'B') {
      values.push(valueIn('B', 0x7b)!)
      text += '{'
    } else {
      return `{${code} is not a code 128 function in code set ${codeSet}`
    }
  }
  if (values.length === 1) return 'code 128 data has no characters'
  return { text, values }
}

type Fnc = 1 | 2 | 3 | 4
/** One thing to encode: an ASCII byte, or a function character. */
type Item = number | { fnc: Fnc }

const STAR_STARTS: Readonly<Record<string, CodeSet>> = { '6': 'A', '7': 'B', '8': 'C' }

/**
 * StarPRNT's escapes: `%0` is `%`, `%` and 0x40-0x5F the control characters 0x00-0x1F, `%5`
 * DEL, `%1`-`%4` FNC1-4, and `%6`-`%8` at the start choose start code A, B or C.
 */
function starItems(data: Uint8Array): { items: Item[]; start: CodeSet | undefined } | string {
  const items: Item[] = []
  let start: CodeSet | undefined
  for (let i = 0; i < data.length; i++) {
    const byte = data[i]!
    if (byte > 0x7f) return `code 128 has no byte 0x${byte.toString(16)}`
    if (byte !== 0x25) {
      items.push(byte)
      continue
    }
    const code = data[++i]
    if (code === undefined) return 'code 128 data ends with a lone %'
    const escape = String.fromCharCode(code)
    if (escape === '0') items.push(0x25)
    else if (escape === '5') items.push(0x7f)
    else if (code >= 0x40 && code <= 0x5f) items.push(code - 0x40)
    else if (escape >= '1' && escape <= '4') items.push({ fnc: Number(escape) as Fnc })
    else if (STAR_STARTS[escape] && i === 1) start = STAR_STARTS[escape]
    else return `%${escape} is not a code 128 escape`
  }
  return { items, start }
}

/** Digits from this many on go in code set C, as Star's printers choose. */
const MIN_CODE_SET_C_DIGITS = 4

const isDigit = (item: Item | undefined) => typeof item === 'number' && item >= 0x30 && item <= 0x39

/**
 * StarPRNT: code sets picked here as the printer picks them: C for runs of digits, A for control characters, B
 * otherwise.
 */
export function code128StarPrnt(data: Uint8Array): Code128Content {
  const parsed = starItems(data)
  if (typeof parsed === 'string') return parsed
  const { items } = parsed
  if (!items.some((item) => typeof item === 'number')) return 'code 128 data has no characters'
  const values: number[] = []
  let codeSet: CodeSet | undefined
  const select = (next: CodeSet) => {
    if (codeSet === next) return
    values.push(codeSet === undefined ? START[next] : SWITCH_TO[next])
    codeSet = next
  }
  if (parsed.start) select(parsed.start)
  const digitRun = (from: number) => {
    let end = from
    while (isDigit(items[end])) end++
    return end - from
  }
  for (let i = 0; i < items.length; ) {
    const run = digitRun(i)
    if (run >= MIN_CODE_SET_C_DIGITS || (codeSet === 'C' && run >= 2)) {
      // An odd run: its first digit goes in the code set before it (B at the start).
      if (run % 2 === 1) {
        const set: 'A' | 'B' = codeSet === 'A' ? 'A' : 'B'
        select(set)
        values.push(valueIn(set, items[i++] as number)!)
      }
      select('C')
      for (let end = i + (run & ~1); i < end; i += 2)
        values.push(((items[i] as number) - 0x30) * 10 + (items[i + 1] as number) - 0x30)
      continue
    }
    const item = items[i++]!
    if (typeof item === 'number') {
      const set: 'A' | 'B' = item < 0x20 ? 'A' : item >= 0x60 ? 'B' : codeSet === 'A' ? 'A' : 'B'
      select(set)
      values.push(valueIn(set, item)!)
    } else if (item.fnc === 1) {
      select(codeSet ?? 'B')
      values.push(CODE128.fnc1)
    } else {
      const set: 'A' | 'B' = codeSet === 'A' ? 'A' : 'B'
      select(set)
      values.push(item.fnc === 2 ? CODE128.fnc2 : item.fnc === 3 ? CODE128.fnc3 : fnc4In(set))
    }
  }
  const text = String.fromCharCode(...items.filter((item): item is number => typeof item === 'number'))
  return { text, values }
}
