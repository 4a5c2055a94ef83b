// Projects and their API keys: creating both (a key's secret is shown once) and revoking keys.
import type { AdminApiKey as ApiKey, AdminProject as Project } from '../../../protocol/admin/projects.ts'
import { api } from '../api.ts'
import { config, t } from '../config.ts'
import { announce, empty, errorBox, field, fill, h, replace, secretBox, time } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'

function keyTable(keys: ApiKey[], problem: HTMLElement): HTMLElement {
  if (keys.length === 0) return empty(t.projects.noKeys)
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0' },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, t.projects.keys),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[t.projects.key, t.printers.name, t.projects.scopes, t.projects.createdAt, t.projects.lastUsed, ''].map(
            (t) => h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        ...keys.map((k) =>
          h(
            'tr',
            { 'data-key': k.keyPrefix },
            h('td', {}, h('code', {}, `${k.keyPrefix}…`)),
            h('td', {}, k.name ?? ''),
            h('td', {}, ...k.scopes.flatMap((scope, i) => [i > 0 ? ', ' : null, h('code', {}, scope)])),
            h('td', {}, time(k.createdAt)),
            h('td', {}, k.lastUsedAt ? time(k.lastUsedAt) : t.projects.never),
            h(
              'td',
              {},
              k.revokedAt
                ? h('span', { class: 'badge muted' }, t.projects.revoked)
                : action(t.projects.revoke, () => api('POST', `/keys/${k.id}/revoke`), problem, {
                    danger: true,
                    confirmation: fill(t.projects.revokeAsk, { key: `${k.keyPrefix}…` }),
                  }),
            ),
          ),
        ),
      ),
    ),
  )
}

export const projectsPage: Page = {
  path: 'projects',
  title: 'Projects & keys',
  role: 'technician',
  render(main) {
    const problem = errorBox()
    const list = h('div', {})
    const secrets = new Map<string, HTMLElement>()
    const create = form(
      [field(t.projects.name, h('input', { name: 'name', required: true, maxlength: '256' }))],
      t.projects.create,
      async (values, element) => {
        await api('POST', '/projects', { name: values.name })
        element.reset()
        announce(fill(t.projects.created, { name: values.name! }))
        view.refresh()
      },
      { 'aria-label': t.projects.createLabel },
    )
    replace(
      main,
      ...heading(t.pages.projects, t.projects.intro),
      problem,
      list,
      h('section', { class: 'card' }, h('h2', {}, t.projects.newTitle), create),
    )
    const keyForm = (project: Project) =>
      form(
        [
          field(
            t.projects.keyName,
            h('input', { name: 'name', placeholder: t.projects.keyPlaceholder, maxlength: '256' }),
          ),
          h(
            'fieldset',
            {},
            h('legend', {}, t.projects.scopes),
            ...config.apiKeyScopes.map((scope) =>
              h(
                'label',
                { class: 'check' },
                h('input', { type: 'checkbox', name: `scope:${scope}`, value: scope, checked: true }),
                ' ',
                h('code', {}, scope),
              ),
            ),
          ),
        ],
        t.projects.createKey,
        async (values, element) => {
          const scopes = Object.keys(values)
            .filter((k) => k.startsWith('scope:'))
            .map((k) => k.slice(6))
          const { secret } = await api<{ secret: string }>('POST', `/projects/${project.id}/keys`, {
            name: values.name || null,
            scopes,
          })
          element.reset()
          secrets.set(project.id, secretBox(t.projects.secret, secret))
          view.refresh()
        },
        { 'aria-label': fill(t.projects.createKeyLabel, { project: project.name }) },
      )
    const forms = new Map<string, HTMLFormElement>()
    const load = async (changed: (data: unknown) => boolean) => {
      const { projects } = await api<{ projects: Project[] }>('GET', '/projects')
      const keys = await Promise.all(projects.map((p) => api<{ keys: ApiKey[] }>('GET', `/projects/${p.id}/keys`)))
      if (!changed([projects, keys, [...secrets.keys()]])) return
      replace(
        list,
        projects.length === 0
          ? empty(t.projects.none)
          : projects.map((project, i) => {
              if (!forms.has(project.id)) forms.set(project.id, keyForm(project))
              return h(
                'section',
                { class: 'card', 'data-project': project.name },
                h('h2', {}, project.name),
                h(
                  'p',
                  { class: 'intro' },
                  `${t.projects.id} `,
                  h('code', {}, project.id),
                  ` · ${fill(t.projects.unfinished, { n: project.openJobs })}`,
                ),
                secrets.get(project.id) ?? null,
                keyTable(keys[i]!.keys, problem),
                h('details', {}, h('summary', {}, t.projects.newKey), forms.get(project.id)!),
              )
            }),
      )
    }
    const view = live(load, problem)
    return view
  },
}
