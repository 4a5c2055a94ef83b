// The bytes of received jobs' payloads the built-in agent keeps in memory beyond each printer's
// first ones (builtin-jobs.ts), counted by the length of the frames they came in.

export class PayloadBudget {
  private readonly sizes = new Map<number, number>()
  private used = 0

  constructor(private readonly limit: number) {}

  /** Whether job `seq`'s payload of `size` fits (none of no size given does); if so it counts until given back. */
  take(seq: number, size: number | undefined): boolean {
    if (size === undefined || this.used + size > this.limit) return false
    this.sizes.set(seq, size)
    this.used += size
    return true
  }

  /** Job `seq`'s payload is let go (its job left the queue). */
  giveBack(seq: number): void {
    const size = this.sizes.get(seq)
    if (size === undefined) return
    this.sizes.delete(seq)
    this.used -= size
  }
}
