// Word wrapping and two-column rows. Widths count cells of the printer's font: a character of a
// code page takes one, a character drawn as a picture takes one or two (CJK and emoji are wide).

/** Cells a character takes on the line. */
export type CellWidth = (character: string) => number

/** Text that prints in the printer's own font: one cell per character. */
const oneCell: CellWidth = () => 1

/** Spaces and whitespace controls separate words (a run counts once); no-break space does not. */
const WORD_SEPARATORS = /[ \t\r\f\v]+/

/**
 * Invisible characters that only steer a rendering engine (zero-width joiners, variation
 * selectors, soft hyphens); a printer has nothing to draw for them.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu

const widthOf = (text: string, cells: CellWidth) =>
  Array.from(text).reduce((sum, character) => sum + cells(character), 0)

/**
 * Wraps text into lines of at most `width` cells: one paragraph per LF (an empty one stays an
 * empty line), words packed greedily with single spaces, a word longer than a line broken.
 */
export function wrapText(text: string, width: number, cells: CellWidth = oneCell): string[] {
  // NFC first, so a decomposed "é" (e + U+0301) is the one character the code page has.
  return text
    .normalize('NFC')
    .replace(INVISIBLE, '')
    .split('\n')
    .flatMap((paragraph) => wrapParagraph(paragraph, width, cells))
}

function wrapParagraph(paragraph: string, width: number, cells: CellWidth): string[] {
  const lines: string[] = []
  let line = ''
  let used = 0
  for (const word of paragraph.split(WORD_SEPARATORS)) {
    if (word === '') continue
    const wordWidth = widthOf(word, cells)
    if (used > 0 && used + 1 + wordWidth <= width) {
      line += ` ${word}`
      used += 1 + wordWidth
      continue
    }
    if (used > 0) lines.push(line)
    line = ''
    used = 0
    for (const character of word) {
      const characterWidth = cells(character)
      if (used > 0 && used + characterWidth > width) {
        lines.push(line)
        line = ''
        used = 0
      }
      line += character
      used += characterWidth
    }
  }
  if (used > 0 || lines.length === 0) lines.push(line)
  return lines
}

/** The text laid out, when that takes exactly one line. */
function asOneLine(text: string, width: number, cells: CellWidth): string | undefined {
  const lines = wrapText(text, width, cells)
  return lines.length === 1 ? lines[0] : undefined
}

/** Left and right texts on one line, the right flush with the edge; no trailing spaces. */
function joinSides(left: string, right: string, columns: number, cells: CellWidth): string {
  return right === '' ? left : left + ' '.repeat(columns - widthOf(left, cells) - widthOf(right, cells)) + right
}

/**
 * Lays out a row (an item and its price). One line when both sides fit with a space between;
 * otherwise each side wraps in its own column, left 3/5 of the line, right the rest after a
 * one-space gutter, zipped line by line, so no text is ever cut off.
 */
export function layoutRow(left: string, right: string, columns: number, cells: CellWidth = oneCell): string[] {
  const leftLine = asOneLine(left, columns, cells)
  const rightLine = asOneLine(right, columns, cells)
  if (
    leftLine !== undefined &&
    rightLine !== undefined &&
    widthOf(leftLine, cells) + 1 + widthOf(rightLine, cells) <= columns
  ) {
    return [joinSides(leftLine, rightLine, columns, cells)]
  }
  const leftColumn = Math.floor((columns * 3) / 5)
  const lefts = wrapText(left, leftColumn, cells)
  const rights = wrapText(right, columns - leftColumn - 1, cells)
  return Array.from({ length: Math.max(lefts.length, rights.length) }, (_, i) =>
    joinSides(lefts[i] ?? '', rights[i] ?? '', columns, cells),
  )
}
