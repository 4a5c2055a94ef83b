// Projects (staff see their names) and their API keys (technicians): a key's secret is in the
// answer that makes it, and never again.
import { API_KEY_SCOPES } from '../api-key.ts'
import { array, type Infer, nullable, object, oneOf, optional, string } from '../rules.ts'
import { shortString, timestamp } from '../values.ts'
import { type AdminOperation, count, json, MAX_LISTED, recordId } from './contract.ts'

export const PROJECT_BODY_BYTES = 4_096

export const newProjectRule = object({ name: shortString })
export const newApiKeyRule = object({
  name: optional(nullable(shortString)),
  scopes: array(oneOf(API_KEY_SCOPES), { min: 1, max: API_KEY_SCOPES.length, unique: true }),
})

export const adminProjectRule = object({ id: recordId, name: shortString, openJobs: count, createdAt: timestamp })
export type AdminProject = Infer<typeof adminProjectRule>

/** A project's API key: its prefix to tell it apart, its scopes and its use; never its secret. */
export const adminApiKeyRule = object({
  id: recordId,
  projectId: recordId,
  name: nullable(shortString),
  keyPrefix: string({ min: 1, max: 64 }),
  scopes: array(oneOf(API_KEY_SCOPES), { max: API_KEY_SCOPES.length }),
  createdAt: timestamp,
  lastUsedAt: nullable(timestamp),
  revokedAt: nullable(timestamp),
})
export type AdminApiKey = Infer<typeof adminApiKeyRule>

export const projectOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/projects',
    operationId: 'listProjects',
    summary: "The hub's projects",
    role: 'staff',
    answers: { 200: json(object({ projects: array(adminProjectRule, { max: MAX_LISTED }) }), 'The projects') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/projects',
    operationId: 'createProject',
    summary: 'Make a project',
    role: 'technician',
    body: { rule: newProjectRule, maxBytes: PROJECT_BODY_BYTES },
    answers: { 201: json(object({ project: adminProjectRule }), 'The project') },
    errors: [],
  },
  {
    method: 'GET',
    path: '/projects/:id/keys',
    operationId: 'listApiKeys',
    summary: "A project's API keys, revoked ones too",
    role: 'technician',
    answers: { 200: json(object({ keys: array(adminApiKeyRule, { max: MAX_LISTED }) }), 'The keys') },
    errors: [404],
  },
  {
    method: 'POST',
    path: '/projects/:id/keys',
    operationId: 'createApiKey',
    summary: 'A new API key of the project: its secret is in this answer only',
    role: 'technician',
    body: { rule: newApiKeyRule, maxBytes: PROJECT_BODY_BYTES },
    answers: {
      201: json(object({ key: adminApiKeyRule, secret: string({ min: 1, max: 256 }) }), 'The key, and its secret'),
    },
    errors: [404],
  },
  {
    method: 'POST',
    path: '/keys/:id/revoke',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key: applications can no longer use it',
    role: 'technician',
    answers: { 200: json(object({ key: adminApiKeyRule }), 'The key, revoked') },
    errors: [404],
  },
]
