// The job routes of a project: submit, list (and page through), read, wait for, cancel and reprint
// its jobs.
import {
  type CreateJobResponse,
  createJobResponseRule,
  isJobState,
  type Job,
  jobDetailResponseRule,
  JOB_STATES,
  jobRule,
  type JobState,
  type ListJobsResponse,
  listJobsResponseRule,
  pagedJobsResponseRule,
  type ReprintJobResponse,
  reprintJobResponseRule,
} from '../protocol/job.ts'
import { type CreateJobInput, createJobRule, reprintJobRule } from '../protocol/job-request.ts'
import { JOB_LIST_LIMIT, MAX_FRAME_BYTES } from '../protocol/limits.ts'
import { fitsInOneFrame } from '../protocol/print-job-frame.ts'
import { object } from '../protocol/rules.ts'
import type { Connection } from './connection.ts'
import { TimeoutError, ValidationError } from './errors.ts'
import { checked, type RequestOptions } from './request.ts'
import { realScheduler } from './retry.ts'

const FINAL_STATES: readonly JobState[] = ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED']

const jobAnswerRule = object({ job: jobRule })

/** The job routes of the client's project. */
export class JobsApi {
  readonly #connection: Connection

  private constructor(connection: Connection) {
    this.#connection = connection
  }

  /** @internal Made by PrintHubClient only: applications reach it as a client's property. */
  static over(connection: Connection): JobsApi {
    return new this(connection)
  }

  /**
   * Submits a job. Retries reuse the same idempotency key, so they can never make a second job:
   * the answer to a repeated key is the existing job with `duplicate: true`.
   */
  async create(input: CreateJobInput, options: RequestOptions = {}): Promise<CreateJobResponse> {
    const job = checked(createJobRule, input)
    if (!fitsInOneFrame(job.document, job.metadata)) {
      throw new ValidationError([
        { path: 'document', message: `does not fit in one ${MAX_FRAME_BYTES}-byte delivery frame` },
      ])
    }
    const path = this.#connection.jobsPath()
    return this.#connection.send({
      method: 'POST',
      path,
      body: job,
      authenticated: true,
      retryable: true,
      contract: createJobResponseRule,
      signal: options.signal,
    })
  }

  /**
   * The newest jobs of the project, newest first, matching `filter` (every field optional): the
   * newest 100, or with `limit` or `cursor` a page with `nextCursor` (null at the end).
   */
  async list(
    filter: JobListFilter = {},
    options: RequestOptions = {},
  ): Promise<ListJobsResponse & { nextCursor?: string | null }> {
    if (filter.state !== undefined && !isJobState(filter.state))
      throw new ValidationError([{ path: 'state', message: `must be one of ${JOB_STATES.join(', ')}` }])
    const paged = filter.limit !== undefined || filter.cursor !== undefined
    const path = this.#connection.jobsPath() + listQuery(filter)
    return this.#connection.send({
      method: 'GET',
      path,
      authenticated: true,
      retryable: true,
      contract: paged ? pagedJobsResponseRule : listJobsResponseRule,
      signal: options.signal,
    })
  }

  /** Every job matching `filter`, newest first, page after page (100 a page unless `limit`). */
  async *all(filter: Omit<JobListFilter, 'cursor'> = {}, options: RequestOptions = {}): AsyncGenerator<Job> {
    let page = await this.list({ ...filter, limit: filter.limit ?? JOB_LIST_LIMIT }, options)
    for (;;) {
      yield* page.jobs
      if (!page.nextCursor) return
      page = await this.list({ cursor: page.nextCursor, limit: filter.limit ?? JOB_LIST_LIMIT }, options)
    }
  }

  /**
   * Waits until the job is in one of `until` (default: any final state), or can no longer get
   * there (it ended otherwise): the job as it is then. Follows the event stream, and asks for the
   * job every `pollMs` (2 s) as well, which carries on alone while the stream cannot be had.
   * Rejects with the signal's reason, a TimeoutError after `timeoutMs`, or the job's ApiError.
   */
  async wait(
    jobId: string,
    options: { until?: readonly JobState[]; timeoutMs?: number; pollMs?: number; signal?: AbortSignal } = {},
  ): Promise<Job> {
    const until = options.until ?? FINAL_STATES
    const done = (job: Job) => until.includes(job.state) || FINAL_STATES.includes(job.state)
    const stop = new AbortController()
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => stop.abort(new TimeoutError(options.timeoutMs!, 'WAIT', jobId)), options.timeoutMs)
    const onAbort = () => stop.abort(options.signal!.reason)
    options.signal?.addEventListener('abort', onAbort, { once: true })
    try {
      // The stream first, then the job: a change after the job was read is in the stream.
      const events = this.#connection.events({ signal: stop.signal })
      // A stream that fails leaves the polling to answer: it never settles the wait with an error.
      const streamed = new Promise<Job>((resolve) => {
        void (async () => {
          for await (const event of events)
            if (event.type === 'job.state_changed' && event.job.id === jobId && done(event.job))
              return resolve(event.job)
        })().catch(() => {})
      })
      const polled = (async () => {
        for (;;) {
          const job = await this.get(jobId, { signal: stop.signal })
          if (done(job)) return job
          await realScheduler.sleep(options.pollMs ?? 2_000, stop.signal)
        }
      })()
      return await Promise.race([streamed, polled])
    } finally {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      stop.abort(new Error('done'))
    }
  }

  /** One job of the project; ApiError not_found when the project has none with that ID. */
  async get(jobId: string, options: RequestOptions = {}): Promise<Job> {
    return (await this.#detail(jobId, options)).job
  }

  /**
   * The jobs a job posted to a destination of mode "all" became: one per printer, in the
   * destination's order, each with its own state (the job's own state summarises them). Empty for
   * any other job.
   */
  async children(jobId: string, options: RequestOptions = {}): Promise<Job[]> {
    return (await this.#detail(jobId, options)).children ?? []
  }

  /** The job's detail, as the hub answers it. */
  #detail(jobId: string, options: RequestOptions) {
    return this.#connection.send({
      method: 'GET',
      path: `${this.#connection.jobsPath()}/${encodeURIComponent(jobId)}`,
      authenticated: true,
      retryable: true,
      contract: jobDetailResponseRule,
      signal: options.signal,
    })
  }

  /**
   * Cancels a job that has not reached its agent: the job, CANCELLED (or still DISPATCHING when its
   * agent has not answered yet: its state follows). ApiError job_not_cancellable once its agent
   * holds it. Retried like a read: cancelling twice is the same as once.
   */
  async cancel(jobId: string, options: RequestOptions = {}): Promise<Job> {
    const path = `${this.#connection.jobsPath()}/${encodeURIComponent(jobId)}/cancel`
    return (
      await this.#connection.send({
        method: 'POST',
        path,
        authenticated: true,
        retryable: true,
        contract: jobAnswerRule,
        signal: options.signal,
      })
    ).job
  }

  /**
   * Prints a job again: a new job of its stored document under a REPRINT banner with the original's
   * time. `idempotencyKey` is the reprint's own: a retry with it finds the reprint it made (so it
   * is retried safely). `ApiError` `document_pruned` once the original is no longer kept.
   */
  async reprint(
    jobId: string,
    input: { idempotencyKey: string },
    options: RequestOptions = {},
  ): Promise<ReprintJobResponse> {
    const body = checked(reprintJobRule, input)
    const path = `${this.#connection.jobsPath()}/${encodeURIComponent(jobId)}/reprint`
    return this.#connection.send({
      method: 'POST',
      path,
      body,
      authenticated: true,
      retryable: true,
      contract: reprintJobResponseRule,
      signal: options.signal,
    })
  }
}

