// A printed job's record (its ledger row and the reports to its hub) made while its printer's next
// job's intent is flushed, instead of before that job starts: the event loop would otherwise wait
// for the disk there with nothing to do (one printer in a burst: the flush is about a quarter of
// each job's time; docs/delivery.md). The job is marked printed already (hand-over-marks.ts), so a crash
// meanwhile still completes it. A record is held at most HOLD_MS, and is made at once when the next
// job ends without an intent (its printer refused it, or the queue ended).

/** The longest a printed job's record waits for its printer's next intent. */
export const HOLD_MS = 20

export class HeldRecords {
  private readonly held = new Map<string, { seq: number; record: () => void; timer: Timer }>()

  constructor(private readonly failed: (error: unknown) => void) {}

  /** Holds job `seq`'s `record` for its printer's next intent (a record held before is made first). */
  hold(printerId: string, seq: number, record: () => void): void {
    this.make(printerId)
    this.held.set(printerId, { seq, record, timer: setTimeout(() => this.make(printerId), HOLD_MS) })
  }

  /** The printer's held record, taken to be made during its next intent's flush (with its errors told). */
  take(printerId: string): (() => void) | undefined {
    return this.held.has(printerId) ? () => this.make(printerId) : undefined
  }

  /** Makes the printer's held record now, if there is one (and it is not job `except`'s). */
  make(printerId: string, except?: number): void {
    const held = this.held.get(printerId)
    if (!held || held.seq === except) return
    this.held.delete(printerId)
    clearTimeout(held.timer)
    try {
      held.record()
    } catch (error) {
      this.failed(error)
    }
  }

  /** Makes every held record now (the agent stops). */
  makeAll(): void {
    for (const printerId of [...this.held.keys()]) this.make(printerId)
  }
}
