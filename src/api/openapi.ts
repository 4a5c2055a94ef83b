// The OpenAPI 3.1 document of the public API (`GET /openapi.json`): every public route, its
// parameters, bodies and answers, made from the very rules the hub validates with (each rule says
// itself as JSON Schema), so the document cannot drift from what the hub accepts and answers. The
// agent gateway is private (OpenPrinter's WebSocket) and the admin API is the dashboard's: neither
// is in it.
import { API_ERROR_CODES } from '../protocol/api-errors.ts'
import { API_KEY_SCOPES } from '../protocol/api-key.ts'
import { discoveryRule } from '../protocol/discovery.ts'
import { EVENT_TYPES, projectEventRule } from '../protocol/events.ts'
import { healthRule } from '../protocol/health.ts'
import { createJobResponseRule, JOB_STATES, jobDetailResponseRule, jobRule, listJobsResponseRule, pagedJobsResponseRule, reprintJobResponseRule } from '../protocol/job.ts'
import { createJobRule, reprintJobRule } from '../protocol/job-request.ts'
import { JOB_LIST_LIMIT } from '../protocol/limits.ts'
import { pairingRequestRule, pairingResponseRule } from '../protocol/pairing.ts'
import { projectPrinterResponseRule, projectPrintersResponseRule } from '../protocol/project-printer.ts'
import { projectImageResponseRule, projectImagesResponseRule, putImageRule } from '../protocol/project-images.ts'
import { createDestinationRule, destinationResponseRule, destinationsResponseRule, updateDestinationRule } from '../protocol/destinations.ts'
import { type JsonSchema, object } from '../protocol/rules.ts'
import { createdWebhookRule, createWebhookRule, webhooksResponseRule } from '../protocol/webhooks.ts'
import { VERSION } from '../domain/version.ts'

type Operation = Record<string, unknown>

const json = (schema: JsonSchema, description: string) => ({ description, content: { 'application/json': { schema } } })
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [String(status), { $ref: '#/components/responses/Error' }]))
const pathParameter = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 256 }, description })
const query = (name: string, schema: JsonSchema, description: string) => ({ name, in: 'query', required: false, schema, description })
const projectId = pathParameter('projectId', 'The project of the API key.')
const jobId = pathParameter('jobId', 'A job of the project.')
const keyed = (scope: string, operation: Operation): Operation => ({ security: [{ apiKey: [] }], 'x-scope': scope, ...operation, responses: { ...(operation.responses as object), ...errors(401, 403) } })
/** An operation anyone may call: no API key (OpenAPI says so with an empty `security`). */
const open = (operation: Operation): Operation => ({ security: [], ...operation })
const jobAnswer = object({ job: jobRule }).schema

