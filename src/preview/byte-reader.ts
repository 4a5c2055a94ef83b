// A cursor over the input. A command whose bytes run past the end throws TruncatedCommand, which
// the decoder turns into a warning and the end of decoding; a length a header claims is never
// allocated before the bytes are there.
import type { Warnings } from './warnings.ts'

class TruncatedCommand extends Error {}

export class ByteReader {
  offset = 0

  constructor(private readonly input: Uint8Array) {}

  get atEnd(): boolean {
    return this.offset >= this.input.length
  }

  get remaining(): number {
    return this.input.length - this.offset
  }

  u8(): number {
    const value = this.input[this.offset]
    if (value === undefined) throw new TruncatedCommand()
    this.offset++
    return value
  }

  /** Two bytes, low byte first (the nL nH of most commands). */
  u16(): number {
    const low = this.u8()
    return low | (this.u8() << 8)
  }

  /** The next `count` bytes, as a view of the input. */
  take(count: number): Uint8Array {
    if (count > this.remaining) throw new TruncatedCommand()
    const bytes = this.input.subarray(this.offset, this.offset + count)
    this.offset += count
    return bytes
  }

  skip(count: number): void {
    this.take(count)
  }

  /** The bytes before the next `terminator`, which is consumed too. */
  takeUntil(terminator: number): Uint8Array {
    const end = this.input.indexOf(terminator, this.offset)
    if (end < 0) throw new TruncatedCommand()
    const bytes = this.input.subarray(this.offset, end)
    this.offset = end + 1
    return bytes
  }
}

/**
 * Calls `command` at the start of each command until the input ends. A command cut short by the
 * end of the input is not printed; a warning says where it started.
 */
export function eachCommand(reader: ByteReader, warnings: Warnings, command: (offset: number) => void): void {
  let offset = reader.offset
  try {
    while (!reader.atEnd) {
      offset = reader.offset
      command(offset)
    }
  } catch (error) {
    if (!(error instanceof TruncatedCommand)) throw error
    warnings.add(offset, 'the input ends inside this command, so it is not printed')
  }
}
