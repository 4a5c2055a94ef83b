// The OpenAPI 3.1 document of the admin API (`GET /admin/v1/openapi.json`, behind a session or an
// admin token like the rest of it): every admin route, its parameters, body and answers, made from
// the admin API's contract (protocol/admin/), whose rules the routes validate with, so the document
// cannot drift from what the hub accepts and answers.
import { ADMIN_API_PREFIX } from '../protocol/admin-api.ts'
import type { AdminAnswer, AdminOperation } from '../protocol/admin/contract.ts'
import { ERROR_BODY_SCHEMA } from '../protocol/api-errors.ts'
import type { JsonSchema } from '../protocol/rules.ts'
import { VERSION } from '../domain/version.ts'
import { OPENAPI_LICENSE, OPENAPI_SERVERS, OPENAPI_VERSION } from '../http/openapi.ts'
import { ADMIN_OPERATIONS } from './contract.ts'
import { SESSION_COOKIE } from './auth.ts'

/** The errors every operation with a role may answer (no session or token; a role too low, no CSRF token). */
const SIGNED_IN_ERRORS = [401, 403]
/** The errors every operation with a body may answer: not valid, not JSON, too slow, too large. */
const BODY_ERRORS = [400, 408, 413, 415]

const error = { $ref: '#/components/responses/Error' }

function answer(given: AdminAnswer): Record<string, unknown> {
  if ('rule' in given)
    return { description: given.description, content: { 'application/json': { schema: given.rule.schema } } }
  if (!('mediaType' in given)) return { description: given.description }
  const schema: JsonSchema =
    given.mediaType === 'application/json' ? { type: 'object' } : { type: 'string', format: 'binary' }
  return {
    description: given.description,
    ...(given.headers
      ? {
          headers: Object.fromEntries(
            Object.entries(given.headers).map(([name, description]) => [
              name,
              { description, schema: { type: 'string' } },
            ]),
          ),
        }
      : {}),
    content: { [given.mediaType]: { schema } },
  }
}

function operation(given: AdminOperation): Record<string, unknown> {
  const pathParameters = [...given.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 256 },
    description: name === 'name' ? "The destination's name." : "The record's ID.",
  }))
  const queryParameters = Object.entries(given.query ?? {}).map(([name, { schema, description }]) => ({
    name,
    in: 'query',
    required: false,
    schema,
    description,
  }))
  const parameters = [...pathParameters, ...queryParameters]
  const errors = [
    ...new Set([...given.errors, ...(given.role ? SIGNED_IN_ERRORS : []), ...(given.body ? BODY_ERRORS : [])]),
  ].sort((a, b) => a - b)
  return {
    operationId: given.operationId,
    summary: given.summary,
    security: given.role === null ? [] : [{ session: [] }, { adminToken: [] }],
    'x-role': given.role,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(given.body
      ? {
          requestBody: {
            required: true,
            description: `JSON of at most ${given.body.maxBytes} bytes.`,
            content: { 'application/json': { schema: given.body.rule.schema } },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(Object.entries(given.answers).map(([status, given]) => [status, answer(given)])),
      ...Object.fromEntries(errors.map((status) => [String(status), error])),
    },
  }
}

/** The path of an operation as OpenAPI writes it: under the admin API's prefix, `{name}` for `:name`. */
export const openApiPath = (path: string): string => ADMIN_API_PREFIX + path.replace(/:(\w+)/g, '{$1}')

let document: Record<string, unknown> | undefined

/** The document (made once). */
export function adminOpenApiDocument(): Record<string, unknown> {
  if (document) return document
  const paths: Record<string, Record<string, unknown>> = {}
  for (const given of ADMIN_OPERATIONS)
    (paths[openApiPath(given.path)] ??= {})[given.method.toLowerCase()] = operation(given)
  document = {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'printhub admin API',
      version: VERSION,
      description:
        "The print hub's admin API: what its dashboard uses, and scripts with an admin token. Each " +
        "operation's x-role is the least role that may call it (owner, technician, staff); null: no session needed.",
      license: OPENAPI_LICENSE,
    },
    servers: OPENAPI_SERVERS,
    paths,
    components: {
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description:
            "A dashboard session (signing in sets it). Every change but signing in also sends the session's CSRF " +
            'token (GET /admin/v1/session) in X-CSRF-Token.',
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: "An admin token (pha_…) of an account, with the account's role; no CSRF token needed.",
        },
      },
      responses: {
        Error: {
          description:
            'An error: its code, a message for people, the request ID, and for invalid_request what is wrong where',
          content: { 'application/json': { schema: ERROR_BODY_SCHEMA } },
        },
      },
    },
  }
  return document
}
