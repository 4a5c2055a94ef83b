// The OpenAPI 3.1 document of the public API (`GET /openapi.json`): every public route, its
// parameters, bodies and answers, made from the very rules the hub validates with (each rule says
// itself as JSON Schema), so the document cannot drift from what the hub accepts and answers. The
// agent gateway is private (OpenPrinter's WebSocket) and the admin API is the dashboard's: neither
// is in it.
import { ERROR_BODY_SCHEMA } from '../protocol/api-errors.ts'
import { API_KEY_SCOPES } from '../protocol/api-key.ts'
import { discoveryRule } from '../protocol/discovery.ts'
import { healthRule } from '../protocol/health.ts'
import { pairingRequestRule, pairingResponseRule } from '../protocol/pairing.ts'
import { VERSION } from '../domain/version.ts'
import { OPENAPI_LICENSE, OPENAPI_SERVERS, OPENAPI_VERSION } from '../http/openapi.ts'
import { jobPaths } from './openapi-job-paths.ts'
import { json, type Operation, open } from './openapi-operations.ts'
import { projectPaths } from './openapi-project-paths.ts'

const paths: Record<string, Record<string, Operation>> = {
  '/health': {
    get: open({
      operationId: 'getHealth',
      summary: 'Liveness of the hub',
      responses: {
        200: json(healthRule.schema, 'The hub is up'),
        503: json(healthRule.schema, 'The hub takes no new job: its disk is (nearly) full (the reason says so)'),
      },
    }),
  },
  '/.well-known/printservice': {
    get: open({
      operationId: 'getDiscovery',
      summary: 'OpenPrinter discovery',
      responses: { 200: json(discoveryRule.schema, 'The discovery document') },
    }),
  },
  '/.well-known/openprinter': {
    get: open({
      operationId: 'getOpenPrinterDiscovery',
      summary: 'OpenPrinter discovery (the same document)',
      responses: { 200: json(discoveryRule.schema, 'The discovery document') },
    }),
  },
  '/printservice/pair': {
    post: open({
      operationId: 'pairAgent',
      summary: "Pair an agent with a pairing code (OpenPrinter; errors in OpenPrinter's closed envelope, all 400)",
      requestBody: { required: true, content: { 'application/json': { schema: pairingRequestRule.schema } } },
      responses: {
        200: json(pairingResponseRule.schema, 'Paired'),
        400: { description: "OpenPrinter's error envelope: { error: { code, message } }" },
      },
    }),
  },
  ...jobPaths,
  ...projectPaths,
  '/openapi.json': {
    get: open({
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      responses: {
        200: { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } },
      },
    }),
  },
}

let document: Record<string, unknown> | undefined

/** The document (made once). */
export function openApiDocument(): Record<string, unknown> {
  document ??= {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'printhub',
      version: VERSION,
      description:
        `The print hub's public API. Scopes of API keys: ` + `${API_KEY_SCOPES.join(', ')} (each operation's x-scope).`,
      license: OPENAPI_LICENSE,
    },
    servers: OPENAPI_SERVERS,
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A project API key (phk_…), never in a browser.' },
      },
      responses: {
        Error: json(
          ERROR_BODY_SCHEMA,
          'An error: its code, a message for people, the request ID, and for invalid_request what is wrong where',
        ),
      },
    },
  }
  return document
}
