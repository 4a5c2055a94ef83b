// Jobs: the list with filters, one job with its timeline, its receipt, cancelling, reprinting.
import { conflict, notFound } from '../../http/errors.ts'
import { reprintedJob } from '../../http/job-outcomes.ts'
import { QueryReader } from '../../http/query.ts'
import { JOB_LIST_LIMIT, MAX_METADATA_VALUE_LENGTH } from '../../protocol/limits.ts'
import type { JobFilter } from '../../store/jobs.ts'
import type { AdminContext } from '../context.ts'
import { receiptImage } from '../receipt-image.ts'
import { adminRouter, STAFF } from '../router.ts'

function jobFilter(url: string): JobFilter {
  const query = new QueryReader(url, ['project', 'printer', 'state', 'from', 'to', 'before', 'q'])
  const text = (name: string) => query.text(name, { emptyIsAbsent: true })
  const filter: JobFilter = {
    projectId: text('project'),
    printerId: text('printer'),
    state: query.jobState('state', { emptyIsAbsent: true }),
    createdFrom: query.time('from'),
    createdBefore: query.time('to'),
    beforeId: text('before'),
    metadataPrefix: text('q')?.trim() || undefined,
  }
  if ((filter.metadataPrefix?.length ?? 0) > MAX_METADATA_VALUE_LENGTH) query.problem('q', `must be at most ${MAX_METADATA_VALUE_LENGTH} characters`)
  query.check()
  return filter
}

export function jobRoutes(context: AdminContext) {
  const { store, jobs } = context
  const jobOr404 = (id: string) => {
    const job = store.jobs.get(id)
    if (!job) throw notFound('There is no such job.')
    return job
  }
  return adminRouter(store, STAFF)
    .get('/jobs', ({ request }) => {
      const found = store.jobs.find(jobFilter(request.url), JOB_LIST_LIMIT)
      return { jobs: found, more: found.length === JOB_LIST_LIMIT }
    })
    .get('/jobs/:id', ({ params }) => {
      const job = jobOr404(params.id)
      const printer = store.printers.get(job.printerId)
      const fanOutId = store.fanOuts.parentOf(job.id)
      const fanOut = fanOutId === null ? undefined : store.fanOuts.get(fanOutId)
      return {
        job,
        timeline: store.jobs.timeline(job.id),
        printer: printer ? { id: printer.id, remoteId: printer.remoteId, name: printer.name } : null,
        document: store.jobs.document(job.id) ?? null,
        // The link between a reprint and its original, both ways.
        reprintOf: store.jobs.reprintOf(job.id) ?? null,
        reprints: store.jobs.reprintsOf(job.id),
        // A child of a job posted to every printer of a destination: that job, and its other printers' jobs.
        fanOut: fanOut ? { id: fanOut.id, destination: fanOut.printerId, state: fanOut.state, jobs: store.fanOuts.children(fanOut.id).map((child) => child.id) } : null,
      }
    })
    .get('/jobs/:id/preview.png', async ({ params }) => {
      const job = jobOr404(params.id)
      const printer = store.printers.get(job.printerId)
      const document = store.jobs.document(job.id)
      if (!printer || !document) throw notFound("This job's printer or document is no longer kept.")
      return new Response(await receiptImage(context, job.id, document, printer), { headers: { 'content-type': 'image/png' } })
    })
    .post('/jobs/:id/cancel', ({ params }) => {
      const outcome = jobs.cancel(params.id)
      if (outcome.kind === 'unknown') throw notFound('There is no such job.')
      if (outcome.kind === 'too_late') throw conflict(`The job is ${outcome.job.state}: it already went to the printer.`)
      if (outcome.kind === 'finished') throw conflict(`The job is already ${outcome.job.state}.`)
      return { job: outcome.job, cancellation: outcome.kind }
    })
    .post('/jobs/:id/reprint', async ({ params, set }) => {
      const created = reprintedJob(await jobs.reprint(params.id))
      set.status = 202
      return created
    })
}
