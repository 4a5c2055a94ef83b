// How many jobs a printer's agent may hold at once (DELIVERED or PRINTING): past that, the printer's
// next jobs wait PENDING in the hub, where they are rows on disk, until its agent has printed some.
// A printer that stops printing (stalled, out of paper while it still takes bytes) can otherwise be
// handed every job its project may keep open (up to a million), and an agent keeps the jobs it
// holds: the built-in one in memory (about 0.6 KB a job), a remote one in its own ledger.
//
// The count is read from the hub's index of held jobs only when the room it gave is used up (a
// bounded read: it stops at the window), not at every dispatch: each job sent takes one place of
// that room, and jobs leaving the agent give none back until the next read, so the count errs only
// towards holding fewer. A printer found full is read again once enough of its held jobs have left
// (told by their reports) or at the dispatcher's next sweep, whichever comes first.
import { JOB_STATE_SETS } from '../domain/job-transitions.ts'
import type { Job } from '../protocol/job.ts'

/** Jobs a printer's agent holds at most; beyond them its queue waits in the hub. */
export const HELD_PER_PRINTER = 1_000
/** A full printer's count is read again once this many of its held jobs have left. */
const READ_AGAIN_AFTER = HELD_PER_PRINTER / 10

/** A job its agent holds, or that is on its way to it: one that is neither has left the agent. */
export const isHeldOrOut = (job: Job): boolean => (JOB_STATE_SETS.attemptOut as readonly string[]).includes(job.state)

export class HeldWindow {
  /** Jobs each printer may still be sent before its count is read again. */
  private readonly room = new Map<string, number>()
  /** Printers found full, with how many of their held jobs have left since. */
  private readonly full = new Map<string, number>()

  constructor(
    /** How many jobs the printer's agent holds, counted up to `atMost`. */
    private readonly heldCount: (printerId: string, atMost: number) => number,
  ) {}

  /** Takes a place for one more job to the printer; false when its agent holds as many as it may. */
  take(printerId: string): boolean {
    if (this.full.has(printerId)) return false
    let room = this.room.get(printerId) ?? 0
    if (room <= 0) room = HELD_PER_PRINTER - this.heldCount(printerId, HELD_PER_PRINTER)
    if (room <= 0) {
      this.room.delete(printerId)
      this.full.set(printerId, 0)
      return false
    }
    this.room.set(printerId, room - 1)
    return true
  }

  /**
   * A job the printer's agent held has left it (printed, failed, cancelled); true when the printer may take jobs again.
   */
  left(printerId: string): boolean {
    const since = this.full.get(printerId)
    if (since === undefined) return false
    if (since + 1 < READ_AGAIN_AFTER) {
      this.full.set(printerId, since + 1)
      return false
    }
    this.full.delete(printerId)
    return true
  }

  /**
   * The printers found full, to be read again: at each sweep, for held jobs that ended without the dispatcher hearing
   * (another process's change).
   */
  readAgain(): string[] {
    const printers = [...this.full.keys()]
    this.full.clear()
    return printers
  }
}
