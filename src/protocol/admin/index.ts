// The admin API's contract: every route under ADMIN_API_PREFIX, by area. The admin routes validate
// with its rules, the dashboard's browser code types the answers with its types, the admin API's
// OpenAPI document is made from it, and a test keeps it and the routes the hub registers the same.
import type { AdminOperation } from './contract.ts'
import { agentOperations } from './agents.ts'
import { auditOperations } from './audit.ts'
import { backupOperations } from './backup.ts'
import { destinationOperations } from './destinations.ts'
import { jobOperations } from './jobs.ts'
import { overviewOperations } from './overview.ts'
import { printerOperations } from './printers.ts'
import { projectOperations } from './projects.ts'
import { sessionOperations } from './session.ts'
import { type SettingBounds, settingsOperations } from './settings.ts'
import { userOperations } from './users.ts'
import { webhookOperations } from './webhooks.ts'

/** Where the admin API's own OpenAPI document is, under ADMIN_API_PREFIX. */
export const ADMIN_OPENAPI_PATH = '/openapi.json'

const openApiOperation: AdminOperation = {
  method: 'GET',
  path: ADMIN_OPENAPI_PATH,
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  role: 'staff',
  answers: { 200: { description: 'The OpenAPI document of the admin API', mediaType: 'application/json' } },
  errors: [],
}

/** Every operation of the admin API, its settings' rules made from the hub's bounds. */
export function adminOperations(bounds: SettingBounds): AdminOperation[] {
  return [
    ...sessionOperations,
    ...overviewOperations,
    ...printerOperations,
    ...jobOperations,
    ...projectOperations,
    ...agentOperations,
    ...settingsOperations(bounds),
    ...backupOperations,
    ...webhookOperations,
    ...destinationOperations,
    ...userOperations,
    ...auditOperations,
    openApiOperation,
  ]
}
