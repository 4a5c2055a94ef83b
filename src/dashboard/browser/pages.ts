// The dashboard's pages. Each builds its forms once and fills its lists from the admin API, again
// whenever the hub says something changed.
import type { AdminSession } from '../../store/admin-sessions.ts'
import type { AdminToken } from '../../store/admin-tokens.ts'
import type { AgentRecord } from '../../store/agents.ts'
import type { ApiKey } from '../../store/api-keys.ts'
import type { JobEvent } from '../../store/jobs.ts'
import type { PrinterStateChange } from '../../store/printer-states.ts'
import type { Project } from '../../store/projects.ts'
import type { Job } from '../../protocol/job.ts'
import type { PrintDocument } from '../../protocol/document.ts'
import type { PrinterView } from '../../services/printer-board.ts'
import type { Overview } from '../../services/overview.ts'
import type { DetectedPrinter } from '../../transports/detect.ts'
import { api } from './api.ts'
import { announce, badge, duration, empty, errorBox, field, formValues, h, replace, secretBox, select, showError, time } from './dom.ts'

type AgentView = AgentRecord & { online: boolean; printers: { id: string; name: string; availability: string; enabled: boolean; kind: string }[] }
interface Profile {
  id: string
  name: string
  paperWidths: number[]
  defaultWidth: number
}

export interface Page {
  path: string
  title: string
  render(main: HTMLElement, params: string[], overview: unknown): { refresh: (overview: unknown) => void; stop: () => void }
}

const JOB_STATES = ['PENDING', 'DISPATCHING', 'DELIVERED', 'PRINTING', 'COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED']

/**
 * A page's lists, loaded now and again on every change (at most one load at a time). `load` asks
 * `changed(data)` before drawing: what did not change is not drawn again, so a button being
 * pressed or a control with the keyboard's focus is never swapped out from under the user.
 */
function live(load: (changed: (data: unknown) => boolean) => Promise<void>, problem: HTMLElement) {
  let shown: string | undefined
  const changed = (data: unknown) => {
    const text = JSON.stringify(data)
    if (text === shown) return false
    shown = text
    return true
  }
  let running = false
  let again = false
  let stopped = false
  const run = async () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = true
    try {
      await load(changed)
      showError(problem, null)
    } catch (error) {
      showError(problem, (error as Error).message)
    } finally {
      running = false
      if (again) {
        again = false
        void run()
      }
    }
  }
  void run()
  return { refresh: () => void run(), stop: () => void (stopped = true) }
}

/** A form that posts its values with `submit`, shows what went wrong, and is reset when it went right. */
function form(content: (HTMLElement | null)[], submitLabel: string, submit: (values: Record<string, string>, form: HTMLFormElement) => Promise<void>, attributes: Record<string, string> = {}): HTMLFormElement {
  const error = errorBox()
  const button = h('button', { type: 'submit' }, submitLabel)
  const element = h('form', attributes, ...content, error, h('div', { class: 'actions' }, button))
  element.addEventListener('submit', async (event) => {
    event.preventDefault()
    button.disabled = true
    showError(error, null)
    try {
      await submit(formValues(element), element)
    } catch (problem) {
      showError(error, (problem as Error).message)
    } finally {
      button.disabled = false
    }
  })
  return element
}

/** A button that runs `action`, asking first when `confirmation` is given; a failure shows in `problem`. */
function action(label: string, run: () => Promise<unknown>, problem: HTMLElement, options: { confirmation?: string; danger?: boolean } = {}): HTMLButtonElement {
  const button = h('button', { type: 'button', class: options.danger ? 'danger' : 'secondary' }, label)
  button.addEventListener('click', async () => {
    if (options.confirmation && !confirm(options.confirmation)) return
    button.disabled = true
    showError(problem, null)
    try {
      await run()
    } catch (error) {
      showError(problem, (error as Error).message)
    } finally {
      button.disabled = false
    }
  })
  return button
}

