// Printers: each with its state, queue, connection and model; a test print, editing, its status
// history and last receipt; and adding one, the hub's own or a paired agent's.
import type {
  AdminPrinter as PrinterView,
  DetectedPrinterView as DetectedPrinter,
  PollingPrinter as PollingPrinterView,
  PrinterModel as Profile,
  PrinterStateChange,
} from '../../../protocol/admin/printers.ts'
import type { AdminProject as Project } from '../../../protocol/admin/projects.ts'
import { api } from '../api.ts'
import { config, may, t } from '../config.ts'
import { announce, badge, empty, errorBox, field, fill, h, replace, select, showError, time } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'
import { type AgentView, printerLabel, projectOptions } from './records.ts'
import { pollingSection } from './polling.ts'

const CONNECTION_KINDS: [string, string][] = [
  ['tcp', t.printers.kindTcp],
  ['serial', t.printers.kindSerial],
  ['usb', t.printers.kindUsb],
  ['cloudprnt', t.printers.kindCloudPrnt],
  ['epson-sdp', t.printers.kindEpsonSdp],
  ['virtual', t.printers.kindVirtual],
  ['agent', t.printers.kindAgent],
]

function connectionFields(kind: string, detected: DetectedPrinter[], agents: AgentView[]): HTMLElement[] {
  switch (kind) {
    case 'tcp':
      return [
        field(
          t.printers.address,
          h('input', { name: 'host', required: true, placeholder: '192.168.1.50', autocomplete: 'off' }),
        ),
        field(t.printers.port, h('input', { name: 'port', type: 'number', value: '9100', min: '1', max: '65535' })),
      ]
    case 'serial':
    case 'usb': {
      const found = detected.filter((d) => d.kind === kind)
      return [
        field(
          kind === 'serial' ? t.printers.kindSerial : t.printers.usbPrinter,
          found.length > 0
            ? select(
                'device',
                found.map((d) => [d.connection, `${d.connection}${d.usb?.product ? ` (${d.usb.product})` : ''}`]),
              )
            : h('input', {
                name: 'device',
                required: true,
                placeholder: kind === 'serial' ? 'serial:///dev/ttyUSB0?baud=38400&flow=rtscts' : 'usb:///dev/usb/lp0',
              }),
          found.length > 0 ? t.printers.found : t.printers.nothingFound,
        ),
      ]
    }
    case 'virtual':
      return [
        field(
          t.printers.virtualName,
          h('input', { name: 'virtualName', value: 'test', pattern: config.inputPatterns.virtualName }),
        ),
      ]
    case 'cloudprnt':
      return [
        field(
          t.printers.mac,
          h('input', {
            name: 'mac',
            required: true,
            placeholder: '00:11:62:12:34:56',
            autocomplete: 'off',
            spellcheck: 'false',
          }),
        ),
      ]
    case 'epson-sdp':
      return [
        field(
          t.printers.sdpId,
          h('input', {
            name: 'sdpId',
            required: true,
            placeholder: 'X6WY351989',
            autocomplete: 'off',
            spellcheck: 'false',
          }),
        ),
      ]
    default: {
      const options = agents
        .filter((a) => !a.builtin && !a.revokedAt)
        .flatMap((a) =>
          a.printers.map((p): [string, string] => [
            `${a.id} ${p.id}`,
            `${p.name} on ${a.name}${a.online ? '' : ' (offline)'}`,
          ]),
        )
      return [
        field(
          t.printers.agentPrinter,
          options.length > 0
            ? select('agentPrinter', options)
            : h('input', { name: 'agentPrinter', disabled: true, value: t.printers.noAgentPrinters }),
        ),
      ]
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
    case 'cloudprnt':
      return { connection: `cloudprnt://${values.mac ?? ''}` }
    case 'epson-sdp':
      return { connection: `epson-sdp://${values.sdpId ?? ''}` }
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
    const image = h('img', {
      src: `${config.api}/printers/${p.id}/last-receipt.png?at=${Date.now()}`,
      alt: fill(t.printers.lastReceiptAlt, { printer: printerLabel(p) }),
      class: 'receipt',
    })
    image.addEventListener('error', () => image.replaceWith(empty(t.printers.nothingPrinted)))
    replace(
      details,
      h('h3', {}, t.printers.history),
      states.length === 0
        ? empty(t.printers.noHistory)
        : h(
            'ol',
            { class: 'history' },
            ...states.map((s) => h('li', {}, badge(s.state), ` ${t.printers.since} `, time(s.at))),
          ),
      h('h3', {}, t.printers.lastReceipt),
      image,
    )
  }
  const edit = h('div', { hidden: true })
  const editForm = () =>
    form(
      [
        field(t.printers.name, h('input', { name: 'name', value: p.name ?? '' })),
        p.builtin
          ? field(t.printers.connection, h('input', { name: 'connection', value: p.connection, required: true }))
          : null,
        field(
          t.printers.model,
          select(
            'profile',
            profiles.map((x) => [x.id, x.name]),
            p.profile,
          ),
        ),
        field(
          t.printers.width,
          select(
            'width',
            [
              ['80', '80'],
              ['58', '58'],
            ],
            String(p.width),
          ),
        ),
      ],
      t.printers.save,
      async (values) => {
        await api('PATCH', `/printers/${p.id}`, {
          name: values.name || null,
          ...(p.builtin ? { connection: values.connection } : {}),
          profile: values.profile,
          width: Number(values.width),
        })
        announce(fill(t.printers.saved, { printer: p.remoteId }))
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
      h('dt', {}, t.printers.project),
      h('dd', {}, project?.name ?? p.projectId),
      h('dt', {}, t.printers.waiting),
      h('dd', {}, fill(t.printers.jobs, { n: p.queue })),
      h('dt', {}, t.printers.connection),
      h(
        'dd',
        {},
        p.builtin
          ? p.connection
          : fill(t.printers.via, { connection: p.connection, agent: p.agentName }) +
              (p.agentOnline ? '' : ` ${t.printers.notConnected}`),
      ),
      h('dt', {}, t.printers.model),
      h('dd', {}, `${profiles.find((x) => x.id === p.profile)?.name ?? p.profile}, ${p.width} mm`),
    ),
    h(
      'div',
      { class: 'actions' },
      // Setting a printer up is a technician's; staff see how it is doing.
      may('technician')
        ? action(
            t.printers.test,
            async () => {
              await api('POST', `/printers/${p.id}/test`)
              announce(fill(t.printers.testSent, { printer: p.remoteId }))
            },
            problem,
          )
        : null,
      may('technician')
        ? action(
            t.printers.edit,
            async () => {
              edit.hidden = !edit.hidden
              if (!edit.hidden) replace(edit, editForm())
            },
            problem,
          )
        : null,
      action(t.printers.details, showDetails, problem),
      may('technician')
        ? action(t.printers.remove, () => api('DELETE', `/printers/${p.id}`), problem, {
            danger: true,
            confirmation: fill(t.printers.removeAsk, { printer: p.remoteId }),
          })
        : null,
    ),
    edit,
    details,
  )
}

export const printersPage: Page = {
  path: 'printers',
  title: 'Printers',
  role: 'staff',
  primary: true,
  render(main) {
    const problem = errorBox()
    const list = h('ul', { class: 'cards' })
    const addArea = h('section', { class: 'card', 'aria-labelledby': 'add-h' })
    const pollingArea = h('div', {})
    replace(main, ...heading(t.pages.printers, t.printers.intro), problem, list, pollingArea, addArea)
    let projects: Project[] = []
    let profiles: Profile[] = []
    const load = async (changed: (data: unknown) => boolean) => {
      const [{ printers }, polling] = await Promise.all([
        api<{ printers: PrinterView[] }>('GET', '/printers'),
        may('technician') ? api<{ printers: PollingPrinterView[] }>('GET', '/printers/polling') : { printers: [] },
      ])
      // A waiting printer's polls change only when it was last heard from: not a reason to draw the page again.
      const waiting = polling.printers.filter((p) => !p.adopted).map(({ lastPollAt: _lastPollAt, ...p }) => p)
      // Open edit forms and details stay as they are while nothing about the printers changed.
      if (!changed([printers, waiting, projects.length, profiles.length])) return
      replace(
        list,
        printers.length === 0
          ? empty(t.printers.none)
          : printers.map((p) => printerCard(p, projects, profiles, problem)),
      )
      if (may('technician') && projects.length > 0)
        replace(
          pollingArea,
          pollingSection(
            polling.printers.filter((p) => !p.adopted),
            projects,
            profiles,
            view.refresh,
          ),
        )
    }
    const setUp = async () => {
      ;[{ projects }, { profiles }] = await Promise.all([
        api<{ projects: Project[] }>('GET', '/projects'),
        api<{ profiles: Profile[] }>('GET', '/profiles'),
      ])
      if (!may('technician')) return
      const [{ printers: detected }, { agents }] = await Promise.all([
        api<{ printers: DetectedPrinter[] }>('GET', '/printers/detect'),
        api<{ agents: AgentView[] }>('GET', '/agents'),
      ])
      const kind = select('kind', CONNECTION_KINDS, 'tcp')
      const kindFields = h('div', {})
      const profile = select(
        'profile',
        profiles.map((x) => [x.id, x.name]),
        'generic-80mm',
      )
      const showKind = () => {
        replace(kindFields, connectionFields(kind.value, detected, agents))
        // A CloudPRNT printer is a Star one, a Server Direct Print one an Epson: such a model is offered first.
        if (kind.value === 'cloudprnt')
          profile.value = profiles.find((x) => x.commandSet === 'starprnt')?.id ?? profile.value
        if (kind.value === 'epson-sdp') profile.value = 'epson-tm-m30iii'
      }
      kind.addEventListener('change', showKind)
      kindFields.addEventListener('change', (event) => {
        const found = detected.find((d) => d.connection === (event.target as HTMLSelectElement).value)
        if (found?.suggestedProfile) profile.value = found.suggestedProfile
      })
      showKind()
      replace(
        addArea,
        h('h2', { id: 'add-h' }, t.printers.add),
        form(
          [
            field(t.printers.project, select('projectId', projectOptions(projects))),
            field(
              t.printers.id,
              h('input', {
                name: 'id',
                required: true,
                placeholder: 'kitchen',
                pattern: config.inputPatterns.identifier,
              }),
              t.printers.idHint,
            ),
            field(t.printers.name, h('input', { name: 'name', placeholder: t.printers.namePlaceholder })),
            field(t.printers.connection, kind),
            kindFields,
            field(t.printers.model, profile),
            field(
              t.printers.width,
              select(
                'width',
                [
                  ['80', '80'],
                  ['58', '58'],
                ],
                '80',
              ),
            ),
          ],
          t.printers.addSubmit,
          async (values, element) => {
            const { printer } = await api<{ printer: PrinterView }>('POST', '/printers', {
              projectId: values.projectId,
              id: values.id,
              name: values.name || null,
              profile: values.profile,
              width: Number(values.width),
              ...connectionOf(kind.value, values),
            })
            announce(fill(t.printers.added, { printer: printer.remoteId }))
            element.reset()
            showKind()
            view.refresh()
          },
          { 'aria-label': t.printers.add },
        ),
      )
    }
    const view = live(load, problem)
    // The cards name projects and models: drawn again once those are known.
    setUp()
      .then(view.refresh)
      .catch((error) => showError(problem, error))
    return { refresh: view.refresh, stop: view.stop }
  },
}
