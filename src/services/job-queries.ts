// What the edges read of jobs: one job with what it is linked to (its timeline, document, printer,
// reprints, the fan-out it belongs to), a project's newest and its pages, the dashboard's search,
// and the pages of jobs posted to every printer of a destination (fan-out parents). Reads only:
// jobs change through JobService (jobs.ts).
import type { JobEvent, JobFilter, JobPage, JobQuery, ParentQuery } from '../domain/job-queries.ts'
import type { PrinterRecord } from '../domain/records.ts'
import type { PrintDocument } from '../protocol/document.ts'
import type { Job, JobState } from '../protocol/job.ts'
import type { Db, UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'

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
  constructor(private readonly units: UnitRunner) {}

  /** The printer's last completed job with its document, while it is kept. */
  lastReceipt(printerId: string): Promise<{ job: Job; document: PrintDocument } | undefined> {
    return this.units.read(function* (db): Unit<{ job: Job; document: PrintDocument } | undefined> {
      const job = yield* db.jobs.lastCompleted(printerId)
      const document = job && (yield* db.jobs.document(job.id))
      return job && document ? { job, document } : undefined
    })
  }

  get(id: string): Promise<Job | undefined> {
    return this.units.read((db) => db.jobs.get(id))
  }

  /** The job (or fan-out parent) a project made with this idempotency key. */
  byIdempotencyKey(projectId: string, idempotencyKey: string): Promise<Job | undefined> {
    return this.units.read((db) => db.jobs.byIdempotencyKey(projectId, idempotencyKey))
  }

  /** A project's newest jobs, newest first, of one state when given: the specification's list. */
  newest(projectId: string, state?: JobState): Promise<Job[]> {
    return this.units.read((db) => db.jobs.newest(projectId, state))
  }

  /** A page of a project's jobs (or fan-out parents), newest first. */
  page(query: JobQuery, limit: number): Promise<JobPage> {
    return this.units.read((db) => db.jobs.page(query, limit))
  }

  /** The dashboard's search: jobs of any project, newest first, narrowed by each filter given. */
  find(filter: JobFilter, limit: number): Promise<Job[]> {
    return this.units.read((db) => db.jobs.find(filter, limit))
  }

  /** A page of fan-out parents, newest first. */
  fanOutPage(query: ParentQuery, limit: number): Promise<JobPage> {
    return this.units.read((db) => db.fanOuts.page(query, limit))
  }

  /** Where a fan-out parent is in the pages (the next page after it starts there). */
  fanOutPosition(id: string): Promise<number | undefined> {
    return this.units.read((db) => db.fanOuts.position(id))
  }

  /** The job's document, while it is kept. */
  document(id: string): Promise<PrintDocument | undefined> {
    return this.units.read((db) => db.jobs.document(id))
  }

  /** The record of a job's printer (a removed one too). */
  printerOf(job: Job): Promise<PrinterRecord | undefined> {
    return this.units.read((db) => db.printers.get(job.printerId))
  }

  /** A job with what the dashboard shows of it, or a fan-out parent with its printers' jobs; undefined when none. */
  detail(id: string): Promise<JobDetail | FanOutDetail | undefined> {
    return this.units.read((db) => jobDetail(db, id))
  }
}

/** A job's printer as the dashboard names it. */
function* jobPrinter(db: Db, id: string): Unit<JobPrinter | null> {
  const printer = yield* db.printers.get(id)
  return printer ? { id: printer.id, remoteId: printer.remoteId, name: printer.name } : null
}

/** A job with what the dashboard shows of it, or a fan-out parent with its printers' jobs. */
function* jobDetail(db: Db, id: string): Unit<JobDetail | FanOutDetail | undefined> {
  const job = yield* db.jobs.get(id)
  const parent = job ? undefined : yield* db.fanOuts.get(id)
  if (parent) {
    const children: FanOutDetail['children'] = []
    for (const child of yield* db.fanOuts.children(parent.id))
      children.push({ job: child, printer: yield* jobPrinter(db, child.printerId) })
    return { job: parent, children }
  }
  if (!job) return undefined
  const fanOutId = yield* db.fanOuts.parentOf(job.id)
  const fanOut = fanOutId === null ? undefined : yield* db.fanOuts.get(fanOutId)
  return {
    job,
    timeline: yield* db.jobs.timeline(job.id),
    printer: yield* jobPrinter(db, job.printerId),
    document: (yield* db.jobs.document(job.id)) ?? null,
    // The link between a reprint and its original, both ways.
    reprintOf: (yield* db.jobs.reprintOf(job.id)) ?? null,
    reprints: yield* db.jobs.reprintsOf(job.id),
    // A child of a job posted to every printer of a destination: that job, and its other printers' jobs.
    fanOut: fanOut
      ? {
          id: fanOut.id,
          destination: fanOut.printerId,
          state: fanOut.state,
          jobs: (yield* db.fanOuts.children(fanOut.id)).map((child) => child.id),
        }
      : null,
  }
}
