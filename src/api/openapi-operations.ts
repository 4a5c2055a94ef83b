// The pieces the OpenAPI document's operations are made of (`openapi.ts`): an answer in JSON, the
// shared error answers, path and query parameters, and operations with or without an API key.
import type { JsonSchema } from '../protocol/rules.ts'

export type Operation = Record<string, unknown>

/** An answer in JSON of this schema. */
export const json = (schema: JsonSchema, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})
/** The error answers of these statuses, each the shared `Error` response. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [String(status), { $ref: '#/components/responses/Error' }]))
export const pathParameter = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', minLength: 1, maxLength: 256 },
  description,
})
export const query = (name: string, schema: JsonSchema, description: string) => ({
  name,
  in: 'query',
  required: false,
  schema,
  description,
})
export const projectId = pathParameter('projectId', 'The project of the API key.')
export const jobId = pathParameter('jobId', 'A job of the project.')
/** An operation that takes a project API key with this scope (401 and 403 beside its answers). */
export const keyed = (scope: string, operation: Operation): Operation => ({
  security: [{ apiKey: [] }],
  'x-scope': scope,
  ...operation,
  responses: { ...(operation.responses as object), ...errors(401, 403) },
})
/** An operation anyone may call: no API key (OpenAPI says so with an empty `security`). */
export const open = (operation: Operation): Operation => ({ security: [], ...operation })
