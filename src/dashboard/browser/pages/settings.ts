// Settings: the hub's own (unless pinned by its environment), and a backup to download. Each
// account's own password, browsers and tokens are on its own page (me.ts).
import type { SettingName, SettingsAnswer } from '../../../protocol/admin/settings.ts'
import { api } from '../api.ts'
import { config, t } from '../config.ts'
import { announce, errorBox, field, h, replace } from '../dom.ts'
import { form, heading, live, type Page } from './page.ts'

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
      h('h2', {}, t.settings.backup),
      h('p', { class: 'intro' }, t.settings.backupIntro),
      h('a', { class: 'button', href: `${config.api}/backup`, download: '' }, t.settings.download),
    )
    replace(main, ...heading(t.pages.settings), problem, hubArea, backupArea)
    let hubFormShown = false
    const load = async () => {
      const { settings, pinned } = await api<SettingsAnswer>('GET', '/settings')
      if (!hubFormShown) {
        hubFormShown = true
        const locked = (name: SettingName) => (pinned.includes(name) ? t.settings.locked : undefined)
        const input = (name: keyof SettingsAnswer['settings'], attributes: Record<string, string | boolean>) =>
          h('input', {
            name,
            value: String(settings[name]),
            disabled: pinned.includes(name),
            required: true,
            ...attributes,
          })
        replace(
          hubArea,
          h('h2', {}, t.settings.hub),
          form(
            [
              field(
                t.settings.serverName,
                input('serverName', { maxlength: '64' }),
                locked('serverName') ?? t.settings.serverNameHint,
              ),
              field(
                t.settings.retryFirst,
                input('retryInitialMs', {
                  type: 'number',
                  min: '0.1',
                  step: '0.1',
                  value: String(settings.retryInitialMs / 1000),
                }),
                locked('retryInitialMs') ?? t.settings.retryFirstHint,
              ),
              field(
                t.settings.retryMax,
                input('retryMaxMs', {
                  type: 'number',
                  min: '0.1',
                  step: '0.1',
                  value: String(settings.retryMaxMs / 1000),
                }),
                locked('retryMaxMs'),
              ),
              field(
                t.settings.openJobs,
                input('maxOpenJobsPerProject', { type: 'number', min: '1' }),
                locked('maxOpenJobsPerProject'),
              ),
              field(
                t.settings.retention,
                input('retentionDays', { type: 'number', min: '1', max: '3650' }),
                locked('retentionDays') ?? t.settings.retentionHint,
              ),
              field(
                t.settings.history,
                input('historyMbPerProject', { type: 'number', min: '1' }),
                locked('historyMbPerProject') ?? t.settings.historyHint,
              ),
              field(t.settings.minFree, input('minFreeMb', { type: 'number', min: '1' }), locked('minFreeMb')),
              field(
                t.settings.backupDir,
                input('backupDir', { required: false, placeholder: '/var/backups/printhub' }),
                locked('backupDir') ?? t.settings.backupDirHint,
              ),
              field(
                t.settings.backupKeep,
                input('backupKeep', { type: 'number', min: '1', max: '365' }),
                locked('backupKeep') ?? t.settings.backupKeepHint,
              ),
            ],
            t.settings.save,
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
              announce(t.settings.saved)
            },
            { 'aria-label': t.settings.formLabel },
          ),
        )
      }
    }
    const view = live(load, problem)
    return view
  },
}
