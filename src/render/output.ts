// The byte stream being built, and the print modes it leaves the printer in.
import type { Alignment, CommandSet } from './command-set.ts'
import type { CodePageEncoder } from './code-page.ts'
import type { DotImage } from './image.ts'
import { drawLine } from './raster-text.ts'
import { PLAIN, sameStyle, type TextStyle } from './text-style.ts'

const LINE_FEED = Uint8Array.of(0x0a)

export class Output {
  private readonly parts: Uint8Array[] = []
  private length = 0
  // What initialisation leaves: left aligned, plain text.
  private alignment: Alignment = 'left'
  private style: TextStyle = PLAIN
  /** The style of text the printer cannot print in it, drawn as pictures; undefined while text prints as text. */
  private drawnStyle: TextStyle | undefined

  constructor(
    private readonly commands: CommandSet,
    private readonly text: CodePageEncoder,
    private readonly dotsPerLine: number,
    /** Rows of one raster block at most. */
    private readonly bandRows: number,
  ) {}

  push(...parts: Uint8Array[]): void {
    for (const part of parts) {
      this.parts.push(part)
      this.length += part.length
    }
  }

  /**
   * Laid-out lines, each ended by a line feed: in the printer's code pages when it has every
   * character of the line, otherwise (or in a style the printer cannot print, see `modes`) drawn
   * as a picture of the whole line in the style.
   */
  lines(lines: readonly string[]): void {
    const drawn = this.drawnStyle
    for (const line of lines) {
      if (!drawn && Array.from(line).every((character) => this.text.has(character)))
        this.push(this.text.encode(line), LINE_FEED)
      else this.raster(drawLine(line, this.alignment, drawn ?? this.style, this.dotsPerLine))
    }
  }

  /** Dots as raster blocks of at most `bandRows` rows, so a small receive buffer never overflows. */
  raster(dots: DotImage): void {
    for (let top = 0; top < dots.height; top += this.bandRows) {
      const bottom = Math.min(top + this.bandRows, dots.height)
      this.push(
        this.commands.raster(
          dots.widthBytes,
          bottom - top,
          dots.rows.subarray(top * dots.widthBytes, bottom * dots.widthBytes),
        ),
      )
    }
  }

  /**
   * Sends the commands for the modes that change: alignment, and each part of the text style. A
   * style `drawn` as pictures leaves the printer's own text modes as they are.
   */
  modes(alignment: Alignment, style: TextStyle = PLAIN, drawn = false): void {
    if (alignment !== this.alignment) this.push(this.commands.align(alignment))
    this.alignment = alignment
    if (drawn) {
      this.drawnStyle = style
      return
    }
    this.drawnStyle = undefined
    const was = this.style
    if (sameStyle(was, style)) return
    if (style.bold !== was.bold) this.push(this.commands.bold(style.bold))
    if (style.width !== was.width || style.height !== was.height)
      this.push(this.commands.size(style.width, style.height))
    if (style.underline !== was.underline) this.push(this.commands.underline(style.underline))
    if (style.invert !== was.invert) this.push(this.commands.invert(style.invert))
    if (style.font !== was.font) this.push(this.commands.font(style.font))
    this.style = style
  }

  bytes(): Uint8Array {
    const bytes = new Uint8Array(this.length)
    let offset = 0
    for (const part of this.parts) {
      bytes.set(part, offset)
      offset += part.length
    }
    return bytes
  }
}
