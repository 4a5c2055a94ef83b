// The state a printer keeps while it reads a job (alignment, bold, code page, the line being
// filled) and the blocks it has printed. Both decoders drive one of these.
import { characterOf, type CodePageName, UNMAPPED } from './code-tables.ts'
import type { Alignment, Block, TextRun } from './receipt.ts'
import type { Warnings } from './warnings.ts'

/** Font A's cell width: a line holds dotsPerLine / 12 characters. */
export const FONT_A_DOTS = 12
/** Font B's cell width: 9 dots. */
export const FONT_B_DOTS = 9

export class Printer {
  readonly columns: number
  alignment: Alignment = 'left'
  bold = false
  /** Magnification across and down, 1 to 8. */
  size = { width: 1, height: 1 }
  /** Underline thickness in dots. */
  underline: 0 | 1 | 2 = 0
  invert = false
  font: 'a' | 'b' = 'a'
  /** Undefined while a table number this preview has no page for is selected. */
  codePage: CodePageName | undefined
  private readonly blocks: Block[] = []
  private runs: TextRun[] = []
  private lineLength = 0
  /** Dots across the waiting line's characters. */
  private lineDots = 0

  constructor(
    private readonly dotsPerLine: number,
    readonly warnings: Warnings,
    private readonly pageOfTable: (table: number) => CodePageName | undefined,
    /** The page initialisation selects. */
    private readonly defaultPage: CodePageName,
  ) {
    this.columns = Math.max(1, Math.floor(dotsPerLine / FONT_A_DOTS))
    this.codePage = defaultPage
  }

  /** Initialisation: modes back to their defaults, and the unprinted line discarded, as a printer does. */
  initialize(offset: number): void {
    if (this.lineLength > 0)
      this.warnings.add(offset, `initialisation discards ${this.lineLength} characters not yet printed`)
    this.runs = []
    this.lineLength = 0
    this.lineDots = 0
    this.alignment = 'left'
    this.bold = false
    this.size = { width: 1, height: 1 }
    this.underline = 0
    this.invert = false
    this.font = 'a'
    this.codePage = this.defaultPage
  }

  selectCodeTable(table: number, offset: number): void {
    this.codePage = this.pageOfTable(table)
    if (this.codePage === undefined)
      this.warnings.add(
        offset,
        `code table ${table} is not one this preview knows; its bytes from 0x80 up print as U+FFFD`,
      )
  }

  /** A text byte (0x20 or more). A full line wraps, as the printer wraps it. */
  character(byte: number, offset: number): void {
    const character = characterOf(byte, this.codePage)
    if (character === UNMAPPED && byte >= 0x80)
      this.warnings.add(offset, `byte 0x${hex(byte)} has no character in ${this.codePage ?? 'the selected code table'}`)
    const dots = (this.font === 'a' ? FONT_A_DOTS : FONT_B_DOTS) * this.size.width
    if (this.lineLength > 0 && this.lineDots + dots > this.dotsPerLine) {
      this.warnings.add(
        offset,
        `the line is longer than ${Math.floor(this.dotsPerLine / dots)} characters; the printer wraps it`,
      )
      this.printLine()
    }
    const style = this.runStyle()
    const last = this.runs.at(-1)
    if (last && sameRunStyle(last, style)) this.runs[this.runs.length - 1] = { ...last, text: last.text + character }
    else this.runs.push({ text: character, ...style })
    this.lineLength++
    this.lineDots += dots
  }

  /** The current style as a run states it: only what is not the default. */
  private runStyle(): Omit<TextRun, 'text'> {
    return {
      bold: this.bold,
      ...(this.size.width !== 1 || this.size.height !== 1 ? { size: { ...this.size } } : {}),
      ...(this.underline !== 0 ? { underline: this.underline } : {}),
      ...(this.invert ? { invert: true as const } : {}),
      ...(this.font === 'b' ? { font: 'b' as const } : {}),
    }
  }

  /** Something that prints nothing and does not end the line: the drawer, the buzzer. */
  note(block: Block): void {
    this.blocks.push(block)
  }

  /** LF: prints the line (a blank one when nothing is waiting). */
  printLine(): void {
    this.blocks.push({ kind: 'text', alignment: this.alignment, runs: this.runs })
    this.runs = []
    this.lineLength = 0
    this.lineDots = 0
  }

  /** Prints the waiting line, if any, and feeds so that `lines` lines pass in all. */
  printAndFeed(lines: number): void {
    let feed = lines
    if (this.lineLength > 0) {
      this.printLine()
      feed--
    }
    if (feed > 0) this.blocks.push({ kind: 'feed', lines: feed })
  }

  /**
   * Alignment, cuts, images and symbols take effect at the start of a line; one that comes in the
   * middle of a line prints the waiting text first (a printer may ignore the command instead).
   */
  finishLine(offset: number, command: string): void {
    if (this.lineLength === 0) return
    this.warnings.add(offset, `${command} in the middle of a line; the text before it is printed first`)
    this.printLine()
  }

  setAlignment(alignment: Alignment, offset: number, command: string): void {
    this.finishLine(offset, command)
    this.alignment = alignment
  }

  /** A printed block other than text: an image, a symbol, a cut. */
  print(block: Block, offset: number, command: string): void {
    this.finishLine(offset, command)
    this.blocks.push(block)
  }

  /** The blocks printed; text left in the line buffer is not printed, so it is not there either. */
  finish(offset: number): Block[] {
    if (this.lineLength > 0)
      this.warnings.add(
        offset,
        `${this.lineLength} characters at the end are not followed by a line feed, so they are not printed`,
      )
    return this.blocks
  }
}

function sameRunStyle(a: Omit<TextRun, 'text'>, b: Omit<TextRun, 'text'>): boolean {
  return (
    a.bold === b.bold &&
    a.size?.width === b.size?.width &&
    a.size?.height === b.size?.height &&
    a.underline === b.underline &&
    a.invert === b.invert &&
    a.font === b.font
  )
}

export const hex = (byte: number) => byte.toString(16).toUpperCase().padStart(2, '0')