function heading(title: string, intro?: string): HTMLElement[] {
  const nodes: HTMLElement[] = [h('h1', {}, title)]
  if (intro) nodes.push(h('p', { class: 'intro' }, intro))
  return nodes
}

const projectOptions = (projects: Project[]): [string, string][] => projects.map((p) => [p.id, p.name])
const printerLabel = (p: { name: string | null; remoteId: string }) => (p.name ? `${p.name} (${p.remoteId})` : p.remoteId)

// ---- Overview ----

const overviewPage: Page = {
  path: 'overview',
  title: 'Overview',
  render(main, _params, initial) {
    const hub = h('section', { class: 'card', 'aria-labelledby': 'hub-h' })
    const printers = h('section', { class: 'card', 'aria-labelledby': 'printers-h' })
    const jobs = h('section', { class: 'card', 'aria-labelledby': 'jobs-h' })
    const problem = errorBox()
    replace(main, ...heading('Overview'), problem, h('div', { class: 'grid' }, hub, jobs), printers)
    let startedAt = 0
    const uptime = h('dd', {})
    const tick = setInterval(() => (uptime.textContent = startedAt ? duration(Date.now() - startedAt) : '—'), 1_000)
    const show = (o: Overview) => {
      startedAt = Date.parse(o.hub.startedAt)
      uptime.textContent = duration(Date.now() - startedAt)
      replace(
        hub,
        h('h2', { id: 'hub-h' }, o.hub.serverName),
        h(
          'dl',
          {},
          h('dt', {}, 'Health'),
          h('dd', {}, h('span', { class: 'badge good' }, 'Running')),
          h('dt', {}, 'Version'),
          h('dd', {}, `${o.hub.version} (${o.hub.commit.slice(0, 12)})`),
          h('dt', {}, 'Uptime'),
          uptime,
          h('dt', {}, 'Address'),
          h('dd', {}, h('a', { href: o.hub.url }, o.hub.url)),
          h('dt', {}, 'LAN addresses'),
          h('dd', {}, o.hub.addresses.join(', ') || 'none'),
          h('dt', {}, 'Agents online'),
          h('dd', { 'data-testid': 'agents-online' }, `${o.agents.online} of ${o.agents.paired}`),
        ),
      )
      replace(
        jobs,
        h('h2', { id: 'jobs-h' }, 'Jobs in the last hour'),
        h('ul', { class: 'counts' }, ...Object.entries(o.jobsLastHour).map(([state, count]) => h('li', { 'data-state': state }, badge(state), h('span', { class: 'count' }, count)))),
      )
      replace(
        printers,
        h('h2', { id: 'printers-h' }, 'Printers'),
        o.printers.length === 0
          ? empty('No printers yet. Add one on the Printers page.')
          : h(
              'ul',
              { class: 'tiles' },
              ...o.printers.map((p) =>
                h('li', { class: 'tile', 'data-printer': p.remoteId }, h('strong', {}, printerLabel(p)), badge(p.state), h('span', {}, `${p.queue} waiting`), p.agentOnline ? null : h('small', {}, `Agent ${p.agentName} is not connected`)),
              ),
            ),
      )
    }
    const view = live(async () => show(await api<Overview>('GET', '/overview')), problem)
    if (initial) show(initial as Overview)
    return {
      refresh: (o) => (o ? show(o as Overview) : view.refresh()),
      stop: () => {
        clearInterval(tick)
        view.stop()
      },
    }
  },
}

// ---- Printers ----

const CONNECTION_KINDS: [string, string][] = [
  ['tcp', 'Network (TCP, port 9100)'],
  ['serial', 'Serial port'],
  ['usb', 'USB'],
  ['virtual', 'Virtual (prints nowhere; for trying things out)'],
  ['agent', "A paired agent's printer"],
]

