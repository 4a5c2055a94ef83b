// Printers: each with its state, queue, connection and model; a test print, editing, its status
// history and last receipt; and adding one, the hub's own or a paired agent's.
import type { PrinterStateChange } from '../../../store/printer-states.ts'
import type { Project } from '../../../store/projects.ts'
import type { PrinterView } from '../../../services/printer-board.ts'
import type { DetectedPrinter } from '../../../transports/detect.ts'
import { api } from '../api.ts'
import { config, may } from '../config.ts'
import { announce, badge, empty, errorBox, field, h, replace, select, showError, time } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'
import { type AgentView, printerLabel, projectOptions } from './records.ts'

interface Profile {
  id: string
  name: string
  paperWidths: number[]
  defaultWidth: number
}

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
      return [field('Virtual printer name', h('input', { name: 'virtualName', value: 'test', pattern: config.inputPatterns.virtualName }))]
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
    const image = h('img', { src: `${config.api}/printers/${p.id}/last-receipt.png?at=${Date.now()}`, alt: `The last receipt ${printerLabel(p)} printed`, class: 'receipt' })
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
      // Setting a printer up is a technician's; staff see how it is doing.
      may('technician')
        ? action('Test print', async () => {
            await api('POST', `/printers/${p.id}/test`)
            announce(`Test page sent to ${p.remoteId}`)
          }, problem)
        : null,
      may('technician')
        ? action('Edit', async () => {
            edit.hidden = !edit.hidden
            if (!edit.hidden) replace(edit, editForm())
          }, problem)
        : null,
      action('History and last receipt', showDetails, problem),
      may('technician') ? action('Remove', () => api('DELETE', `/printers/${p.id}`), problem, { danger: true, confirmation: `Remove printer ${p.remoteId}? Its jobs keep their history; applications can no longer print on it.` }) : null,
    ),
    edit,
    details,
  )
}

export const printersPage: Page = {
  path: 'printers',
  title: 'Printers',
  role: 'staff',
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
      if (!may('technician')) return
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
            field('Printer ID', h('input', { name: 'id', required: true, placeholder: 'kitchen', pattern: config.inputPatterns.identifier }), 'The name applications print to (printerId): letters, digits, . _ : -'),
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
