// Settings: the hub's own (unless pinned by its environment), the admin password, signed-in
// browsers and admin tokens.
import type { AdminSession } from '../../../store/admin-sessions.ts'
import type { AdminToken } from '../../../store/admin-tokens.ts'
import { api } from '../api.ts'
import { config } from '../config.ts'
import { announce, empty, errorBox, field, h, replace, secretBox, time } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'

interface SettingsAnswer {
  settings: { serverName: string; retryInitialMs: number; retryMaxMs: number; maxOpenJobsPerProject: number; retentionDays: number; historyMbPerProject: number; minFreeMb: number; backupDir: string; backupKeep: number }
  pinned: string[]
}

export const settingsPage: Page = {
  path: 'settings',
  title: 'Settings',
  role: 'technician',
  render(main) {
    const problem = errorBox()
    const hubArea = h('section', { class: 'card' })
    const sessionsArea = h('section', { class: 'card' })
    const tokensArea = h('section', { class: 'card' })
    const tokenSecret = h('div', {})
    // A plain link: the browser streams the file to the disk, with the session's cookie (a GET needs no CSRF token).
    const backupArea = h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Backup'),
      h('p', { class: 'intro' }, 'A fresh backup of the hub: every job, API key (hashed), agent and printer, with the built-in agent’s private key. Keep the file like a key. Restore it with printhub restore FILE --data DIR.'),
      h('a', { class: 'button', href: `${config.api}/backup`, download: '' }, 'Download a backup'),
    )
    const password = form(
      [
        field('Current password', h('input', { type: 'password', name: 'currentPassword', required: true, autocomplete: 'current-password' })),
        field('New password', h('input', { type: 'password', name: 'newPassword', required: true, minlength: '10', autocomplete: 'new-password' }), 'At least 10 characters. Other signed-in browsers are signed out.'),
      ],
      'Change password',
      async (values, element) => {
        await api('PUT', '/password', values)
        element.reset()
        announce('Password changed')
      },
      { 'aria-label': 'Change the admin password' },
    )
    const tokenForm = form([field('Token name', h('input', { name: 'name', required: true, placeholder: 'backup script' }))], 'Create admin token', async (values, element) => {
      const { secret } = await api<{ secret: string }>('POST', '/tokens', { name: values.name })
      element.reset()
      replace(tokenSecret, secretBox('Admin token', secret))
      view.refresh()
    })
    replace(main, ...heading('Settings'), problem, hubArea, backupArea, h('section', { class: 'card' }, h('h2', {}, 'Admin password'), password), sessionsArea, tokensArea)
    let hubFormShown = false
    const load = async (changed: (data: unknown) => boolean) => {
      const [{ settings, pinned }, { sessions }, { tokens }] = await Promise.all([
        api<SettingsAnswer>('GET', '/settings'),
        api<{ sessions: (AdminSession & { current: boolean })[] }>('GET', '/sessions'),
        api<{ tokens: AdminToken[] }>('GET', '/tokens'),
      ])
      // A new token's secret is shown until the page is left, so a new token always draws.
      if (!changed([sessions, tokens])) return
      if (!hubFormShown) {
        hubFormShown = true
        const locked = (name: string) => (pinned.includes(name) ? 'Set in the hub’s environment; change it there.' : undefined)
        const input = (name: keyof SettingsAnswer['settings'], attributes: Record<string, string | boolean>) => h('input', { name, value: String(settings[name]), disabled: pinned.includes(name), required: true, ...attributes })
        replace(
          hubArea,
          h('h2', {}, 'Hub'),
          form(
            [
              field('Server name', input('serverName', { maxlength: '64' }), locked('serverName') ?? 'Shown to agents and on test pages.'),
              field('First retry after (seconds)', input('retryInitialMs', { type: 'number', min: '0.1', step: '0.1', value: String(settings.retryInitialMs / 1000) }), locked('retryInitialMs') ?? 'A failed attempt is retried after this, doubling each time.'),
              field('Longest wait between retries (seconds)', input('retryMaxMs', { type: 'number', min: '0.1', step: '0.1', value: String(settings.retryMaxMs / 1000) }), locked('retryMaxMs')),
              field('Unfinished jobs per project, at most', input('maxOpenJobsPerProject', { type: 'number', min: '1' }), locked('maxOpenJobsPerProject')),
              field('Keep finished jobs for (days)', input('retentionDays', { type: 'number', min: '1', max: '3650' }), locked('retentionDays') ?? 'Older printed, failed, expired and cancelled jobs are deleted with their receipts.'),
              field('Keep at most this much of each project’s finished jobs (MB)', input('historyMbPerProject', { type: 'number', min: '1' }), locked('historyMbPerProject') ?? 'Past it, that project’s oldest finished jobs are deleted first.'),
              field('Take no new job below this much free disk (MB)', input('minFreeMb', { type: 'number', min: '1' }), locked('minFreeMb')),
              field('Daily backups into (directory on the hub)', input('backupDir', { required: false, placeholder: '/var/backups/printhub' }), locked('backupDir') ?? 'An absolute path; empty for no daily backups.'),
              field('Daily backups kept', input('backupKeep', { type: 'number', min: '1', max: '365' }), locked('backupKeep') ?? 'The oldest of the hub’s own backups there are deleted; other files are left alone.'),
            ],
            'Save settings',
            async (values) => {
              const change: Record<string, unknown> = {}
              if ('serverName' in values) change.serverName = values.serverName
              if ('retryInitialMs' in values) change.retryInitialMs = Math.round(Number(values.retryInitialMs) * 1000)
              if ('retryMaxMs' in values) change.retryMaxMs = Math.round(Number(values.retryMaxMs) * 1000)
              if ('maxOpenJobsPerProject' in values) change.maxOpenJobsPerProject = Number(values.maxOpenJobsPerProject)
              if ('retentionDays' in values) change.retentionDays = Number(values.retentionDays)
              if ('historyMbPerProject' in values) change.historyMbPerProject = Number(values.historyMbPerProject)
              if ('minFreeMb' in values) change.minFreeMb = Number(values.minFreeMb)
              if ('backupDir' in values) change.backupDir = values.backupDir!.trim()
              if ('backupKeep' in values) change.backupKeep = Number(values.backupKeep)
              await api('PUT', '/settings', change)
              announce('Settings saved')
            },
            { 'aria-label': 'Hub settings' },
          ),
        )
      }
      replace(
        sessionsArea,
        h('h2', {}, 'Signed-in browsers'),
        h(
          'ul',
          { class: 'plain' },
          ...sessions.map((s) =>
            h('li', { class: 'row spread' }, h('span', {}, `${s.userAgent.slice(0, 60) || 'Unknown browser'} from ${s.address}, since ${time(s.createdAt)}`, s.current ? h('strong', {}, ' (this one)') : null), s.current ? null : action('Sign out', () => api('POST', `/sessions/${s.id}/revoke`), problem)),
          ),
        ),
        sessions.some((s) => !s.current) ? action('Sign out everywhere else', () => api('POST', '/sessions/revoke-others'), problem, { danger: true, confirmation: 'Sign out every other browser?' }) : null,
      )
      replace(
        tokensArea,
        h('h2', {}, 'Admin tokens'),
        h('p', { class: 'intro' }, 'For scripts that use the admin API: send "Authorization: Bearer <token>".'),
        tokenSecret,
        tokens.length === 0
          ? empty('No admin tokens.')
          : h('ul', { class: 'plain' }, ...tokens.map((t) => h('li', { class: 'row spread' }, h('span', {}, h('code', {}, `${t.tokenPrefix}…`), ` ${t.name}, last used ${t.lastUsedAt ? time(t.lastUsedAt) : 'never'}`), t.revokedAt ? h('span', { class: 'badge muted' }, 'Revoked') : action('Revoke', () => api('POST', `/tokens/${t.id}/revoke`), problem, { danger: true, confirmation: `Revoke token ${t.name}?` })))),
        tokenForm,
      )
    }
    const view = live(load, problem)
    return view
  },
}