function connectionFields(kind: string, detected: DetectedPrinter[], agents: AgentView[]): HTMLElement[] {
  switch (kind) {
    case 'tcp':
      return [field('Printer address', h('input', { name: 'host', required: true, placeholder: '192.168.1.50', autocomplete: 'off' })), field('Port', h('input', { name: 'port', type: 'number', value: '9100', min: '1', max: '65535' }))]
    case 'serial':
    case 'usb': {
      const found = detected.filter((d) => d.kind === kind)
      return [
        field(
          kind === 'serial' ? 'Serial port' : 'USB printer',
          found.length > 0
            ? select('device', found.map((d) => [d.connection, `${d.connection}${d.usb?.product ? ` (${d.usb.product})` : ''}`]))
            : h('input', { name: 'device', required: true, placeholder: kind === 'serial' ? 'serial:///dev/ttyUSB0?baud=38400&flow=rtscts' : 'usb:///dev/usb/lp0' }),
          found.length > 0 ? 'Found on this machine.' : `Nothing found plugged in; type the connection (see docs/attaching-printers.md).`,
        ),
      ]
    }
    case 'virtual':
      return [field('Virtual printer name', h('input', { name: 'virtualName', value: 'test', pattern: '[A-Za-z0-9._-]+' }))]
    default: {
      const options = agents.filter((a) => !a.builtin && !a.revokedAt).flatMap((a) => a.printers.map((p): [string, string] => [`${a.id} ${p.id}`, `${p.name} on ${a.name}${a.online ? '' : ' (offline)'}`]))
      return [field("Agent's printer", options.length > 0 ? select('agentPrinter', options) : h('input', { name: 'agentPrinter', disabled: true, value: 'No paired agent has reported printers' }))]
    }
  }
}

function connectionOf(kind: string, values: Record<string, string>): Record<string, string> {
  switch (kind) {
    case 'tcp':
      return { connection: `tcp://${values.host}:${values.port || '9100'}` }
    case 'serial':
    case 'usb':
      return { connection: values.device ?? '' }
    case 'virtual':
      return { connection: values.virtualName ? `virtual://${values.virtualName}` : 'virtual' }
    default: {
      const [agentId = '', agentPrinterId = ''] = (values.agentPrinter ?? '').split(' ')
      return { agentId, agentPrinterId }
    }
  }
}

