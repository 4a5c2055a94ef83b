// One log line per job state change, said where the state is written (the store is its only
// writer), and only once the change is on disk: a change the group commit rolled back (a full
// disk) is never logged as if it had happened. The line names the job, its project, its printer
// and attempt, the states from and to, and the failure code when there is one; never the document
// or the metadata (an application's own data).
import type { JobState } from '../protocol/job.ts'
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

export class JobLog {
  constructor(
    private readonly commits: GroupCommit,
    private readonly log: Logger | undefined,
  ) {}

  /** Whether lines are written at all: when not, callers skip reading the state a job was in. */
  get enabled(): boolean {
    return this.log?.enabled('info') === true
  }

  /** The job went from `from` (`new`: it was just created) to the state it is in now. */
  changed(from: JobState | 'new', job: LoggedJob): void {
    const log = this.log
    if (!log) return
    const to = job.state
    const code = from !== 'new' && WITH_CODE.has(to) ? (job.last_error_code ?? undefined) : undefined
    const fields = { job: job.id, project: job.project_id, printer: job.printer_id, attempt: job.attempt_count, code }
    this.commits.afterCommit(() => (WARNING.has(to) ? log.warn : log.info)(`${from} -> ${to}`, fields))
  }

  /** Something happened to the job that left its state as it was (an operator asked to cancel it). */
  noted(job: LoggedJob, what: string): void {
    const log = this.log
    if (!log) return
    const fields = { job: job.id, project: job.project_id, printer: job.printer_id, attempt: job.attempt_count }
    this.commits.afterCommit(() => log.info(`${job.state}: ${what}`, fields))
  }
}
