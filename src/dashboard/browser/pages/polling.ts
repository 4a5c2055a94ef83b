// Printers that poll the hub (Star CloudPRNT, Epson Server Direct Print), on the printers page for
// technicians: each one seen that is not yet the hub's, with what it said about itself, and a
// form to adopt it into a project. Until adopted, a printer that polls is offered nothing.
import type { PollingPrinter as PollingPrinterView, PrinterModel as Profile } from '../../../protocol/admin/printers.ts'
import type { AdminProject as Project } from '../../../protocol/admin/projects.ts'
import { api } from '../api.ts'
import { config, t } from '../config.ts'
import { announce, badge, empty, field, fill, h, select, time } from '../dom.ts'
import { form } from './page.ts'
import { projectOptions } from './records.ts'

function adoptForm(
  printer: PollingPrinterView,
  projects: Project[],
  profiles: Profile[],
  adopted: () => void,
): HTMLFormElement {
  // A CloudPRNT printer prints StarPRNT; an Epson one ESC/POS.
  const models = profiles.filter(
    (profile) => profile.commandSet === (printer.kind === 'cloudprnt' ? 'starprnt' : 'escpos'),
  )
  return form(
    [
      field(t.printers.project, select('projectId', projectOptions(projects))),
      field(
        t.printers.id,
        h('input', {
          name: 'id',
          required: true,
          placeholder: 'bar',
          pattern: config.inputPatterns.identifier,
          autocomplete: 'off',
        }),
        t.printers.idHint,
      ),
      field(
        t.printers.model,
        select(
          'profile',
          models.map((model) => [model.id, model.name]),
          printer.kind === 'epson-sdp' ? 'epson-tm-m30iii' : undefined,
        ),
      ),
    ],
    t.printers.adopt,
    async (values) => {
      const { printer: made } = await api<{ printer: { remoteId: string } }>('POST', '/printers/adopt', {
        kind: printer.kind,
        printer: printer.key,
        projectId: values.projectId,
        id: values.id,
        profile: values.profile,
      })
      announce(fill(t.printers.adopted, { mac: printer.key, printer: made.remoteId }))
      adopted()
    },
    { 'aria-label': fill(t.printers.adoptLabel, { mac: printer.key }) },
  )
}

/** The section: printers waiting to be adopted (an empty list says where to point a printer). */
export function pollingSection(
  waiting: PollingPrinterView[],
  projects: Project[],
  profiles: Profile[],
  adopted: () => void,
): HTMLElement {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'polling-h' },
    h('h2', { id: 'polling-h' }, t.printers.polling),
    h(
      'p',
      { class: 'intro' },
      fill(t.printers.pollingIntro, { cloudprnt: `${location.origin}/cloudprnt`, sdp: `${location.origin}/epson-sdp` }),
    ),
    waiting.length === 0
      ? empty(t.printers.pollingNone)
      : h(
          'ul',
          { class: 'plain' },
          ...waiting.map((printer) =>
            h(
              'li',
              { 'data-polling': printer.key },
              h('div', { class: 'row spread' }, h('h3', {}, h('code', {}, printer.key)), badge(printer.state)),
              h(
                'dl',
                { class: 'compact' },
                h('dt', {}, t.printers.model),
                h(
                  'dd',
                  {},
                  (printer.kind === 'cloudprnt' ? t.printers.kindCloudPrnt : t.printers.kindEpsonSdp) +
                    (printer.model ? ` · ${printer.model}` : ''),
                ),
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