function printerCard(p: PrinterView, projects: Project[], profiles: Profile[], problem: HTMLElement): HTMLElement {
  const details = h('div', { class: 'printer-details', hidden: true })
  const showDetails = async () => {
    details.hidden = !details.hidden
    if (details.hidden) return
    const { states } = await api<{ states: PrinterStateChange[] }>('GET', `/printers/${p.id}/history`)
    const image = h('img', { src: `/admin/v1/printers/${p.id}/last-receipt.png?at=${Date.now()}`, alt: `The last receipt ${printerLabel(p)} printed`, class: 'receipt' })
    image.addEventListener('error', () => image.replaceWith(empty('Nothing printed yet.')))
    replace(
      details,
      h('h3', {}, 'Status history'),
      states.length === 0 ? empty('No changes recorded yet.') : h('ol', { class: 'history' }, ...states.map((s) => h('li', {}, badge(s.state), ' since ', time(s.at)))),
      h('h3', {}, 'Last receipt'),
      image,
    )
  }
  const edit = h('div', { hidden: true })
  const editForm = () =>
    form(
      [
        field('Name', h('input', { name: 'name', value: p.name ?? '' })),
        p.builtin ? field('Connection', h('input', { name: 'connection', value: p.connection, required: true })) : null,
        field('Model', select('profile', profiles.map((x) => [x.id, x.name]), p.profile)),
        field('Paper width (mm)', select('width', [['80', '80'], ['58', '58']], String(p.width))),
      ],
      'Save',
      async (values) => {
        await api('PATCH', `/printers/${p.id}`, { name: values.name || null, ...(p.builtin ? { connection: values.connection } : {}), profile: values.profile, width: Number(values.width) })
        announce(`Saved printer ${p.remoteId}`)
        edit.hidden = true
      },
    )
  const project = projects.find((x) => x.id === p.projectId)
  return h(
    'li',
    { class: 'card printer', 'data-printer': p.remoteId },
    h('div', { class: 'row spread' }, h('h2', {}, printerLabel(p)), badge(p.state)),
    h(
      'dl',
      { class: 'compact' },
      h('dt', {}, 'Project'),
      h('dd', {}, project?.name ?? p.projectId),
      h('dt', {}, 'Waiting'),
      h('dd', {}, `${p.queue} job${p.queue === 1 ? '' : 's'}`),
      h('dt', {}, 'Connection'),
      h('dd', {}, p.builtin ? p.connection : `${p.connection} via ${p.agentName}${p.agentOnline ? '' : ' (not connected)'}`),
      h('dt', {}, 'Model'),
      h('dd', {}, `${profiles.find((x) => x.id === p.profile)?.name ?? p.profile}, ${p.width} mm`),
    ),
    h(
      'div',
      { class: 'actions' },
      action('Test print', async () => {
        await api('POST', `/printers/${p.id}/test`)
        announce(`Test page sent to ${p.remoteId}`)
      }, problem),
      action('Edit', async () => {
        edit.hidden = !edit.hidden
        if (!edit.hidden) replace(edit, editForm())
      }, problem),
      action('History and last receipt', showDetails, problem),
      action('Remove', () => api('DELETE', `/printers/${p.id}`), problem, { danger: true, confirmation: `Remove printer ${p.remoteId}? Its jobs keep their history; applications can no longer print on it.` }),
    ),
    edit,
    details,
  )
}

const printersPage: Page = {
  path: 'printers',
  title: 'Printers',
  render(main) {
    const problem = errorBox()
    const list = h('ul', { class: 'cards' })
    const addArea = h('section', { class: 'card', 'aria-labelledby': 'add-h' })
    replace(main, ...heading('Printers', "Every printer applications can print on, with what it says about itself."), problem, list, addArea)
    let projects: Project[] = []
    let profiles: Profile[] = []
    const load = async (changed: (data: unknown) => boolean) => {
      const { printers } = await api<{ printers: PrinterView[] }>('GET', '/printers')
      // Open edit forms and details stay as they are while nothing about the printers changed.
      if (!changed([printers, projects.length, profiles.length])) return
      replace(list, printers.length === 0 ? empty('No printers yet. Add the first one below.') : printers.map((p) => printerCard(p, projects, profiles, problem)))
    }
    const setUp = async () => {
      ;[{ projects }, { profiles }] = await Promise.all([api<{ projects: Project[] }>('GET', '/projects'), api<{ profiles: Profile[] }>('GET', '/profiles')])
      const [{ printers: detected }, { agents }] = await Promise.all([api<{ printers: DetectedPrinter[] }>('GET', '/printers/detect'), api<{ agents: AgentView[] }>('GET', '/agents')])
      const kind = select('kind', CONNECTION_KINDS, 'tcp')
      const kindFields = h('div', {})
      const profile = select('profile', profiles.map((x) => [x.id, x.name]), 'generic-80mm')
      const showKind = () => replace(kindFields, connectionFields(kind.value, detected, agents))
      kind.addEventListener('change', showKind)
      kindFields.addEventListener('change', (event) => {
        const found = detected.find((d) => d.connection === (event.target as HTMLSelectElement).value)
        if (found?.suggestedProfile) profile.value = found.suggestedProfile
      })
      showKind()
      replace(
        addArea,
        h('h2', { id: 'add-h' }, 'Add a printer'),
        form(
          [
            field('Project', select('projectId', projectOptions(projects))),
            field('Printer ID', h('input', { name: 'id', required: true, placeholder: 'kitchen', pattern: '[A-Za-z0-9][A-Za-z0-9._:-]*' }), 'The name applications print to (printerId): letters, digits, . _ : -'),
            field('Name', h('input', { name: 'name', placeholder: 'Kitchen printer' })),
            field('Connection', kind),
            kindFields,
            field('Model', profile),
            field('Paper width (mm)', select('width', [['80', '80'], ['58', '58']], '80')),
          ],
          'Add printer',
          async (values, element) => {
            const { printer } = await api<{ printer: PrinterView }>('POST', '/printers', {
              projectId: values.projectId,
              id: values.id,
              name: values.name || null,
              profile: values.profile,
              width: Number(values.width),
              ...connectionOf(kind.value, values),
            })
            announce(`Added printer ${printer.remoteId}`)
            element.reset()
            showKind()
            view.refresh()
          },
          { 'aria-label': 'Add a printer' },
        ),
      )
    }
    const view = live(load, problem)
    // The cards name projects and models: drawn again once those are known.
    setUp()
      .then(view.refresh)
      .catch((error) => showError(problem, (error as Error).message))
    return { refresh: view.refresh, stop: view.stop }
  },
}

