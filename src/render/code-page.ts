// Text to printer bytes: ASCII as is, every other character in a code page the printer has,
// switching code pages (ESC t) within a line when the next character needs another one.
import { type CodePage, PC737, PC852, PC857, PC858, PC866 } from './code-pages.ts'
import { selectCodeTable } from './commands.ts'
import { RenderError } from './errors.ts'

/**
 * The code pages tried, in this order, for a character the current one lacks: Western Europe
 * (with the euro sign) first, then Central Europe, Cyrillic, Greek and Turkish. Epson printers
 * and most compatible ones have all five.
 */
export const DEFAULT_CODE_PAGES: readonly CodePage[] = [PC858, PC852, PC866, PC737, PC857]

/** Byte of each character of a code page's upper half. */
const BYTES = new Map<CodePage, ReadonlyMap<string, number>>()
function bytesOf(page: CodePage): ReadonlyMap<string, number> {
  let bytes = BYTES.get(page)
  if (!bytes) {
    bytes = new Map(Array.from(page.high, (character, i) => [character, 0x80 + i] as const).filter(([character]) => character !== '\u0000'))
    BYTES.set(page, bytes)
  }
  return bytes
}

const hex = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`

/** Encodes lines of text for one job, remembering which code page the printer is in. */
export class CodePageEncoder {
  constructor(
    private readonly pages: readonly CodePage[],
    /** The page the printer is in now (selected by the caller at the start of the job). */
    private current: CodePage,
  ) {}

  /**
   * One laid-out line. Printable ASCII passes as is; control characters are refused like any other
   * unprintable character, because in the byte stream they would be printer commands.
   */
  encode(line: string): Uint8Array {
    const characters = Array.from(line)
    const bytes: number[] = []
    characters.forEach((character, index) => {
      if (isPrintableAscii(character)) return bytes.push(character.codePointAt(0)!)
      let byte = bytesOf(this.current).get(character)
      if (byte === undefined) {
        const page = this.pageFor(characters, index)
        if (!page) {
          // Never a silent `?`: a receipt with a wrong character is worse than a job that fails and says why.
          const names = this.pages.map((p) => p.name).join(', ')
          throw new RenderError('render.unsupported_character', `${hex(character.codePointAt(0)!)} is in none of the code pages ${names} and cannot be printed as text`, false)
        }
        bytes.push(...selectCodeTable(page.escT))
        this.current = page
        byte = bytesOf(page).get(character)!
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
  private pageFor(characters: readonly string[], from: number): CodePage | undefined {
    let best: CodePage | undefined
    let bestRun = 0
    for (const page of this.pages) {
      const bytes = bytesOf(page)
      let run = 0
      for (let i = from; i < characters.length; i++) {
        if (isPrintableAscii(characters[i]!)) continue
        if (!bytes.has(characters[i]!)) break
        run++
      }
      if (run > bestRun) {
        best = page
        bestRun = run
      }
    }
    return best
  }
}

/** Printable ASCII is the same byte in every code page; control characters are not printable. */
function isPrintableAscii(character: string): boolean {
  const codePoint = character.codePointAt(0)!
  return codePoint >= 0x20 && codePoint < 0x7f
}
