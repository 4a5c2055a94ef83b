// What the preview could not read as a printer would, kept to a bounded list so a stream of
// garbage cannot grow it without limit.

/** Warnings kept; the rest are counted in one last entry. */
export const MAX_WARNINGS = 100

export class Warnings {
  private readonly list: string[] = []
  private omitted = 0

  /** A warning about the command or byte at `offset` in the input. */
  add(offset: number, message: string): void {
    if (this.list.length < MAX_WARNINGS) this.list.push(`byte ${offset}: ${message}`)
    else this.omitted++
  }

  toArray(): string[] {
    return this.omitted > 0 ? [...this.list, `${this.omitted} more warnings left out`] : [...this.list]
  }
}
