// The dashboard's pages, in the navigation's order; the first is shown when the address names none.
// Each builds its forms once and fills its lists from the admin API, again whenever the hub says
// something changed.
import { agentsPage } from './agents.ts'
import { jobsPage } from './jobs.ts'
import type { Page } from './page.ts'
import { overviewPage } from './overview.ts'
import { printersPage } from './printers.ts'
import { projectsPage } from './projects.ts'
import { settingsPage } from './settings.ts'
import { webhooksPage } from './webhooks.ts'
import { destinationsPage } from './destinations.ts'
import { usersPage } from './users.ts'
import { auditPage } from './audit.ts'
import { mePage } from './me.ts'

export const PAGES: Page[] = [
  overviewPage,
  printersPage,
  destinationsPage,
  jobsPage,
  projectsPage,
  webhooksPage,
  agentsPage,
  settingsPage,
  usersPage,
  auditPage,
  mePage,
]
