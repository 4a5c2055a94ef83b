// Jobs: the list with filters, one job with its timeline, its receipt, cancelling, reprinting.
import { createJob } from '../../services/jobs.ts'
import { ApiError } from '../../http/errors.ts'
import { EXPIRES_IN_MS, JOB_LIST_LIMIT, MAX_ATTEMPTS } from '../../protocol/limits.ts'
import { isJobState, JOB_STATES, type JobState } from '../../protocol/job.ts'
import { metadataRule } from '../../protocol/job-request.ts'
import { fitsInOneFrame } from '../../protocol/print-job-frame.ts'
import { validate } from '../../protocol/rules.ts'
import type { JobFilter } from '../../store/jobs.ts'
import type { AdminContext } from '../context.ts'
import { receiptPng } from '../../services/receipt-image.ts'
import { adminRouter } from '../router.ts'

/** The metadata field that marks a reprint, naming the job it reprints. */
const REPRINT_OF = 'reprintOf'

const FILTERS = ['project', 'printer', 'state', 'from', 'to', 'before'] as const

function jobFilter(url: string): JobFilter {
  const query = new URL(url).searchParams
  const details: { path: string; message: string }[] = []
  for (const name of new Set(query.keys())) if (!(FILTERS as readonly string[]).includes(name)) details.push({ path: `query.${name}`, message: 'is not an allowed query parameter' })
  const text = (name: (typeof FILTERS)[number]) => query.get(name) || undefined
  const time = (name: 'from' | 'to') => {
    const value = text(name)
    if (value === undefined) return undefined
    const ms = Date.parse(value)
    if (Number.isNaN(ms)) details.push({ path: `query.${name}`, message: 'must be a date and time, like 2026-11-21T18:00:00Z' })
    return ms
  }
  const state = text('state')
  if (state !== undefined && !isJobState(state)) details.push({ path: 'query.state', message: `must be one of ${JOB_STATES.join(', ')}` })
  const filter: JobFilter = { projectId: text('project'), printerId: text('printer'), state: state as JobState | undefined, createdFrom: time('from'), createdBefore: time('to'), beforeId: text('before') }
  if (details.length > 0) throw new ApiError(400, 'invalid_request', 'The request is invalid; see details.', details)
  return filter
}

export function jobRoutes(context: AdminContext) {
  const { store } = context
  const jobOr404 = (id: string) => {
    const job = store.jobs.get(id)
    if (!job) throw new ApiError(404, 'not_found', 'There is no such job.')
    return job
  }
  return adminRouter(store)
    .get('/jobs', ({ request }) => {
      const jobs = store.jobs.find(jobFilter(request.url), JOB_LIST_LIMIT)
      return { jobs, more: jobs.length === JOB_LIST_LIMIT }
    })
    .get('/jobs/:id', ({ params }) => {
      const job = jobOr404(params.id)
      const printer = store.printers.get(job.printerId)
      return { job, timeline: store.jobs.timeline(job.id), printer: printer ? { id: printer.id, remoteId: printer.remoteId, name: printer.name } : null, document: store.jobs.document(job.id) ?? null }
    })
    .get('/jobs/:id/preview.png', ({ params }) => {
      const job = jobOr404(params.id)
      const printer = store.printers.get(job.printerId)
      const document = store.jobs.document(job.id)
      if (!printer || !document) throw new ApiError(404, 'not_found', "This job's printer or document is no longer kept.")
      return new Response(new Uint8Array(receiptPng(document, printer)), { headers: { 'content-type': 'image/png' } })
    })
    .post('/jobs/:id/cancel', ({ params }) => {
      const outcome = store.jobStates.cancel(params.id)
      if (outcome.kind === 'unknown') throw new ApiError(404, 'not_found', 'There is no such job.')
      if (outcome.kind === 'too_late') throw new ApiError(409, 'invalid_request', `The job is ${outcome.job.state}: it already went to the printer.`)
      if (outcome.kind === 'finished') throw new ApiError(409, 'invalid_request', `The job is already ${outcome.job.state}.`)
      return { job: outcome.job, cancellation: outcome.kind }
    })
    .post('/jobs/:id/reprint', async ({ params, set }) => {
      const original = jobOr404(params.id)
      const document = store.jobs.document(original.id)
      if (!document) throw new ApiError(404, 'not_found', "This job's document is no longer kept.")
      if (!store.printers.get(original.printerId)) throw new ApiError(409, 'invalid_request', "This job's printer was removed.")
      const metadata = { ...original.metadata, [REPRINT_OF]: original.id }
      // The mark must fit the limits the original met without it.
      if (!validate(metadataRule, metadata).ok || !fitsInOneFrame(document, metadata)) {
        throw new ApiError(409, 'invalid_request', "This job's metadata has no room for the reprint mark; the application must send it again.")
      }
      const created = await createJob(context, {
        projectId: original.projectId,
        printerId: original.printerId,
        idempotencyKey: `reprint-${original.id}-${crypto.randomUUID()}`,
        document,
        metadata,
        expiresInMs: EXPIRES_IN_MS.default,
        maxAttempts: MAX_ATTEMPTS.default,
      })
      set.status = 202
      return created
    })
}
