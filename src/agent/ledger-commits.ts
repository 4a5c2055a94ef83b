// What both ledgers (ledger.ts, builtin-ledger.ts) do alike: their changes go into a group commit,
// which the agent waits on before a byte goes to a printer, and before the hub is told unless the
// ledger `tellsHubAtOnce`; and their jobs' hand-over marks (marks-run.ts).
import type { GroupCommit } from '../sqlite/group-commit.ts'
import type { LedgerJob } from './ledger-rows.ts'
import type { MarksRun } from './marks-run.ts'

export class LedgerCommits {
  constructor(
    protected readonly commits: GroupCommit,
    /** The hand-over marks: the last run's, read at recovery, and this run's (none for a database in memory). */
    protected readonly marks: MarksRun,
  ) {}

  /** Settles once every change made so far is on disk. */
  durable(): Promise<void> {
    return this.commits.durable()
  }

  /**
   * Commits and flushes every change made so far here and now, on this thread: for the intent to
   * print while no other printer is at work, so that the bytes follow its flush within the same
   * turn. Throws if the commit failed.
   */
  flushNow(): void {
    this.commits.flushNow()
  }

  /**
   * Settles once every change made so far is on disk, flushed at once on the thread pool (beside
   * any flush running): for the intent to print while other printers are at work, which go on
   * meanwhile.
   */
  claimDurable(): Promise<void> {
    return this.commits.urgentlyDurable()
  }

  /** Like `claimDurable()`, committed now: what the agent writes meanwhile goes into the next commit. */
  claimFlushing(): Promise<void> {
    return this.commits.commitUrgently()
  }

  /** Marks the job as handed to its printer, just before its first byte (marks-run.ts). */
  handingOver(job: LedgerJob): void {
    this.marks.handingOver(job.printerId, job.seq)
  }

  /** Marks the job as printed, the moment the agent knows, before its result is recorded (marks-run.ts). */
  printed(job: LedgerJob): void {
    this.marks.printed(job.printerId, job.seq)
  }
}
