// Projects and their API keys: creating both (a key's secret is shown once) and revoking keys.
import type { ApiKey } from '../../../store/api-keys.ts'
import type { Project } from '../../../store/projects.ts'
import { api } from '../api.ts'
import { config } from '../config.ts'
import { announce, empty, errorBox, field, h, replace, secretBox, time } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'

function keyTable(keys: ApiKey[], problem: HTMLElement): HTMLElement {
  if (keys.length === 0) return empty('No API keys yet.')
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0' },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, 'API keys'),
      h('thead', {}, h('tr', {}, ...['Key', 'Name', 'Scopes', 'Created', 'Last used', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...keys.map((k) =>
          h(
            'tr',
            { 'data-key': k.keyPrefix },
            h('td', {}, h('code', {}, `${k.keyPrefix}…`)),
            h('td', {}, k.name ?? ''),
            h('td', {}, k.scopes.join(', ')),
            h('td', {}, time(k.createdAt)),
            h('td', {}, k.lastUsedAt ? time(k.lastUsedAt) : 'never'),
            h('td', {}, k.revokedAt ? h('span', { class: 'badge muted' }, 'Revoked') : action('Revoke', () => api('POST', `/keys/${k.id}/revoke`), problem, { danger: true, confirmation: `Revoke key ${k.keyPrefix}…? Applications using it are refused at once.` })),
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
    const create = form([field('Project name', h('input', { name: 'name', required: true, maxlength: '256' }))], 'Create project', async (values, element) => {
      await api('POST', '/projects', { name: values.name })
      element.reset()
      announce(`Created project ${values.name}`)
      view.refresh()
    }, { 'aria-label': 'Create a project' })
    replace(main, ...heading('Projects & API keys', 'Each application gets a project key; its secret is shown once.'), problem, list, h('section', { class: 'card' }, h('h2', {}, 'New project'), create))
    const keyForm = (project: Project) =>
      form(
        [
          field('Key name', h('input', { name: 'name', placeholder: 'POS back end', maxlength: '256' })),
          h('fieldset', {}, h('legend', {}, 'Scopes'), ...config.apiKeyScopes.map((scope) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: `scope:${scope}`, value: scope, checked: true }), ` ${scope}`))),
        ],
        'Create key',
        async (values, element) => {
          const scopes = Object.keys(values).filter((k) => k.startsWith('scope:')).map((k) => k.slice(6))
          const { secret } = await api<{ secret: string }>('POST', `/projects/${project.id}/keys`, { name: values.name || null, scopes })
          element.reset()
          secrets.set(project.id, secretBox('API key', secret))
          view.refresh()
        },
        { 'aria-label': `Create an API key for ${project.name}` },
      )
    const forms = new Map<string, HTMLFormElement>()
    const load = async (changed: (data: unknown) => boolean) => {
      const { projects } = await api<{ projects: Project[] }>('GET', '/projects')
      const keys = await Promise.all(projects.map((p) => api<{ keys: ApiKey[] }>('GET', `/projects/${p.id}/keys`)))
      if (!changed([projects, keys, [...secrets.keys()]])) return
      replace(
        list,
        projects.length === 0
          ? empty('No projects yet.')
          : projects.map((project, i) => {
              if (!forms.has(project.id)) forms.set(project.id, keyForm(project))
              return h(
                'section',
                { class: 'card', 'data-project': project.name },
                h('h2', {}, project.name),
                h('p', { class: 'intro' }, 'Project ID ', h('code', {}, project.id), ` · ${project.openJobs} unfinished jobs`),
                secrets.get(project.id) ?? null,
                keyTable(keys[i]!.keys, problem),
                h('details', {}, h('summary', {}, 'New API key'), forms.get(project.id)!),
              )
            }),
      )
    }
    const view = live(load, problem)
    return view
  },
}
