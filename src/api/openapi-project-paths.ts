// The OpenAPI document's operations on the rest of a project (`openapi.ts`): its printers, its
// events, webhooks, stored images and destinations.
import { EVENT_TYPES, projectEventRule } from '../protocol/events.ts'
import { projectPrinterResponseRule, projectPrintersResponseRule } from '../protocol/project-printer.ts'
import { projectImageResponseRule, projectImagesResponseRule, putImageRule } from '../protocol/project-images.ts'
import {
  createDestinationRule,
  destinationResponseRule,
  destinationsResponseRule,
  updateDestinationRule,
} from '../protocol/destinations.ts'
import { createdWebhookRule, createWebhookRule, webhooksResponseRule } from '../protocol/webhooks.ts'
import { errors, json, keyed, type Operation, pathParameter, projectId, query } from './openapi-operations.ts'

export const projectPaths: Record<string, Record<string, Operation>> = {
  '/v1/projects/{projectId}/printers': {
    get: keyed('printers:read', {
      operationId: 'listPrinters',
      summary: "The project's printers and their state now",
      parameters: [projectId],
      responses: { 200: json(projectPrintersResponseRule.schema, 'The printers'), ...errors(400) },
    }),
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
        query(
          'after',
          { type: 'integer', minimum: 0 },
          'Resume after this event ID (0: all the log holds). Without it, and ' +
            'without Last-Event-ID, the events to come.',
        ),
        {
          name: 'Last-Event-ID',
          in: 'header',
          required: false,
          schema: { type: 'string', pattern: '^\\d{1,15}$' },
          description: 'Resume after this event ID (what EventSource sends on reconnecting).',
        },
      ],
      responses: {
        200: {
          description:
            `A stream of events (${EVENT_TYPES.join(', ')}); \`reset\` first when the ` + `point asked for was pruned`,
          content: { 'text/event-stream': { schema: projectEventRule.schema } },
        },
        ...errors(400, 429),
      },
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
    get: keyed('webhooks:write', {
      operationId: 'listWebhooks',
      summary: "The project's webhooks (never their secrets)",
      parameters: [projectId],
      responses: {
        200: json(webhooksResponseRule.schema, 'The webhooks, each with failingSince and disabledAt'),
        ...errors(400),
      },
    }),
  },
  '/v1/projects/{projectId}/webhooks/{webhookId}': {
    delete: keyed('webhooks:write', {
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook (its waiting deliveries too)',
      parameters: [projectId, pathParameter('webhookId', 'A webhook of the project.')],
      responses: { 204: { description: 'Deleted' }, ...errors(400, 404) },
    }),
  },
  '/v1/projects/{projectId}/images': {
    get: keyed('jobs:read', {
      operationId: 'listImages',
      summary: "The project's stored images (a logo section prints one by name)",
      parameters: [projectId],
      responses: { 200: json(projectImagesResponseRule.schema, 'The images, without their data'), ...errors(400) },
    }),
  },
  '/v1/projects/{projectId}/images/{name}': {
    put: keyed('jobs:write', {
      operationId: 'storeImage',
      summary: 'Store or replace an image of the project, for logo sections of that name',
      parameters: [projectId, pathParameter('name', 'Letters, digits, ".", "_" and "-", 1-64 characters.')],
      requestBody: { required: true, content: { 'application/json': { schema: putImageRule.schema } } },
      responses: {
        201: json(projectImageResponseRule.schema, 'Stored'),
        200: json(projectImageResponseRule.schema, 'Replaced'),
        ...errors(400, 409, 413, 415, 507),
      },
    }),
    get: keyed('jobs:read', {
      operationId: 'getImage',
      summary: 'One stored image, without its data',
      parameters: [projectId, pathParameter('name', 'The image.')],
      responses: { 200: json(projectImageResponseRule.schema, 'The image'), ...errors(400, 404) },
    }),
    delete: keyed('jobs:write', {
      operationId: 'deleteImage',
      summary: 'Delete a stored image (jobs made keep their copy)',
      parameters: [projectId, pathParameter('name', 'The image.')],
      responses: { 204: { description: 'Deleted' }, ...errors(400, 404) },
    }),
  },
  '/v1/projects/{projectId}/destinations': {
    post: keyed('printers:write', {
      operationId: 'createDestination',
      summary:
        'Make a destination: a name jobs are posted to (as printerId), its printers in order, failover between them',
      parameters: [projectId],
      requestBody: { required: true, content: { 'application/json': { schema: createDestinationRule.schema } } },
      responses: { 201: json(destinationResponseRule.schema, 'Made'), ...errors(400, 409, 413, 415) },
    }),
    get: keyed('printers:read', {
      operationId: 'listDestinations',
      summary: "The project's destinations",
      parameters: [projectId],
      responses: { 200: json(destinationsResponseRule.schema, 'The destinations'), ...errors(400) },
    }),
  },
  '/v1/projects/{projectId}/destinations/{name}': {
    get: keyed('printers:read', {
      operationId: 'getDestination',
      summary: 'One destination',
      parameters: [projectId, pathParameter('name', 'The destination.')],
      responses: { 200: json(destinationResponseRule.schema, 'The destination'), ...errors(400, 404) },
    }),
    put: keyed('printers:write', {
      operationId: 'updateDestination',
      summary: "Change a destination's mode and printers",
      parameters: [projectId, pathParameter('name', 'The destination.')],
      requestBody: { required: true, content: { 'application/json': { schema: updateDestinationRule.schema } } },
      responses: { 200: json(destinationResponseRule.schema, 'Changed'), ...errors(400, 404, 413, 415) },
    }),
    delete: keyed('printers:write', {
      operationId: 'deleteDestination',
      summary: 'Delete a destination (jobs waiting at its printers stay there)',
      parameters: [projectId, pathParameter('name', 'The destination.')],
      responses: { 204: { description: 'Deleted' }, ...errors(400, 404) },
    }),
  },
}
