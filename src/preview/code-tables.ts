// Which code page a select-code-page command's number means, in each command language's own
// numbering (see README.md for the sources), and the character a byte prints as in a page.
import { CODE_PAGES, type CodePageName } from './code-pages.ts'

export type { CodePageName } from './code-pages.ts'

/** Epson's `ESC t n` numbers. */
export const EPSON_CODE_TABLES: Readonly<Record<number, CodePageName>> = {
  0: 'cp437',
  2: 'cp850',
  13: 'cp857',
  14: 'cp737',
  16: 'cp1252',
  17: 'cp866',
  18: 'cp852',
  19: 'cp858',
}

/** Star's `ESC GS t n` numbers; 0 is Star's "normal" page, read as PC437. */
export const STAR_CODE_PAGES: Readonly<Record<number, CodePageName>> = {
  0: 'cp437',
  1: 'cp437',
  4: 'cp858',
  5: 'cp852',
  10: 'cp866',
  12: 'cp857',
  15: 'cp737',
  32: 'cp1252',
}

/** What initialisation selects in both languages. */
export const DEFAULT_TABLE = 0

export const UNMAPPED = '\uFFFD'

/** The character a text byte (0x20 or more) prints as; U+FFFD for a byte the page has no character for. */
export function characterOf(byte: number, page: CodePageName | undefined): string {
  if (byte < 0x80) return String.fromCharCode(byte)
  return page === undefined ? UNMAPPED : CODE_PAGES[page][byte - 0x80]!
}
