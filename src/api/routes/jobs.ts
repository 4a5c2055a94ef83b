// The job routes of the public API: create a job, list the newest jobs.
import { Elysia } from 'elysia'
import { submittedJob } from '../../http/job-outcomes.ts'
import { readValidBody } from '../../http/json-body.ts'
import { QueryReader } from '../../http/query.ts'
import type { CreateJobResponse, ListJobsResponse } from '../../protocol/job.ts'
import { createJobRule } from '../../protocol/job-request.ts'
import { MAX_FRAME_BYTES } from '../../protocol/limits.ts'
import { authenticate } from '../auth.ts'
import type { ApiContext } from '../context.ts'

const JOBS_PATH = '/v1/projects/:projectId/jobs'

export function jobRoutes({ store, jobs }: ApiContext) {
  return new Elysia()
    .post(
      JOBS_PATH,
      async ({ request, params, set }): Promise<CreateJobResponse> => {
        authenticate(store, request, params.projectId, 'jobs:write')
        const input = await readValidBody(request, createJobRule, MAX_FRAME_BYTES)
        const created = submittedJob(await jobs.submit({ ...input, projectId: params.projectId }))
        set.status = created.duplicate ? 200 : 202
        return created
      },
      { parse: 'none' },
    )
    .get(JOBS_PATH, ({ request, params }): ListJobsResponse => {
      const key = authenticate(store, request, params.projectId, 'jobs:read')
      const query = new QueryReader(request.url, ['state'])
      const state = query.jobState('state', { once: true })
      query.check()
      return { jobs: store.jobs.newest(params.projectId, state), keyPrefix: key.keyPrefix }
    })
}
