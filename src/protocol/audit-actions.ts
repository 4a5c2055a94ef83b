// The audit log's actions: what each entry says was done, one name per operation of the hub's
// services (services/), whichever edge asked for it (the admin API, the CLI, the public API).
// Names are the CLI's command words joined by dots where a command does the same thing.

/** Every action the audit log records, with what it means and what its target names. */
export const AUDIT_ACTIONS = {
  'session.sign_in': 'an account signed in (target: the session)',
  'session.sign_in_failed': 'a sign-in with a wrong name or password (user: the name given)',
  'session.sign_out': 'an account signed out (target: the session)',
  'sessions.revoke': 'an account ended one of its sessions (target: the session)',
  'sessions.revoke-others': 'an account ended all its other sessions',
  'tokens.create': 'an admin token made (target: "account: token name")',
  'tokens.revoke': 'an admin token revoked (target: the token)',
  'users.create': 'an account made, also the first owner (target: "name (role)")',
  'users.role': 'an account\'s role changed (target: "name (new role)")',
  'users.disable': 'an account disabled: its sessions end, its tokens stop working (target: its name)',
  'users.enable': 'a disabled account enabled again (target: its name)',
  'users.password': "an account's password set, by itself or an owner (target: its name)",
  'users.language': "an account's dashboard language changed (target: its name)",
  'projects.create': 'a project made (target: its name)',
  'keys.create': "a project's API key made (target: the project)",
  'keys.revoke': 'an API key revoked (target: the key)',
  'agents.revoke': 'a paired agent revoked (target: the agent)',
  'pairing-codes.create': 'a pairing code made (printed too, when asked)',
  'printers.add': 'a printer the hub drives added to a project (target: the name applications use)',
  'printers.assign': "a paired agent's printer given to a project (target: the name applications use)",
  'printers.adopt': 'a printer that polls the hub adopted into a project (target: the name applications use)',
  'printers.change': "a printer's name, model, paper or connection changed (target: the printer record)",
  'printers.remove': 'a printer removed; its jobs keep their history (target: the printer record)',
  'printers.test': 'a test page queued (target: the printer record)',
  'destinations.create': 'a destination made (target: its name)',
  'destinations.set': "a destination's printers or mode changed (target: its name)",
  'destinations.delete': 'a destination deleted (target: its name)',
  'webhooks.create': 'a webhook made by an application (target: the webhook)',
  'webhooks.test': 'a test event queued for a webhook (target: the webhook)',
  'webhooks.enable': 'a webhook disabled for failing enabled again (target: the webhook)',
  'webhooks.delete': 'a webhook deleted (target: the webhook)',
  'images.put': "a project's stored image uploaded or replaced (target: its name)",
  'images.delete': "a project's stored image deleted (target: its name)",
  'jobs.cancel': 'an operator cancelled a job (target: the job)',
  'jobs.reprint': 'an operator reprinted a job (target: the job reprinted)',
  'settings.set': 'settings changed (target: "name value" of each one changed, as printhub settings set names them)',
  backup: "a backup of the hub's data written (target: the file)",
  'backup.download': 'a backup downloaded from the dashboard (target: the file name)',
  'hub.upgrade': 'the hub started with another printhub or brought its database up to date',
  'hub.clock':
    'the system clock jumped; what waited (expiry, retries, sessions, codes) kept its time left (target: "from → to")',
} as const

export type AuditAction = keyof typeof AUDIT_ACTIONS
