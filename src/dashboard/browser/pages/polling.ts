// Printers that poll the hub (Star CloudPRNT), on the printers page for technicians: each one seen
// that is not yet the hub's, with what it said about itself, and a form to adopt it into a
// project. Until adopted, a printer that polls is offered nothing.
import type { Project } from '../../../store/projects.ts'
import type { PollingPrinterView } from '../../../transports/cloudprnt.ts'
import { api } from '../api.ts'
import { config, t } from '../config.ts'
import { announce, badge, empty, field, fill, h, select, time } from '../dom.ts'
import { form } from './page.ts'
import { projectOptions } from './records.ts'

/** A printer model the admin API lists, with the commands it speaks. */
export interface Profile {
  id: string
  name: string
  paperWidths: number[]
  defaultWidth: number
  commandSet: string
}

function adoptForm(printer: PollingPrinterView, projects: Project[], profiles: Profile[], adopted: () => void): HTMLFormElement {
  const models = profiles.filter((profile) => profile.commandSet === 'starprnt')
  return form(
    [
      field(t.printers.project, select('projectId', projectOptions(projects))),
      field(t.printers.id, h('input', { name: 'id', required: true, placeholder: 'bar', pattern: config.inputPatterns.identifier, autocomplete: 'off' }), t.printers.idHint),
      field(t.printers.model, select('profile', models.map((model) => [model.id, model.name]))),
    ],
    t.printers.adopt,
    async (values) => {
      const { printer: made } = await api<{ printer: { remoteId: string } }>('POST', '/printers/adopt', { mac: printer.mac, projectId: values.projectId, id: values.id, profile: values.profile })
      announce(fill(t.printers.adopted, { mac: printer.mac, printer: made.remoteId }))
      adopted()
    },
    { 'aria-label': fill(t.printers.adoptLabel, { mac: printer.mac }) },
  )
}

/** The section: printers waiting to be adopted (an empty list says where to point a printer). */
export function pollingSection(waiting: PollingPrinterView[], projects: Project[], profiles: Profile[], adopted: () => void): HTMLElement {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'polling-h' },
    h('h2', { id: 'polling-h' }, t.printers.polling),
    h('p', { class: 'intro' }, fill(t.printers.pollingIntro, { url: `${location.origin}/cloudprnt` })),
    waiting.length === 0
      ? empty(t.printers.pollingNone)
      : h(
          'ul',
          { class: 'plain' },
          ...waiting.map((printer) =>
            h(
              'li',
              { 'data-polling': printer.mac },
              h('div', { class: 'row spread' }, h('h3', {}, h('code', {}, printer.mac)), badge(printer.state)),
              h(
                'dl',
                { class: 'compact' },
                h('dt', {}, t.printers.model),
                h('dd', {}, [printer.clientType, printer.clientVersion].filter(Boolean).join(' ') || '—'),
                h('dt', {}, t.printers.from),
                h('dd', {}, h('code', {}, printer.address)),
                h('dt', {}, t.printers.seenSince),
                h('dd', {}, time(printer.firstSeenAt)),
              ),
              h('details', {}, h('summary', {}, t.printers.adopt), adoptForm(printer, projects, profiles, adopted)),
            ),
          ),
        ),
  )
}