const paths: Record<string, Record<string, Operation>> = {
  '/health': { get: open({ operationId: 'getHealth', summary: 'Liveness of the hub', responses: { 200: json(healthRule.schema, 'The hub is up'), 503: json(healthRule.schema, 'The hub takes no new job: its disk is (nearly) full (the reason says so)') } }) },
  '/.well-known/printservice': { get: open({ operationId: 'getDiscovery', summary: 'OpenPrinter discovery', responses: { 200: json(discoveryRule.schema, 'The discovery document') } }) },
  '/.well-known/openprinter': { get: open({ operationId: 'getOpenPrinterDiscovery', summary: 'OpenPrinter discovery (the same document)', responses: { 200: json(discoveryRule.schema, 'The discovery document') } }) },
  '/printservice/pair': {
    post: open({
      operationId: 'pairAgent',
      summary: "Pair an agent with a pairing code (OpenPrinter; errors in OpenPrinter's closed envelope, all 400)",
      requestBody: { required: true, content: { 'application/json': { schema: pairingRequestRule.schema } } },
      responses: { 200: json(pairingResponseRule.schema, 'Paired'), 400: { description: "OpenPrinter's error envelope: { error: { code, message } }" } },
    }),
  },
  '/v1/projects/{projectId}/jobs': {
    post: keyed('jobs:write', {
      operationId: 'createJob',
      summary: 'Submit a print job',
      parameters: [projectId],
      requestBody: { required: true, content: { 'application/json': { schema: createJobRule.schema } } },
      responses: { 202: json(createJobResponseRule.schema, 'Created'), 200: json(createJobResponseRule.schema, 'The job of this idempotency key, as it is now'), ...errors(400, 404, 408, 413, 415, 429, 507) },
    }),
    get: keyed('jobs:read', {
      operationId: 'listJobs',
      summary: 'List jobs, newest first: the newest 100, or pages with limit or cursor',
      parameters: [
        projectId,
        query('fanOut', { type: 'boolean' }, 'true: the jobs posted to a destination of mode "all" (the parents, each printerId the destination\'s name, state their children\'s summarised) instead of the jobs that print; the other filters apply to them.'),
        query('state', { enum: [...JOB_STATES] }, 'Only jobs in this state.'),
        query('printerId', { type: 'string', minLength: 1, maxLength: 256 }, 'Only jobs of this printer (record ID or name).'),
        query('createdAfter', { type: 'string', format: 'date-time' }, 'Only jobs created after this time (ISO 8601 UTC).'),
        query('createdBefore', { type: 'string', format: 'date-time' }, 'Only jobs created before this time (ISO 8601 UTC).'),
        { name: 'metadata', in: 'query', required: false, style: 'deepObject', explode: true, schema: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 4 }, description: 'metadata.KEY=VALUE: only jobs with these metadata entries (all of them).' },
        query('limit', { type: 'integer', minimum: 1, maximum: JOB_LIST_LIMIT }, 'A page of this many jobs; the answer has nextCursor.'),
        query('cursor', { type: 'string' }, 'The next page (nextCursor of the page before), with at most a new limit.'),
      ],
      responses: { 200: json({ oneOf: [listJobsResponseRule.schema, pagedJobsResponseRule.schema] }, 'The jobs (nextCursor only when paging was asked for)'), ...errors(400) },
    }),
  },
  '/v1/projects/{projectId}/jobs/{jobId}': {
    get: keyed('jobs:read', { operationId: 'getJob', summary: 'One job', parameters: [projectId, jobId], responses: { 200: json(jobDetailResponseRule.schema, 'The job; a job posted to a destination of mode "all" also has its children, one job per printer'), ...errors(400, 404) } }),
  },
  '/v1/projects/{projectId}/jobs/{jobId}/cancel': {
    post: keyed('jobs:write', {
      operationId: 'cancelJob',
      summary: 'Cancel a job that has not reached its agent',
      description: 'A PENDING job is cancelled at once. A DISPATCHING one is asked of its agent, and so is a DELIVERED one for a printer that polls the hub (Star CloudPRNT, Epson Server Direct Print) until the printer fetches it. 409 job_not_cancellable once its agent holds it (for a printer that polls: once the printer fetched it), or it ended otherwise.',
      parameters: [projectId, jobId],
      responses: { 200: json(jobAnswer, 'CANCELLED: it never prints'), 202: json(jobAnswer, 'Its agent was asked to stop it and has not answered yet'), ...errors(400, 404, 409) },
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
  '/v1/projects/{projectId}/printers': {
    get: keyed('printers:read', { operationId: 'listPrinters', summary: "The project's printers and their state now", parameters: [projectId], responses: { 200: json(projectPrintersResponseRule.schema, 'The printers'), ...errors(400) } }),
  },
  '/v1/projects/{projectId}/printers/{printerId}': {
    get: keyed('printers:read', {
      operationId: 'getPrinter',
      summary: 'One printer, by record ID or name',
      parameters: [projectId, pathParameter('printerId', 'Record ID or project-local name.')],
      responses: { 200: json(projectPrinterResponseRule.schema, 'The printer'), ...errors(400, 404) },
    }),
  },
  '/v1/projects/{projectId}/events': {
    get: keyed('jobs:read', {
      operationId: 'streamEvents',
      summary: "The project's events as Server-Sent Events: id, event (the type), data (the event as JSON)",
      parameters: [
        projectId,
        query('after', { type: 'integer', minimum: 0 }, 'Resume after this event ID (0: all the log holds). Without it, and without Last-Event-ID, the events to come.'),
        { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^\\d{1,15}$' }, description: 'Resume after this event ID (what EventSource sends on reconnecting).' },
      ],
      responses: { 200: { description: `A stream of events (${EVENT_TYPES.join(', ')}); \`reset\` first when the point asked for was pruned`, content: { 'text/event-stream': { schema: projectEventRule.schema } } }, ...errors(400, 429) },
    }),
  },
  '/v1/projects/{projectId}/webhooks': {
    post: keyed('webhooks:write', {
      operationId: 'createWebhook',
      summary: 'Make a webhook: its secret is in this answer only',
      parameters: [projectId],
      requestBody: { required: true, content: { 'application/json': { schema: createWebhookRule.schema } } },
      responses: {
        201: json(createdWebhookRule.schema, 'Made; deliveries are signed with the secret (Standard Webhooks)'),
        ...errors(400, 413, 415),
      },
    }),
    get: keyed('webhooks:write', { operationId: 'listWebhooks', summary: "The project's webhooks (never their secrets)", parameters: [projectId], responses: { 200: json(webhooksResponseRule.schema, 'The webhooks, each with failingSince and disabledAt'), ...errors(400) } }),
  },
  '/v1/projects/{projectId}/webhooks/{webhookId}': {
    delete: keyed('webhooks:write', { operationId: 'deleteWebhook', summary: 'Delete a webhook (its waiting deliveries too)', parameters: [projectId, pathParameter('webhookId', 'A webhook of the project.')], responses: { 204: { description: 'Deleted' }, ...errors(400, 404) } }),
  },
  '/v1/projects/{projectId}/images': {
    get: keyed('jobs:read', { operationId: 'listImages', summary: "The project's stored images (a logo section prints one by name)", parameters: [projectId], responses: { 200: json(projectImagesResponseRule.schema, 'The images, without their data'), ...errors(400) } }),
  },
  '/v1/projects/{projectId}/images/{name}': {
    put: keyed('jobs:write', {
      operationId: 'storeImage',
      summary: 'Store or replace an image of the project, for logo sections of that name',
      parameters: [projectId, pathParameter('name', 'Letters, digits, ".", "_" and "-", 1-64 characters.')],
      requestBody: { required: true, content: { 'application/json': { schema: putImageRule.schema } } },
      responses: { 201: json(projectImageResponseRule.schema, 'Stored'), 200: json(projectImageResponseRule.schema, 'Replaced'), ...errors(400, 409, 413, 415, 507) },
    }),
    get: keyed('jobs:read', { operationId: 'getImage', summary: 'One stored image, without its data', parameters: [projectId, pathParameter('name', 'The image.')], responses: { 200: json(projectImageResponseRule.schema, 'The image'), ...errors(400, 404) } }),
    delete: keyed('jobs:write', { operationId: 'deleteImage', summary: 'Delete a stored image (jobs made keep their copy)', parameters: [projectId, pathParameter('name', 'The image.')], responses: { 204: { description: 'Deleted' }, ...errors(400, 404) } }),
  },
  '/v1/projects/{projectId}/destinations': {
    post: keyed('printers:write', {
      operationId: 'createDestination',
      summary: 'Make a destination: a name jobs are posted to (as printerId), its printers in order, failover between them',
      parameters: [projectId],
      requestBody: { required: true, content: { 'application/json': { schema: createDestinationRule.schema } } },
      responses: { 201: json(destinationResponseRule.schema, 'Made'), ...errors(400, 409, 413, 415) },
    }),
    get: keyed('printers:read', { operationId: 'listDestinations', summary: "The project's destinations", parameters: [projectId], responses: { 200: json(destinationsResponseRule.schema, 'The destinations'), ...errors(400) } }),
  },
  '/v1/projects/{projectId}/destinations/{name}': {
    get: keyed('printers:read', { operationId: 'getDestination', summary: 'One destination', parameters: [projectId, pathParameter('name', 'The destination.')], responses: { 200: json(destinationResponseRule.schema, 'The destination'), ...errors(400, 404) } }),
    put: keyed('printers:write', {
      operationId: 'updateDestination',
      summary: "Change a destination's mode and printers",
      parameters: [projectId, pathParameter('name', 'The destination.')],
      requestBody: { required: true, content: { 'application/json': { schema: updateDestinationRule.schema } } },
      responses: { 200: json(destinationResponseRule.schema, 'Changed'), ...errors(400, 404, 413, 415) },
    }),
    delete: keyed('printers:write', { operationId: 'deleteDestination', summary: 'Delete a destination (jobs waiting at its printers stay there)', parameters: [projectId, pathParameter('name', 'The destination.')], responses: { 204: { description: 'Deleted' }, ...errors(400, 404) } }),
  },
  '/openapi.json': { get: open({ operationId: 'getOpenApiDocument', summary: 'This document', responses: { 200: { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } } } }) },
}

let document: Record<string, unknown> | undefined

/** The document (made once). */
export function openApiDocument(): Record<string, unknown> {
  document ??= {
    openapi: '3.1.0',
    info: {
      title: 'printhub',
      version: VERSION,
      description: `The print hub's public API. Scopes of API keys: ${API_KEY_SCOPES.join(', ')} (each operation's x-scope).`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Each venue's hub has its own address: the operations are relative to the hub that serves this document.
    servers: [{ url: '/', description: 'The hub that serves this document, at its address on the venue network (e.g. http://192.168.1.20:8080)' }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'A project API key (phk_…), never in a browser.' } },
      responses: {
        Error: json(
          {
            type: 'object',
            required: ['error'],
            additionalProperties: false,
            properties: {
              error: {
                type: 'object',
                required: ['code', 'message', 'requestId'],
                additionalProperties: false,
                properties: {
                  code: { enum: API_ERROR_CODES },
                  message: { type: 'string' },
                  requestId: { type: 'string' },
                  details: { type: 'array', maxItems: 32, items: { type: 'object', required: ['path', 'message'], additionalProperties: false, properties: { path: { type: 'string' }, message: { type: 'string' } } } },
                },
              },
            },
          },
          'An error: its code, a message for people, the request ID, and for invalid_request what is wrong where',
        ),
      },
    },
  }
  return document
}
