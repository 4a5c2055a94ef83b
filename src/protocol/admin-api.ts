// Where the dashboard and its admin API answer: the paths the browser code and the hub share.

/** The dashboard's pages. */
export const DASHBOARD_PATH = '/dashboard'
/** The admin API, used by the dashboard and by scripts with an admin token. */
export const ADMIN_API_PREFIX = '/admin/v1'

/**
 * The roles of the dashboard's accounts, most trusted first: an owner may do everything; a
 * technician printers, agents, keys and settings, not accounts; staff see printers and jobs, and
 * cancel and reprint jobs.
 */
export const ADMIN_ROLES = ['owner', 'technician', 'staff'] as const
export type AdminRole = (typeof ADMIN_ROLES)[number]

/** Whether `role` may do what `needed` may. */
export function roleAllows(role: AdminRole, needed: AdminRole): boolean {
  return ADMIN_ROLES.indexOf(role) <= ADMIN_ROLES.indexOf(needed)
}

/**
 * The audit log's `address` of a change made on the hub's own machine with the CLI (no account made it, from no network
 * address).
 */
export const AUDIT_ON_THE_MACHINE = 'this machine'