// ---- Jobs ----

interface JobDetail {
  job: Job
  timeline: JobEvent[]
  printer: { id: string; remoteId: string; name: string | null } | null
  document: PrintDocument | null
}

const EVENT_WORDS: Record<string, string> = {
  PENDING: 'Waiting',
  DISPATCHING: 'Sent to the agent',
  DELIVERED: 'The agent has it',
  PRINTING: 'Written to the printer',
  COMPLETED: 'Printed',
  FAILED: 'Failed',
  EXPIRED: 'Expired',
  CANCELLED: 'Cancelled',
}

function timelineTable(events: JobEvent[]): HTMLElement {
  return h(
    'table',
    { class: 'timeline' },
    h('caption', {}, 'What happened to the job'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'When'), h('th', { scope: 'col' }, 'Step'), h('th', { scope: 'col' }, 'Attempt'), h('th', { scope: 'col' }, 'After'), h('th', { scope: 'col' }, 'Error'))),
    h(
      'tbody',
      {},
      ...events.map((e, i) => {
        const step = i === 0 ? 'Created' : e.state === 'PENDING' ? 'Attempt failed; waiting to retry' : (EVENT_WORDS[e.state] ?? e.state)
        const after = i === 0 ? '' : duration(Date.parse(e.at) - Date.parse(events[i - 1]!.at))
        return h('tr', { 'data-state': e.state }, h('td', {}, time(e.at)), h('td', {}, step), h('td', {}, e.attempt || ''), h('td', {}, after), h('td', {}, e.errorCode ? h('span', { title: e.errorMessage ?? '' }, e.errorCode) : ''))
      }),
    ),
  )
}

