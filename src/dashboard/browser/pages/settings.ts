// Settings: the hub's own (unless pinned by its environment), and a backup to download. Each
// account's own password, browsers and tokens are on its own page (me.ts).
import { api } from '../api.ts'
import { config } from '../config.ts'
import { announce, errorBox, field, h, replace } from '../dom.ts'
import { form, heading, live, type Page } from './page.ts'

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
    // A plain link: the browser streams the file to the disk, with the session's cookie (a GET needs no CSRF token).
    const backupArea = h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Backup'),
      h('p', { class: 'intro' }, 'A fresh backup of the hub: every job, API key (hashed), agent and printer, with the built-in agent’s private key. Keep the file like a key. Restore it with printhub restore FILE --data DIR.'),
      h('a', { class: 'button', href: `${config.api}/backup`, download: '' }, 'Download a backup'),
    )
    replace(main, ...heading('Settings'), problem, hubArea, backupArea)
    let hubFormShown = false
    const load = async () => {
      const { settings, pinned } = await api<SettingsAnswer>('GET', '/settings')
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
    }
    const view = live(load, problem)
    return view
  },
}
