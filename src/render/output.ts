// The byte stream being built, and the print modes it leaves the printer in.
import { CodePageEncoder } from './code-page.ts'
import { type Alignment, LF, selectEmphasis, selectJustification } from './commands.ts'

const LINE_FEED = Uint8Array.of(LF)

export class Output {
  private readonly parts: Uint8Array[] = []
  private length = 0
  // What `ESC @` leaves: left aligned, bold off.
  private alignment: Alignment = 'left'
  private bold = false

  constructor(private readonly text: CodePageEncoder) {}

  push(...parts: Uint8Array[]): void {
    for (const part of parts) {
      this.parts.push(part)
      this.length += part.length
    }
  }

  /** Laid-out lines in the printer's code pages, each ended by LF. */
  lines(lines: readonly string[]): void {
    for (const line of lines) this.push(this.text.encode(line), LINE_FEED)
  }

  /** Sends `ESC a` and `ESC E` only for the modes that change. */
  modes(alignment: Alignment, bold: boolean): void {
    if (alignment !== this.alignment) this.push(selectJustification(alignment))
    if (bold !== this.bold) this.push(selectEmphasis(bold))
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