function jobDetail(main: HTMLElement, id: string) {
  const problem = errorBox()
  const body = h('div', {})
  replace(main, h('p', {}, h('a', { href: '#/jobs' }, '← All jobs')), h('h1', {}, 'Job'), problem, body)
  let preview: HTMLImageElement | undefined
  const load = async (changed: (data: unknown) => boolean) => {
    const detail = await api<JobDetail>('GET', `/jobs/${encodeURIComponent(id)}`)
    if (!changed(detail)) return
    const { job } = detail
    preview ??= h('img', { src: `/admin/v1/jobs/${encodeURIComponent(id)}/preview.png`, alt: 'The receipt this job prints', class: 'receipt' })
    const cancellable = ['PENDING', 'DISPATCHING', 'DELIVERED'].includes(job.state)
    replace(
      body,
      h('div', { class: 'row spread' }, h('code', {}, job.id), badge(job.state)),
      h(
        'dl',
        { class: 'compact' },
        h('dt', {}, 'Printer'),
        h('dd', {}, detail.printer ? printerLabel(detail.printer) : job.printerId),
        h('dt', {}, 'Idempotency key'),
        h('dd', {}, job.idempotencyKey),
        h('dt', {}, 'Attempts'),
        h('dd', {}, `${job.attemptCount} of ${job.maxAttempts}`),
        h('dt', {}, 'Expires'),
        h('dd', {}, time(job.expiresAt)),
        job.lastErrorCode ? h('dt', {}, 'Last error') : null,
        job.lastErrorCode ? h('dd', {}, `${job.lastErrorMessage} (${job.lastErrorCode})`) : null,
        job.metadata ? h('dt', {}, 'Metadata') : null,
        job.metadata ? h('dd', {}, Object.entries(job.metadata).map(([k, v]) => h('div', {}, h('code', {}, k), ' ', k === 'reprintOf' ? h('a', { href: `#/jobs/${v}` }, v) : v))) : null,
      ),
      h(
        'div',
        { class: 'actions' },
        cancellable ? action('Cancel job', () => api('POST', `/jobs/${job.id}/cancel`), problem, { danger: true, confirmation: 'Cancel this job? It will not print.' }) : null,
        action('Reprint', async () => {
          const { job: copy } = await api<{ job: Job }>('POST', `/jobs/${job.id}/reprint`)
          announce('Reprint created')
          location.hash = `#/jobs/${copy.id}`
        }, problem),
      ),
      h('div', { class: 'table-wrap' }, timelineTable(detail.timeline)),
      h('h2', {}, 'Receipt'),
      detail.document ? preview : empty('The document is no longer kept.'),
    )
  }
  return live(load, problem)
}

const jobsPage: Page = {
  path: 'jobs',
  title: 'Jobs',
  render(main, params) {
    if (params[0]) return jobDetail(main, params[0])
    const problem = errorBox()
    const list = h('div', { class: 'table-wrap' })
    const filters = h('form', { class: 'filters', 'aria-label': 'Filter jobs' })
    replace(main, ...heading('Jobs', 'Newest first. The list follows what happens, live.'), filters, problem, list)
    let query = ''
    let printers: PrinterView[] = []
    const load = async (changed: (data: unknown) => boolean) => {
      const { jobs, more } = await api<{ jobs: Job[]; more: boolean }>('GET', `/jobs${query}`)
      if (!changed([query, jobs, printers.length])) return
      const printerName = (id: string) => {
        const p = printers.find((x) => x.id === id)
        return p ? printerLabel(p) : id
      }
      replace(
        list,
        jobs.length === 0
          ? empty(query ? 'No jobs match these filters.' : 'No jobs yet. Applications post them to the API with a project key.')
          : h(
              'table',
              { class: 'jobs' },
              h('caption', { class: 'visually-hidden' }, 'Jobs'),
              h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'State'), h('th', { scope: 'col' }, 'Created'), h('th', { scope: 'col' }, 'Printer'), h('th', { scope: 'col' }, 'Job'))),
              h('tbody', {}, ...jobs.map((j) => h('tr', { 'data-job': j.id }, h('td', {}, badge(j.state)), h('td', {}, time(j.createdAt)), h('td', {}, printerName(j.printerId)), h('td', {}, h('a', { href: `#/jobs/${j.id}` }, j.metadata?.reprintOf ? `${j.id} (reprint)` : j.id))))),
            ),
        more ? h('p', { class: 'intro' }, 'Showing the newest 100; narrow the filters to see older jobs.') : null,
      )
    }
    const view = live(load, problem)
    Promise.all([api<{ projects: Project[] }>('GET', '/projects'), api<{ printers: PrinterView[] }>('GET', '/printers')])
      .then(([{ projects }, printerList]) => {
        printers = printerList.printers
        const apply = () => {
          const values = formValues(filters)
          const search = new URLSearchParams()
          if (values.project) search.set('project', values.project)
          if (values.printer) search.set('printer', values.printer)
          if (values.state) search.set('state', values.state)
          if (values.from) search.set('from', new Date(values.from).toISOString())
          if (values.to) search.set('to', new Date(values.to).toISOString())
          query = search.size ? `?${search}` : ''
          view.refresh()
        }
        replace(
          filters,
          field('Project', select('project', [['', 'All projects'], ...projectOptions(projects)])),
          field('Printer', select('printer', [['', 'All printers'], ...printers.map((p): [string, string] => [p.id, printerLabel(p)])])),
          field('State', select('state', [['', 'All states'], ...JOB_STATES.map((s): [string, string] => [s, s])])),
          field('Created from', h('input', { type: 'datetime-local', name: 'from' })),
          field('Created before', h('input', { type: 'datetime-local', name: 'to' })),
        )
        filters.addEventListener('change', apply)
        filters.addEventListener('submit', (event) => event.preventDefault())
        view.refresh()
      })
      .catch((error) => showError(problem, (error as Error).message))
    return view
  },
}

