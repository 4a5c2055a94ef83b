// What the edges read of jobs: one job with what it is linked to (its timeline, document, printer,
// reprints, the fan-out it belongs to), a project's newest and its pages, the dashboard's search,
// and the pages of jobs posted to every printer of a destination (fan-out parents). Reads only:
// jobs change through JobService (jobs.ts).
import type { JobEvent, JobFilter, JobPage, JobQuery, ParentQuery } from '../domain/job-queries.ts'
import type { PrinterRecord } from '../domain/records.ts'
import type { PrintDocument } from '../protocol/document.ts'
import type { Job, JobState } from '../protocol/job.ts'
import type { Store } from '../store/store.ts'

/** A job's printer as the dashboard names it. */
export interface JobPrinter {
  id: string
  remoteId: string
  name: string | null
}

/** One job with everything the dashboard shows of it. */
export interface JobDetail {
  job: Job
  timeline: JobEvent[]
  printer: JobPrinter | null
  document: PrintDocument | null
  /** The job this one reprints, if any (null: none). */
  reprintOf: string | null
  /** The jobs that reprint this one. */
  reprints: string[]
  /** The fan-out it is one printer's job of: that parent, and its printers' jobs. */
  fanOut: { id: string; destination: string; state: JobState; jobs: string[] } | null
}

/** A job posted to every printer of a destination, with each printer's job and that printer. */
export interface FanOutDetail {
  job: Job
  children: { job: Job; printer: JobPrinter | null }[]
}

export class JobQueries {
  constructor(private readonly store: Store) {}

  /** The printer's last completed job with its document, while it is kept. */
  lastReceipt(printerId: string): { job: Job; document: PrintDocument } | undefined {
    const job = this.store.jobs.lastCompleted(printerId)
    const document = job && this.store.jobs.document(job.id)
    return job && document ? { job, document } : undefined
  }

  get(id: string): Job | undefined {
    return this.store.jobs.get(id)
  }

  /** The job (or fan-out parent) a project made with this idempotency key. */
  byIdempotencyKey(projectId: string, idempotencyKey: string): Job | undefined {
    return this.store.jobs.byIdempotencyKey(projectId, idempotencyKey)
  }

  /** A project's newest jobs, newest first, of one state when given: the specification's list. */
  newest(projectId: string, state?: JobState): Job[] {
    return this.store.jobs.newest(projectId, state)
  }

  /** A page of a project's jobs (or fan-out parents), newest first. */
  page(query: JobQuery, limit: number): JobPage {
    return this.store.jobs.page(query, limit)
  }

  /** The dashboard's search: jobs of any project, newest first, narrowed by each filter given. */
  find(filter: JobFilter, limit: number): Job[] {
    return this.store.jobs.find(filter, limit)
  }

  /** A page of fan-out parents, newest first. */
  fanOutPage(query: ParentQuery, limit: number): JobPage {
    return this.store.fanOuts.page(query, limit)
  }

  /** Where a fan-out parent is in the pages (the next page after it starts there). */
  fanOutPosition(id: string): number | undefined {
    return this.store.fanOuts.position(id)
  }

  /** The job's document, while it is kept. */
  document(id: string): PrintDocument | undefined {
    return this.store.jobs.document(id)
  }

  /** The record of a job's printer (a removed one too). */
  printerOf(job: Job): PrinterRecord | undefined {
    return this.store.printers.get(job.printerId)
  }

  /** A job with what the dashboard shows of it, or a fan-out parent with its printers' jobs; undefined when none. */
  detail(id: string): JobDetail | FanOutDetail | undefined {
    const job = this.store.jobs.get(id)
    const parent = job ? undefined : this.store.fanOuts.get(id)
    if (parent) {
      const children = this.store.fanOuts
        .children(parent.id)
        .map((child) => ({ job: child, printer: this.jobPrinter(child.printerId) }))
      return { job: parent, children }
    }
    if (!job) return undefined
    const fanOutId = this.store.fanOuts.parentOf(job.id)
    const fanOut = fanOutId === null ? undefined : this.store.fanOuts.get(fanOutId)
    return {
      job,
      timeline: this.store.jobs.timeline(job.id),
      printer: this.jobPrinter(job.printerId),
      document: this.store.jobs.document(job.id) ?? null,
      // The link between a reprint and its original, both ways.
      reprintOf: this.store.jobs.reprintOf(job.id) ?? null,
      reprints: this.store.jobs.reprintsOf(job.id),
      // A child of a job posted to every printer of a destination: that job, and its other printers' jobs.
      fanOut: fanOut
        ? {
            id: fanOut.id,
            destination: fanOut.printerId,
            state: fanOut.state,
            jobs: this.store.fanOuts.children(fanOut.id).map((child) => child.id),
          }
        : null,
    }
  }

  private jobPrinter(id: string): JobPrinter | null {
    const printer = this.store.printers.get(id)
    return printer ? { id: printer.id, remoteId: printer.remoteId, name: printer.name } : null
  }
}