/** What the job list may be asked for. */
export interface JobListFilter {
  /** The parents of jobs posted to a destination of mode "all" (fan-outs) instead of the jobs that print. */
  fanOut?: boolean
  state?: JobState
  /** The printer's record ID or name; of fan-out parents, the destination's name. */
  printerId?: string
  createdAfter?: Date | string
  createdBefore?: Date | string
  /** Metadata entries the jobs must all have (at most 4). */
  metadata?: Record<string, string>
  /** A page of this many (1-100); the answer has nextCursor. */
  limit?: number
  /** The next page: nextCursor of the page before. */
  cursor?: string
}

function listQuery(filter: JobListFilter): string {
  const params = new URLSearchParams()
  const time = (value: Date | string) => (value instanceof Date ? value.toISOString() : value)
  if (filter.cursor !== undefined) params.set('cursor', filter.cursor)
  else {
    if (filter.fanOut) params.set('fanOut', 'true')
    if (filter.state !== undefined) params.set('state', filter.state)
    if (filter.printerId !== undefined) params.set('printerId', filter.printerId)
    if (filter.createdAfter !== undefined) params.set('createdAfter', time(filter.createdAfter))
    if (filter.createdBefore !== undefined) params.set('createdBefore', time(filter.createdBefore))
    for (const [key, value] of Object.entries(filter.metadata ?? {})) params.set(`metadata.${key}`, value)
  }
  if (filter.limit !== undefined) params.set('limit', String(filter.limit))
  const text = params.toString()
  return text === '' ? '' : `?${text}`
}