// ---- Projects and API keys ----

function keyTable(keys: ApiKey[], problem: HTMLElement): HTMLElement {
  if (keys.length === 0) return empty('No API keys yet.')
  return h(
    'div',
    { class: 'table-wrap' },
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

const projectsPage: Page = {
  path: 'projects',
  title: 'Projects & keys',
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
          h('fieldset', {}, h('legend', {}, 'Scopes'), ...['jobs:write', 'jobs:read'].map((scope) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: `scope:${scope}`, value: scope, checked: true }), ` ${scope}`))),
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

// ---- Agents and pairing ----

const agentsPage: Page = {
  path: 'agents',
  title: 'Agents & pairing',
  render(main) {
    const problem = errorBox()
    const list = h('div', {})
    const codeArea = h('div', { class: 'pairing', 'aria-live': 'polite' })
    const printOn = select('printOn', [['', "Don't print it"]])
    let countdown: ReturnType<typeof setInterval> | undefined
    const create = form(
      [field('Valid for', select('ttl', [['300', '5 minutes'], ['900', '15 minutes'], ['3600', '1 hour']], '300')), field('Also print it on', printOn)],
      'Create pairing code',
      async (values) => {
        const code = await api<{ code: string; expiresAt: string; command: string; qrSvg: string }>('POST', '/pairing-codes', { ttlSeconds: Number(values.ttl), ...(values.printOn ? { printOn: values.printOn } : {}) })
        const remaining = h('p', { class: 'countdown' })
        const qr = h('div', { class: 'qr', role: 'img', 'aria-label': `QR code of the command: ${code.command}` })
        // The hub's own QR encoder made this SVG; it carries no script.
        qr.innerHTML = code.qrSvg
        replace(codeArea, h('p', {}, 'Pairing code, for one agent, once:'), h('p', { class: 'code', 'data-testid': 'pairing-code' }, code.code), remaining, qr, h('p', {}, 'On the agent machine run:'), h('pre', {}, code.command))
        clearInterval(countdown)
        const tick = () => {
          const left = Date.parse(code.expiresAt) - Date.now()
          remaining.textContent = left > 0 ? `Expires in ${duration(left)}` : 'Expired: create a new code.'
          if (left <= 0) clearInterval(countdown)
        }
        tick()
        countdown = setInterval(tick, 1_000)
      },
      { 'aria-label': 'Create a pairing code' },
    )
    replace(main, ...heading('Agents & pairing', 'Agents drive printers on other machines. Pair one with a one-time code.'), problem, h('section', { class: 'card' }, h('h2', {}, 'Pair an agent'), create, codeArea), list)
    api<{ printers: PrinterView[] }>('GET', '/printers')
      .then(({ printers }) => printers.forEach((p) => printOn.append(h('option', { value: p.id }, printerLabel(p)))))
      .catch(() => undefined)
    const load = async (changed: (data: unknown) => boolean) => {
      const { agents } = await api<{ agents: AgentView[] }>('GET', '/agents')
      if (!changed(agents)) return
      replace(
        list,
        h('h2', {}, 'Paired agents'),
        h(
          'ul',
          { class: 'cards' },
          ...agents.map((a) =>
            h(
              'li',
              { class: 'card', 'data-agent': a.name },
              h('div', { class: 'row spread' }, h('h3', {}, a.builtin ? 'Built-in agent (this hub)' : a.name), a.revokedAt ? h('span', { class: 'badge muted' }, 'Revoked') : badge(a.online ? 'online' : 'offline')),
              h('dl', { class: 'compact' }, h('dt', {}, 'Version'), h('dd', {}, `${a.version} on ${a.platform}`), h('dt', {}, 'Paired'), h('dd', {}, time(a.pairedAt)), h('dt', {}, 'Last seen'), h('dd', {}, a.online ? 'now' : time(a.lastSeenAt))),
              a.printers.length ? h('ul', { class: 'plain' }, ...a.printers.map((p) => h('li', {}, `${p.name} (${p.id}) `, badge(p.availability)))) : empty('No printers reported.'),
              a.builtin || a.revokedAt ? null : h('div', { class: 'actions' }, action('Revoke agent', () => api('POST', `/agents/${a.id}/revoke`), problem, { danger: true, confirmation: `Revoke ${a.name}? It is disconnected and can never connect again.` })),
            ),
          ),
        ),
      )
    }
    const view = live(load, problem)
    return { refresh: view.refresh, stop: () => (view.stop(), clearInterval(countdown)) }
  },
}

