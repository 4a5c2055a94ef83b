// Group commit: job submissions that arrive together are written in one transaction, so one disk
// flush serves them all. Each caller's promise settles only after its transaction committed, so a
// 202 is never sent for a job that is not on disk.
import type { Database } from 'bun:sqlite'
import type { CreateJobOutcome, Jobs, NewJob } from './jobs.ts'

/** Bounds one transaction, so one slow batch cannot hold the writer for long. */
export const MAX_JOBS_PER_COMMIT = 256

interface Pending {
  job: NewJob
  resolve: (outcome: CreateJobOutcome) => void
  reject: (error: unknown) => void
}

export class JobCommitter {
  private queue: Pending[] = []
  private scheduled = false
  /** Transactions committed and the submissions they carried: how well commits are shared. */
  readonly stats = { commits: 0, submissions: 0 }

  constructor(
    private readonly db: Database,
    private readonly jobs: Jobs,
    private readonly openJobLimit: number,
  ) {}

  create(job: NewJob): Promise<CreateJobOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject })
      this.schedule()
    })
  }

  /** Commits everything queued now; used at shutdown. */
  flush(): void {
    while (this.queue.length > 0) this.commitBatch()
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    // setImmediate runs after the current I/O poll, so every request read in it joins the batch.
    setImmediate(() => {
      this.scheduled = false
      this.commitBatch()
      if (this.queue.length > 0) this.schedule()
    })
  }

  private commitBatch(): void {
    const batch = this.queue.splice(0, MAX_JOBS_PER_COMMIT)
    if (batch.length === 0) return
    let outcomes: CreateJobOutcome[]
    try {
      outcomes = this.db.transaction(() => batch.map(({ job }) => this.jobs.create(job, this.openJobLimit))).immediate()
    } catch (error) {
      for (const pending of batch) pending.reject(error)
      return
    }
    this.stats.commits++
    this.stats.submissions += batch.length
    batch.forEach((pending, i) => pending.resolve(outcomes[i]!))
  }
}
