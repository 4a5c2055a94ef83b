// The job routes of the public API: create a job, list the newest jobs (the specification's);
// one job, an application's cancellation and reprint (beside them).
import { Elysia } from 'elysia'
import { cancelledJob, projectJob, reprintedJob, submittedJob } from '../../http/job-outcomes.ts'
import { readValidBody } from '../../http/json-body.ts'
import { onShare, type QuotaTicket } from '../../http/submission-quota.ts'
import { QueryReader } from '../../http/query.ts'
import { UnchangedAnswers } from '../../http/unchanged-answers.ts'
import type {
  CreateJobResponse,
  Job,
  JobDetailResponse,
  ListJobsResponse,
  PagedJobsResponse,
  ReprintJobResponse,
} from '../../protocol/job.ts'
import { createJobRule, reprintJobRule } from '../../protocol/job-request.ts'
import { MAX_FRAME_BYTES } from '../../protocol/limits.ts'
import { authenticate } from '../auth.ts'
import type { ApiContext } from '../context.ts'
import { encodeCursor, readJobListRequest } from '../job-list-query.ts'

const JOBS_PATH = '/v1/projects/:projectId/jobs'
/** A reprint's body is its idempotency key. */
const REPRINT_BODY_BYTES = 4_096

export function jobRoutes({ services, submissions }: ApiContext) {
  const { jobs } = services
  // The newest jobs, asked again and again by pollers: answered with the same bytes until a row changes.
  const newestPages = new UnchangedAnswers()
  return new Elysia()
    .post(
      JOBS_PATH,
      async ({ request, params, set }): Promise<CreateJobResponse> => {
        const key = await authenticate(services, request, params.projectId, 'jobs:write')
        const input = await readValidBody(request, createJobRule, MAX_FRAME_BYTES, `key:${key.id}`)
        // The body's size as sent (a chunked body has no length: its document's, then).
        const bytes = Number(request.headers.get('content-length')) || Buffer.byteLength(JSON.stringify(input))
        let share: QuotaTicket
        try {
          share = submissions.take(key.id, bytes)
        } catch (error) {
          // Over the key's quota, a retry of a job already made is still answered with it.
          const existing = await services.jobQueries.byIdempotencyKey(params.projectId, input.idempotencyKey)
          if (!existing) throw error
          set.status = 200
          return submittedJob({ kind: 'duplicate', job: existing })
        }
        const created = submittedJob(await onShare(share, () => jobs.submit({ ...input, projectId: params.projectId })))
        set.status = created.duplicate ? 200 : 202
        return created
      },
      { parse: 'none' },
    )
    .get(JOBS_PATH, async ({ request, params }): Promise<ListJobsResponse | PagedJobsResponse | Response> => {
      const key = await authenticate(services, request, params.projectId, 'jobs:read')
      const asked = readJobListRequest(request.url)
      if (asked.specified) {
        const { state } = asked.query
        return newestPages.json(
          services.changeStamp(),
          `${params.projectId} ${state ?? ''} ${key.keyPrefix}`,
          async (): Promise<ListJobsResponse> => ({
            jobs: await services.jobQueries.newest(params.projectId, state),
            keyPrefix: key.keyPrefix,
          }),
        )
      }
      const { printer, ...query } = asked.query
      // A printer by its name or record ID; a name no printer has now still finds a removed one's jobs by its record
      // ID. Fan-out parents name their destination as it was posted to.
      const printerId =
        printer === undefined || query.fanOut
          ? printer
          : ((await services.printers.resolve(params.projectId, printer))?.id ?? printer)
      const page = await services.jobQueries.page(
        { ...query, projectId: params.projectId, ...(printerId !== undefined ? { printerId } : {}) },
        asked.limit,
      )
      if (!asked.paged) return { jobs: page.jobs, keyPrefix: key.keyPrefix }
      return {
        jobs: page.jobs,
        keyPrefix: key.keyPrefix,
        nextCursor: page.next === null ? null : encodeCursor(asked.query, page.next),
      }
    })
    .get(`${JOBS_PATH}/:jobId`, async ({ request, params }): Promise<JobDetailResponse> => {
      await authenticate(services, request, params.projectId, 'jobs:read')
      new QueryReader(request.url, []).check()
      const found = await jobs.get(params.projectId, params.jobId)
      projectJob(found?.job, params.projectId)
      return found!
    })
    .post(
      `${JOBS_PATH}/:jobId/cancel`,
      async ({ request, params, set }): Promise<{ job: Job }> => {
        await authenticate(services, request, params.projectId, 'jobs:write')
        new QueryReader(request.url, []).check()
        const { status, body } = cancelledJob(await jobs.cancelForApplication(params.projectId, params.jobId))
        set.status = status
        return body
      },
      { parse: 'none' },
    )
    .post(
      `${JOBS_PATH}/:jobId/reprint`,
      async ({ request, params, set }): Promise<ReprintJobResponse> => {
        const key = await authenticate(services, request, params.projectId, 'jobs:write')
        new QueryReader(request.url, []).check()
        const { idempotencyKey } = await readValidBody(request, reprintJobRule, REPRINT_BODY_BYTES, `key:${key.id}`)
        // A reprint is a job against the key's rate, as a submission is (its document is already stored).
        const share = submissions.take(key.id, 0)
        const answer = reprintedJob(
          await onShare(share, () => jobs.reprint(params.jobId, { projectId: params.projectId, idempotencyKey })),
        )
        set.status = answer.duplicate ? 200 : 202
        return answer
      },
      { parse: 'none' },
    )
}
