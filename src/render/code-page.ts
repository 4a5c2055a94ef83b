// Text to printer bytes: ASCII as is, every other character in a code page the printer has,
// switching code pages within a line when the next character needs another one.
import type { CodePage } from './code-pages.ts'

/** A code page as one printer model has it: the table, and the number that selects it there. */
export interface PrinterCodePage {
  readonly page: CodePage
  readonly table: number
}

/** Byte of each character of a code page's upper half. */
const BYTES = new Map<CodePage, ReadonlyMap<string, number>>()
function bytesOf(page: CodePage): ReadonlyMap<string, number> {
  let bytes = BYTES.get(page)
  if (!bytes) {
    bytes = new Map(
      Array.from(page.high, (character, i) => [character, 0x80 + i] as const).filter(
        ([character]) => character !== '\u0000',
      ),
    )
    BYTES.set(page, bytes)
  }
  return bytes
}

/** Printable ASCII is the same byte in every code page; control characters are not printable. */
export function isPrintableAscii(character: string): boolean {
  const codePoint = character.codePointAt(0)!
  return codePoint >= 0x20 && codePoint < 0x7f
}

/** Encodes lines of text for one job, remembering which code page the printer is in. */
export class CodePageEncoder {
  /** The page the printer is in: the first one, which the caller selects at the start of the job. */
  private current: PrinterCodePage

  constructor(
    /** The printer's pages, in order of preference (at least one). */
    private readonly pages: readonly PrinterCodePage[],
    /** The command that selects a page by its number. */
    private readonly select: (table: number) => Uint8Array,
  ) {
    this.current = pages[0]!
  }

  /** The command that puts the printer in the first page, to send at the start of the job. */
  start(): Uint8Array {
    return this.select(this.current.table)
  }

  /** True when the character prints as text on this printer. */
  has(character: string): boolean {
    return isPrintableAscii(character) || this.pages.some(({ page }) => bytesOf(page).has(character))
  }

  /** One laid-out line whose characters all pass `has`. */
  encode(line: string): Uint8Array {
    const characters = Array.from(line)
    const bytes: number[] = []
    characters.forEach((character, index) => {
      if (isPrintableAscii(character)) return bytes.push(character.codePointAt(0)!)
      let byte = bytesOf(this.current.page).get(character)
      if (byte === undefined) {
        const next = this.pageFor(characters, index)
        if (!next) throw new RangeError(`${JSON.stringify(character)} is in none of the printer's code pages`)
        bytes.push(...this.select(next.table))
        this.current = next
        byte = bytesOf(next.page).get(character)!
      }
      bytes.push(byte)
    })
    return Uint8Array.from(bytes)
  }

  /**
   * The page for the character at `from`: of those that have it, the one that also has the most
   * of the characters after it (so Turkish stays in PC857 rather than starting in PC852, which
   * has Ş and ş but not ı); the first in the list when several cover as much.
   */
  private pageFor(characters: readonly string[], from: number): PrinterCodePage | undefined {
    let best: PrinterCodePage | undefined
    let bestRun = 0
    for (const candidate of this.pages) {
      const bytes = bytesOf(candidate.page)
      let run = 0
      for (let i = from; i < characters.length; i++) {
        if (isPrintableAscii(characters[i]!)) continue
        if (!bytes.has(characters[i]!)) break
        run++
      }
      if (run > bestRun) {
        best = candidate
        bestRun = run
      }
    }
    return best
  }
}
