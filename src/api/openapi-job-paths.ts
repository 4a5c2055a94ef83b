// The OpenAPI document's job operations (`openapi.ts`): submit and list jobs, one job, an
// application's cancellation and a reprint.
import {
  JOB_STATES,
  createJobResponseRule,
  jobDetailResponseRule,
  jobRule,
  listJobsResponseRule,
  pagedJobsResponseRule,
  reprintJobResponseRule,
} from '../protocol/job.ts'
import { createJobRule, reprintJobRule } from '../protocol/job-request.ts'
import { JOB_LIST_LIMIT } from '../protocol/limits.ts'
import { object } from '../protocol/rules.ts'
import { errors, jobId, json, keyed, type Operation, projectId, query } from './openapi-operations.ts'

const jobAnswer = object({ job: jobRule }).schema

export const jobPaths: Record<string, Record<string, Operation>> = {
  '/v1/projects/{projectId}/jobs': {
    post: keyed('jobs:write', {
      operationId: 'createJob',
      summary: 'Submit a print job',
      parameters: [projectId],
      requestBody: { required: true, content: { 'application/json': { schema: createJobRule.schema } } },
      responses: {
        202: json(createJobResponseRule.schema, 'Created'),
        200: json(createJobResponseRule.schema, 'The job of this idempotency key, as it is now'),
        ...errors(400, 404, 408, 413, 415, 429, 507),
      },
    }),
    get: keyed('jobs:read', {
      operationId: 'listJobs',
      summary: 'List jobs, newest first: the newest 100, or pages with limit or cursor',
      parameters: [
        projectId,
        query(
          'fanOut',
          { type: 'boolean' },
          'true: the jobs posted to a destination of mode "all" (the parents, each ' +
            "printerId the destination's name, state their children's summarised) " +
            'instead of the jobs that print; the other filters apply to them.',
        ),
        query('state', { enum: [...JOB_STATES] }, 'Only jobs in this state.'),
        query(
          'printerId',
          { type: 'string', minLength: 1, maxLength: 256 },
          'Only jobs of this printer (record ID or name).',
        ),
        query(
          'createdAfter',
          { type: 'string', format: 'date-time' },
          'Only jobs created after this time (ISO 8601 UTC).',
        ),
        query(
          'createdBefore',
          { type: 'string', format: 'date-time' },
          'Only jobs created before this time (ISO 8601 UTC).',
        ),
        {
          name: 'metadata',
          in: 'query',
          required: false,
          style: 'deepObject',
          explode: true,
          schema: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 4 },
          description: 'metadata.KEY=VALUE: only jobs with these metadata entries (all of them).',
        },
        query(
          'limit',
          { type: 'integer', minimum: 1, maximum: JOB_LIST_LIMIT },
          'A page of this many jobs; the answer has nextCursor.',
        ),
        query('cursor', { type: 'string' }, 'The next page (nextCursor of the page before), with at most a new limit.'),
      ],
      responses: {
        200: json(
          { oneOf: [listJobsResponseRule.schema, pagedJobsResponseRule.schema] },
          'The jobs (nextCursor only when paging was asked for)',
        ),
        ...errors(400),
      },
    }),
  },
  '/v1/projects/{projectId}/jobs/{jobId}': {
    get: keyed('jobs:read', {
      operationId: 'getJob',
      summary: 'One job',
      parameters: [projectId, jobId],
      responses: {
        200: json(
          jobDetailResponseRule.schema,
          'The job; a job posted to a destination of mode "all" also has its children, one job per printer',
        ),
        ...errors(400, 404),
      },
    }),
  },
  '/v1/projects/{projectId}/jobs/{jobId}/cancel': {
    post: keyed('jobs:write', {
      operationId: 'cancelJob',
      summary: 'Cancel a job that has not reached its agent',
      description:
        'A PENDING job is cancelled at once. A DISPATCHING one is asked of its ' +
        'agent, and so is a DELIVERED one for a printer that polls the hub (Star ' +
        'CloudPRNT, Epson Server Direct Print) until the printer fetches it. 409 ' +
        'job_not_cancellable once its agent holds it (for a printer that polls: ' +
        'once the printer fetched it), or it ended otherwise.',
      parameters: [projectId, jobId],
      responses: {
        200: json(jobAnswer, 'CANCELLED: it never prints'),
        202: json(jobAnswer, 'Its agent was asked to stop it and has not answered yet'),
        ...errors(400, 404, 409),
      },
    }),
  },
  '/v1/projects/{projectId}/jobs/{jobId}/reprint': {
    post: keyed('jobs:write', {
      operationId: 'reprintJob',
      summary: 'Reprint a job: a new job of its stored document under a REPRINT banner with the original time',
      parameters: [projectId, jobId],
      requestBody: { required: true, content: { 'application/json': { schema: reprintJobRule.schema } } },
      responses: {
        202: json(reprintJobResponseRule.schema, 'The reprint, made'),
        200: json(reprintJobResponseRule.schema, 'The reprint this idempotency key made before, as it is now'),
        ...errors(400, 404, 409, 413, 415, 429, 507),
      },
    }),
  },
}
