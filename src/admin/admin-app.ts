// The admin API: what the dashboard (and scripts with an admin token) use to run the hub.
import { Elysia } from 'elysia'
import type { AdminContext } from './context.ts'
import { agentRoutes } from './routes/agents.ts'
import { backupRoutes } from './routes/backup.ts'
import { jobRoutes } from './routes/jobs.ts'
import { overviewRoutes } from './routes/overview.ts'
import { printerRoutes } from './routes/printers.ts'
import { projectRoutes } from './routes/projects.ts'
import { sessionRoutes } from './routes/session.ts'
import { settingsRoutes } from './routes/settings.ts'
import { webhookRoutes } from './routes/webhooks.ts'
import { destinationRoutes } from './routes/destinations.ts'
import { userRoutes } from './routes/users.ts'
import { auditRoutes } from './routes/audit.ts'
import { openApiRoutes } from './routes/openapi.ts'

export function adminApi(context: AdminContext) {
  return new Elysia()
    .use(sessionRoutes(context))
    .use(overviewRoutes(context))
    .use(printerRoutes(context))
    .use(jobRoutes(context))
    .use(projectRoutes(context))
    .use(agentRoutes(context))
    .use(settingsRoutes(context))
    .use(backupRoutes(context))
    .use(webhookRoutes(context))
    .use(destinationRoutes(context))
    .use(userRoutes(context))
    .use(auditRoutes(context))
    .use(openApiRoutes(context))
}
