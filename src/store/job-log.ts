// One log line per job state change, said where the state is written (the store is its only writer), and only once the
// change is committed: a change the group commit rolled back (a full disk) is never logged as if it had happened.
// Listeners in the process (an application waiting for its cancellation to settle) hear of each change at the same
// moment. The line names the job, its project, its printer (its record ID and the project-local name applications use),
// the attempt, the states from and to, and the failure code when there is one; never the document or the metadata (an
// application's own data).
import type { Job, JobState } from '../protocol/job.ts'
import type { Logger } from '../platform/log.ts'
import type { GroupCommit } from '../sqlite/group-commit.ts'

/** What a job's line says of it (a job row has all of it). */
export interface LoggedJob {
  id: string
  project_id: string
  printer_id: string
  state: JobState
  attempt_count: number
  last_error_code: string | null
}

/** States whose line carries the failure that led to them (as the job's timeline keeps it). */
const WITH_CODE: ReadonlySet<JobState> = new Set(['PENDING', 'FAILED', 'EXPIRED'])
/** States an operator should see with `journalctl -p warning`. */
const WARNING: ReadonlySet<JobState> = new Set(['FAILED', 'EXPIRED'])

/** Told of a job's change once it is committed (its line is written at the same moment). */
export type JobChangeListener = (from: JobState | 'new', job: LoggedJob) => void

/**
 * Writes what else a change leaves behind, in its own transaction (the project's event): the job
 * as it is now when the caller has it, else only its ID.
 */
export type JobChangeRecorder = (from: JobState | 'new', jobId: string, now?: Job) => void

export class JobLog {
  private readonly listeners = new Set<JobChangeListener>()

  constructor(
    private readonly commits: GroupCommit,
    private readonly log: Logger | undefined,
    private readonly recorder?: JobChangeRecorder,
    /** A printer record's project-local name (kept by the printers' repository, so no read for most lines). */
    private readonly printerName: (printerId: string) => string | undefined = () => undefined,
  ) {}

  /** What a line says of the job: its printer named both ways, looked up only when the line is written. */
  private fields(job: LoggedJob, log: Logger, level: 'info' | 'warn') {
    return {
      job: job.id,
      project: job.project_id,
      printer: job.printer_id,
      name: log.enabled(level) ? this.printerName(job.printer_id) : undefined,
      attempt: job.attempt_count,
    }
  }

  /** Whether anyone hears of changes: when not, callers skip reading the state a job was in. */
  get enabled(): boolean {
    return this.recorder !== undefined || this.listeners.size > 0 || this.log?.enabled('info') === true
  }

  /** Hears of every job change from now on, until the returned function is called. */
  listen(listener: JobChangeListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * The job went from `from` (`new`: it was just created) to the state it is in now (`now`, when the caller has it).
   */
  changed(from: JobState | 'new', job: LoggedJob, now?: Job): void {
    this.recorder?.(from, job.id, now)
    const log = this.log
    if (!log && this.listeners.size === 0) return
    const to = job.state
    const code = from !== 'new' && WITH_CODE.has(to) ? (job.last_error_code ?? undefined) : undefined
    const level = WARNING.has(to) ? 'warn' : 'info'
    const fields = log && { ...this.fields(job, log, level), code }
    const told = { ...job }
    this.commits.afterCommit(() => {
      if (log) log[level](`${from} -> ${to}`, fields)
      for (const listener of this.listeners) {
        try {
          listener(from, told)
        } catch {
          // One listener's failure is its own: the others and the change itself stand.
        }
      }
    })
  }

  /** Something happened to the job that left its state as it was (an operator asked to cancel it). */
  noted(job: LoggedJob, what: string): void {
    const log = this.log
    if (!log) return
    const fields = this.fields(job, log, 'info')
    this.commits.afterCommit(() => log.info(`${job.state}: ${what}`, fields))
  }
}
