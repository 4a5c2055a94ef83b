// Word wrapping and two-column rows. Widths count characters (code points): in Font A every
// character of the code page is one cell of the line.

/** Spaces and whitespace controls separate words (a run counts once); no-break space does not. */
const WORD_SEPARATORS = /[ \t\r\f\v]+/

const widthOf = (text: string) => Array.from(text).length

/**
 * Wraps text into lines of at most `width` characters: one paragraph per LF (an empty one stays an
 * empty line), words packed greedily with single spaces, a word longer than a line broken.
 */
export function wrapText(text: string, width: number): string[] {
  // NFC first, so a decomposed "é" (e + U+0301) is the one character the code page has.
  return text.normalize('NFC').split('\n').flatMap((paragraph) => wrapParagraph(paragraph, width))
}

function wrapParagraph(paragraph: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  let used = 0
  for (const word of paragraph.split(WORD_SEPARATORS)) {
    if (word === '') continue
    const characters = Array.from(word)
    if (used > 0 && used + 1 + characters.length <= width) {
      line += ` ${word}`
      used += 1 + characters.length
      continue
    }
    if (used > 0) lines.push(line)
    let start = 0
    for (; characters.length - start > width; start += width) lines.push(characters.slice(start, start + width).join(''))
    line = characters.slice(start).join('')
    used = characters.length - start
  }
  if (used > 0 || lines.length === 0) lines.push(line)
  return lines
}

/** The text laid out, when that takes exactly one line. */
function asOneLine(text: string, width: number): string | undefined {
  const lines = wrapText(text, width)
  return lines.length === 1 ? lines[0] : undefined
}

/** Left and right texts on one line, the right flush with the edge; no trailing spaces. */
function joinSides(left: string, right: string, columns: number): string {
  return right === '' ? left : left + ' '.repeat(columns - widthOf(left) - widthOf(right)) + right
}

/**
 * Lays out a row (an item and its price). One line when both sides fit with a space between;
 * otherwise each side wraps in its own column, left 3/5 of the line, right the rest after a
 * one-space gutter, zipped line by line, so no text is ever cut off.
 */
export function layoutRow(left: string, right: string, columns: number): string[] {
  const leftLine = asOneLine(left, columns)
  const rightLine = asOneLine(right, columns)
  if (leftLine !== undefined && rightLine !== undefined && widthOf(leftLine) + 1 + widthOf(rightLine) <= columns) {
    return [joinSides(leftLine, rightLine, columns)]
  }
  const leftColumn = Math.floor((columns * 3) / 5)
  const lefts = wrapText(left, leftColumn)
  const rights = wrapText(right, columns - leftColumn - 1)
  return Array.from({ length: Math.max(lefts.length, rights.length) }, (_, i) => joinSides(lefts[i] ?? '', rights[i] ?? '', columns))
}
