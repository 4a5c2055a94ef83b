// A ledger's hand-over marks across runs (hand-over-marks.ts), for both ledgers (ledger.ts,
// builtin-ledger.ts): which run's file the ledger trusts (named in its settings), what the last
// run handed over, and this run's file.
import { randomUUID } from 'node:crypto'
import { bootId } from '../platform/boot-id.ts'
import { HandOverMarks, type Marks, marksFileOf, readMarks } from './hand-over-marks.ts'

/** The setting naming the run whose hand-over marks the ledger trusts. */
const MARKS_RUN_SETTING = 'hand_over_marks_run'

/** A ledger's settings: read, and written at once (on disk when `set` returns). */
export interface MarkSettings {
  get(key: string): string | undefined
  set(values: Record<string, string>): void
}

export class MarksRun {
  private marks: HandOverMarks | undefined
  private readonly file: string | undefined
  private readonly boot = bootId()

  constructor(
    /** The ledger's database file; none for one in memory (no marks). */
    databaseFile: string | undefined,
    private readonly settings: MarkSettings,
  ) {
    this.file = databaseFile && marksFileOf(databaseFile)
  }

  /** The jobs the last run handed over and saw printed; undefined when its file cannot be trusted to hold every one. */
  lastRun(): Marks | undefined {
    return this.file ? readMarks(this.file, this.settings.get(MARKS_RUN_SETTING), this.boot) : undefined
  }

  /**
   * Starts this run: every change so far (recovery's among them) is flushed with a new run named
   * in the settings, so the last run's file is never trusted again; `claimed` (jobs still claimed)
   * count as handed over, and `printed` (known printed, their record still to come) as printed.
   * Without a file (none could be written), a crash leaves every claimed job uncertain, as without marks.
   */
  start(claimed: readonly number[], printed: readonly number[] = []): void {
    const run = randomUUID()
    this.settings.set({ [MARKS_RUN_SETTING]: run })
    this.close()
    try {
      if (this.file && this.boot)
        this.marks = HandOverMarks.begin(this.file, { run, boot: this.boot, handed: claimed, printed })
    } catch {
      // No marks this run: recovery will not trust the last run's, whose run is no longer named.
    }
  }

  /**
   * Marks the job as handed to its printer, just before its first byte; a mark not written ends the trust in this run's
   * marks.
   */
  handingOver(printerId: string, seq: number): void {
    this.write((marks) => marks.mark(printerId, seq))
  }

  /**
   * Marks the job handed over last to its printer as printed, the moment that is known, before the ledger records it;
   * whether the mark is in a file this ledger trusts.
   */
  printed(printerId: string, seq: number): boolean {
    return this.write((marks) => marks.printed(printerId, seq))
  }

  close(): void {
    this.marks?.close()
    this.marks = undefined
  }

  private write(mark: (marks: HandOverMarks) => boolean | void): boolean {
    if (!this.marks) return false
    try {
      return mark(this.marks) !== false
    } catch {
      this.close()
      this.settings.set({ [MARKS_RUN_SETTING]: '' })
      return false
    }
  }
}
