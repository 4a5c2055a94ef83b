// What the hub tells the browser code about itself: where the admin API and the dashboard answer, the states a job can
// be in and those it can be cancelled in, the scopes of API keys. The hub writes it into the page once, as JSON (see
// routes.ts), so these rules live only in src/protocol/ and src/domain/.
import type { AdminRole } from '../../protocol/admin-api.ts'
import type { Messages } from '../../protocol/messages/en.ts'
import type { ApiKeyScope } from '../../protocol/api-key.ts'
import type { JobState } from '../../protocol/job.ts'

export interface DashboardConfig {
  /** The admin API's path prefix (ADMIN_API_PREFIX). */
  api: string
  /** The dashboard's path (DASHBOARD_PATH). */
  dashboard: string
  /** Every job state, in the protocol's order (JOB_STATES). */
  jobStates: readonly JobState[]
  /** The states in which an operator may cancel a job (from the state machine's table). */
  cancellableStates: readonly JobState[]
  /** The scopes an API key may have (API_KEY_SCOPES). */
  apiKeyScopes: readonly ApiKeyScope[]
  /**
   * The page's language (the account's, else the browser's), its words, and the languages to choose from
   * (code → name).
   */
  language: string
  messages: Messages
  languages: Record<string, string>
  /**
   * The language the hub's own messages (its error answers) are written in (HUB_LANGUAGE); readers of another get the
   * catalog's words, with the hub's beside them.
   */
  hubLanguage: string
  /** The audit log's address of a change made on the hub's machine itself (AUDIT_ON_THE_MACHINE). */
  auditOnTheMachine: string
  /** Form fields' `pattern` attributes, from the rules the server checks the same values with. */
  inputPatterns: { identifier: string; virtualName: string }
  /** The accounts' roles, most trusted first (ADMIN_ROLES): a role may do what those after it may. */
  roles: readonly AdminRole[]
}

/** The signed-in account (the app sets it once the session is known): pages offer only what its role may do. */
export const account: { name: string; role: AdminRole } = { name: '', role: 'staff' }

/** Whether the signed-in account may do what needs `needed`. */
export const may = (needed: AdminRole): boolean => roleAllows(account.role, needed)

/** Whether an account of `role` may use what needs `needed` (the admin API checks it again). */
export const roleAllows = (role: AdminRole, needed: AdminRole): boolean =>
  config.roles.indexOf(role) <= config.roles.indexOf(needed)

const element = document.getElementById('printhub-config')
if (!element?.textContent) throw new Error('The page carries no printhub configuration.')

export const config: DashboardConfig = JSON.parse(element.textContent)
/** The words of the page's language. */
export const t: Messages = config.messages
