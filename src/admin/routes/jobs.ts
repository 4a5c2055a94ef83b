// Jobs: the list with filters, one job with its timeline, its receipt, cancelling, reprinting; the
// jobs posted to every printer of a destination (fan-out parents), listed and shown with theirs.
import { conflict, notFound } from '../../http/errors.ts'
import { reprintedJob } from '../../http/job-outcomes.ts'
import { QueryReader } from '../../http/query.ts'
import { JOB_LIST_LIMIT, MAX_METADATA_VALUE_LENGTH } from '../../protocol/limits.ts'
import type { ReprintJobResponse } from '../../protocol/job.ts'
import {
  type AdminCancellation,
  type AdminFanOutDetail,
  type AdminJobDetail,
  type AdminJobList,
  JOB_LIST_QUERY,
} from '../../protocol/admin/jobs.ts'
import type { JobFilter, ParentQuery } from '../../domain/job-queries.ts'
import type { AdminContext } from '../context.ts'
import { receiptImage } from '../receipt-image.ts'
import { adminRouter, STAFF } from '../router.ts'

function jobFilter(url: string): JobFilter & { fanOut: boolean } {
  const query = new QueryReader(url, Object.keys(JOB_LIST_QUERY))
  const text = (name: string) => query.text(name, { emptyIsAbsent: true })
  const fanOut = text('fanOut')
  if (fanOut !== undefined && fanOut !== 'true' && fanOut !== 'false') query.problem('fanOut', 'must be true or false')
  const filter: JobFilter & { fanOut: boolean } = {
    fanOut: fanOut === 'true',
    projectId: text('project'),
    printerId: text('printer'),
    state: query.jobState('state', { emptyIsAbsent: true }),
    createdFrom: query.time('from'),
    createdBefore: query.time('to'),
    beforeId: text('before'),
    metadataPrefix: text('q')?.trim() || undefined,
  }
  if ((filter.metadataPrefix?.length ?? 0) > MAX_METADATA_VALUE_LENGTH)
    query.problem('q', `must be at most ${MAX_METADATA_VALUE_LENGTH} characters`)
  query.check()
  return filter
}

/** The list's filters for fan-out parents: a printer is one of a parent's children's; `before` a parent's ID. */
function parentQuery(filter: JobFilter, position: number | undefined): ParentQuery {
  const before = filter.beforeId === undefined ? undefined : (position ?? 0)
  const query: ParentQuery = {
    projectId: filter.projectId,
    childPrinterId: filter.printerId,
    state: filter.state,
    // The list's "from" counts the time itself; a page's createdAfter does not.
    createdAfter: filter.createdFrom === undefined ? undefined : filter.createdFrom - 1,
    createdBefore: filter.createdBefore,
    metadataPrefix: filter.metadataPrefix,
    before,
  }
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined))
}

export function jobRoutes(context: AdminContext) {
  const { services } = context
  const jobOr404 = async (id: string) => {
    const job = await services.jobQueries.get(id)
    if (!job) throw notFound('There is no such job.')
    return job
  }
  return (
    adminRouter(services, STAFF)
      .get('/jobs', async ({ request }): Promise<AdminJobList> => {
        const { fanOut, ...filter } = jobFilter(request.url)
        if (fanOut) {
          const before =
            filter.beforeId === undefined ? undefined : await services.jobQueries.fanOutPosition(filter.beforeId)
          const page = await services.jobQueries.fanOutPage(parentQuery(filter, before), JOB_LIST_LIMIT)
          return { jobs: page.jobs, more: page.next !== null }
        }
        const found = await services.jobQueries.find(filter, JOB_LIST_LIMIT)
        return { jobs: found, more: found.length === JOB_LIST_LIMIT }
      })
      // A job with its timeline, document, printer and links; or one posted to every printer of a
      // destination, with each printer's job and its printer.
      .get('/jobs/:id', async ({ params }): Promise<AdminJobDetail | AdminFanOutDetail> => {
        const detail = await services.jobQueries.detail(params.id)
        if (!detail) throw notFound('There is no such job.')
        return detail
      })
      .get('/jobs/:id/preview.png', async ({ params }) => {
        const job = await jobOr404(params.id)
        const printer = await services.jobQueries.printerOf(job)
        const document = await services.jobQueries.document(job.id)
        if (!printer || !document) throw notFound("This job's printer or document is no longer kept.")
        return new Response(await receiptImage(context, job.id, document, printer), {
          headers: { 'content-type': 'image/png' },
        })
      })
      .post('/jobs/:id/cancel', async ({ params, actor }): Promise<AdminCancellation> => {
        const outcome = await services.jobs.cancel(actor, params.id)
        if (outcome.kind === 'unknown') throw notFound('There is no such job.')
        if (outcome.kind === 'too_late')
          throw conflict(`The job is ${outcome.job.state}: it already went to the printer.`)
        if (outcome.kind === 'finished') throw conflict(`The job is already ${outcome.job.state}.`)
        return { job: outcome.job, cancellation: outcome.kind }
      })
      .post('/jobs/:id/reprint', async ({ params, set, actor }): Promise<ReprintJobResponse> => {
        const created = reprintedJob(await services.jobs.reprint(params.id, { actor }))
        set.status = 202
        return created
      })
  )
}
