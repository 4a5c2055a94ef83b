// The byte stream being built, and the print modes it leaves the printer in.
import type { Alignment, CommandSet } from './command-set.ts'
import type { CodePageEncoder } from './code-page.ts'
import type { DotImage } from './image.ts'
import { drawLine } from './raster-text.ts'

const LINE_FEED = Uint8Array.of(0x0a)

export class Output {
  private readonly parts: Uint8Array[] = []
  private length = 0
  // What initialisation leaves: left aligned, bold off.
  private alignment: Alignment = 'left'
  private bold = false

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
   * character of the line, otherwise drawn as a picture of the whole line.
   */
  lines(lines: readonly string[]): void {
    for (const line of lines) {
      if (Array.from(line).every((character) => this.text.has(character))) this.push(this.text.encode(line), LINE_FEED)
      else this.raster(drawLine(line, this.alignment, this.bold, this.dotsPerLine))
    }
  }

  /** Dots as raster blocks of at most `bandRows` rows, so a small receive buffer never overflows. */
  raster(dots: DotImage): void {
    for (let top = 0; top < dots.height; top += this.bandRows) {
      const bottom = Math.min(top + this.bandRows, dots.height)
      this.push(this.commands.raster(dots.widthBytes, bottom - top, dots.rows.subarray(top * dots.widthBytes, bottom * dots.widthBytes)))
    }
  }

  /** Sends the alignment and bold commands only for the modes that change. */
  modes(alignment: Alignment, bold: boolean): void {
    if (alignment !== this.alignment) this.push(this.commands.align(alignment))
    if (bold !== this.bold) this.push(this.commands.bold(bold))
    this.alignment = alignment
    this.bold = bold
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
