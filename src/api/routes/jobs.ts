// The job routes of the public API: create a job, list the newest jobs.
import { Elysia } from 'elysia'
import { EXPIRES_IN_MS, MAX_ATTEMPTS, MAX_FRAME_BYTES } from '../../protocol/limits.ts'
import type { CreateJobResponse, ListJobsResponse } from '../../protocol/job.ts'
import { isJobState, JOB_STATES, type JobState } from '../../protocol/job.ts'
import { createJobRule } from '../../protocol/job-request.ts'
import { fitsInOneFrame } from '../../protocol/print-job-frame.ts'
import { validate } from '../../protocol/rules.ts'
import { authenticate } from '../auth.ts'
import { createJob } from '../../services/jobs.ts'
import type { ApiContext } from '../context.ts'
import { ApiError } from '../../http/errors.ts'
import { readJsonBody } from '../../http/json-body.ts'

const JOBS_PATH = '/v1/projects/:projectId/jobs'

function invalid(details: { path: string; message: string }[]): ApiError {
  return new ApiError(400, 'invalid_request', 'The request is invalid; see details.', details)
}

export function jobRoutes(context: ApiContext) {
  const { store } = context
  return new Elysia()
    .post(
      JOBS_PATH,
      async ({ request, params, set }): Promise<CreateJobResponse> => {
        authenticate(store, request, params.projectId, 'jobs:write')
        const result = validate(createJobRule, await readJsonBody(request, MAX_FRAME_BYTES))
        if (!result.ok) throw invalid(result.issues)
        const input = result.value
        if (!fitsInOneFrame(input.document, input.metadata)) {
          throw new ApiError(413, 'payload_too_large', `The document does not fit in one ${MAX_FRAME_BYTES}-byte delivery frame.`)
        }
        const created = await createJob(context, {
          projectId: params.projectId,
          printerId: input.printerId,
          idempotencyKey: input.idempotencyKey,
          document: input.document,
          metadata: input.metadata ?? null,
          expiresInMs: input.expiresInMs ?? EXPIRES_IN_MS.default,
          maxAttempts: input.maxAttempts ?? MAX_ATTEMPTS.default,
        })
        set.status = created.duplicate ? 200 : 202
        return created
      },
      { parse: 'none' },
    )
    .get(JOBS_PATH, ({ request, params }): ListJobsResponse => {
      const key = authenticate(store, request, params.projectId, 'jobs:read')
      const query = new URL(request.url).searchParams
      const details = [...new Set(query.keys())]
        .filter((name) => name !== 'state')
        .map((name) => ({ path: `query.${name}`, message: 'is not an allowed query parameter' }))
      const states = query.getAll('state')
      if (states.length > 1) details.push({ path: 'query.state', message: 'must be given at most once' })
      const state = states[0]
      if (state !== undefined && !isJobState(state)) details.push({ path: 'query.state', message: `must be one of ${JOB_STATES.join(', ')}` })
      if (details.length > 0) throw invalid(details)
      return { jobs: store.jobs.newest(params.projectId, state as JobState | undefined), keyPrefix: key.keyPrefix }
    })
}