// ---- Settings ----

interface SettingsAnswer {
  settings: { serverName: string; retryInitialMs: number; retryMaxMs: number; maxOpenJobsPerProject: number }
  pinned: string[]
}

const settingsPage: Page = {
  path: 'settings',
  title: 'Settings',
  render(main) {
    const problem = errorBox()
    const hubArea = h('section', { class: 'card' })
    const sessionsArea = h('section', { class: 'card' })
    const tokensArea = h('section', { class: 'card' })
    const tokenSecret = h('div', {})
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
    replace(main, ...heading('Settings'), problem, hubArea, h('section', { class: 'card' }, h('h2', {}, 'Admin password'), password), sessionsArea, tokensArea)
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
        const input = (name: keyof SettingsAnswer['settings'], attributes: Record<string, string>) => h('input', { name, value: String(settings[name]), disabled: pinned.includes(name), required: true, ...attributes })
        replace(
          hubArea,
          h('h2', {}, 'Hub'),
          form(
            [
              field('Server name', input('serverName', { maxlength: '64' }), locked('serverName') ?? 'Shown to agents and on test pages.'),
              field('First retry after (seconds)', input('retryInitialMs', { type: 'number', min: '0.1', step: '0.1', value: String(settings.retryInitialMs / 1000) }), locked('retryInitialMs') ?? 'A failed attempt is retried after this, doubling each time.'),
              field('Longest wait between retries (seconds)', input('retryMaxMs', { type: 'number', min: '0.1', step: '0.1', value: String(settings.retryMaxMs / 1000) }), locked('retryMaxMs')),
              field('Unfinished jobs per project, at most', input('maxOpenJobsPerProject', { type: 'number', min: '1' }), locked('maxOpenJobsPerProject')),
            ],
            'Save settings',
            async (values) => {
              const change: Record<string, unknown> = {}
              if ('serverName' in values) change.serverName = values.serverName
              if ('retryInitialMs' in values) change.retryInitialMs = Math.round(Number(values.retryInitialMs) * 1000)
              if ('retryMaxMs' in values) change.retryMaxMs = Math.round(Number(values.retryMaxMs) * 1000)
              if ('maxOpenJobsPerProject' in values) change.maxOpenJobsPerProject = Number(values.maxOpenJobsPerProject)
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

export const PAGES: Page[] = [overviewPage, printersPage, jobsPage, projectsPage, agentsPage, settingsPage]
