// The dashboard and the admin API, as one part of the hub's HTTP application.
import { Elysia } from 'elysia'
import type { AdminContext } from './context.ts'
import { dashboardPages } from '../dashboard/routes.ts'
import { agentRoutes } from './routes/agents.ts'
import { jobRoutes } from './routes/jobs.ts'
import { overviewRoutes } from './routes/overview.ts'
import { printerRoutes } from './routes/printers.ts'
import { projectRoutes } from './routes/projects.ts'
import { sessionRoutes } from './routes/session.ts'
import { settingsRoutes } from './routes/settings.ts'

export function adminApp(context: AdminContext) {
  return new Elysia()
    .use(dashboardPages(context))
    .use(sessionRoutes(context))
    .use(overviewRoutes(context))
    .use(printerRoutes(context))
    .use(jobRoutes(context))
    .use(projectRoutes(context))
    .use(agentRoutes(context))
    .use(settingsRoutes(context))
}
