// Where the dashboard and its admin API answer: the paths the browser code and the hub share.

/** The dashboard's pages. */
export const DASHBOARD_PATH = '/dashboard'
/** The admin API, used by the dashboard and by scripts with an admin token. */
export const ADMIN_API_PREFIX = '/admin/v1'
