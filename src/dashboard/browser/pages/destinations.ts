// Destinations: names applications post tickets to instead of a printer, each with its printers in
// order; failover: the first that can print takes a ticket, and tickets waiting at one that cannot
// move on; all: every printer prints each ticket.
import type { DestinationReport } from '../../../protocol/admin/destinations.ts'
import type { AdminProject as Project } from '../../../protocol/admin/projects.ts'
import { api } from '../api.ts'
import { config, may, t } from '../config.ts'
import { announce, empty, errorBox, field, fill, h, replace, select } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'

export const destinationsPage: Page = {
  path: 'destinations',
  title: 'Destinations',
  role: 'staff',
  render(main) {
    const problem = errorBox()
    const list = h('div', {})
    const projects = select('project', [])
    const create = form(
      [
        field(t.destinations.project, projects),
        field(
          t.destinations.name,
          h('input', {
            name: 'name',
            required: true,
            maxlength: '128',
            placeholder: 'kitchen',
            autocomplete: 'off',
            pattern: config.inputPatterns.identifier,
          }),
          t.destinations.nameHint,
        ),
        field(
          t.destinations.printers,
          h('input', { name: 'printers', required: true, placeholder: 'kitchen-1, bar', autocomplete: 'off' }),
          t.destinations.printersHint,
        ),
        field(
          t.destinations.mode,
          select(
            'mode',
            [
              ['failover', t.destinations.failover],
              ['all', t.destinations.all],
            ],
            'failover',
          ),
        ),
      ],
      t.destinations.create,
      async (values, element) => {
        const printers = values
          .printers!.split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '')
        await api('POST', `/projects/${values.project}/destinations`, {
          name: values.name,
          mode: values.mode,
          printers,
        })
        element.reset()
        announce(fill(t.destinations.created, { name: values.name! }))
        view.refresh()
      },
      { 'aria-label': t.destinations.createLabel },
    )
    replace(
      main,
      ...heading(t.pages.destinations, t.destinations.intro),
      problem,
      list,
      may('technician') ? h('section', { class: 'card' }, h('h2', {}, t.destinations.newTitle), create) : null,
    )
    api<{ projects: Project[] }>('GET', '/projects')
      .then(({ projects: all }) =>
        all.forEach((project) => projects.append(h('option', { value: project.id }, project.name))),
      )
      .catch(() => undefined)
    const load = async (changed: (data: unknown) => boolean) => {
      const { destinations } = await api<{ destinations: DestinationReport[] }>('GET', '/destinations')
      if (!changed(destinations)) return
      replace(
        list,
        destinations.length === 0
          ? empty(t.destinations.none)
          : destinations.map((destination) =>
              h(
                'section',
                { class: 'card', 'data-destination': destination.name },
                h('h2', {}, destination.name),
                h(
                  'p',
                  { class: 'intro' },
                  `${destination.projectName} · ` +
                    (destination.mode === 'all'
                      ? fill(t.destinations.listAll, { printers: destination.printerNames.join(' + ') })
                      : fill(t.destinations.listFailover, { printers: destination.printerNames.join(' → ') })),
                ),
                may('technician')
                  ? h(
                      'div',
                      { class: 'actions' },
                      action(
                        t.destinations.delete,
                        () =>
                          api(
                            'DELETE',
                            `/projects/${destination.projectId}/destinations/${encodeURIComponent(destination.name)}`,
                          ).then(() => view.refresh()),
                        problem,
                        { danger: true, confirmation: fill(t.destinations.deleteAsk, { name: destination.name }) },
                      ),
                    )
                  : null,
              ),
            ),
      )
    }
    const view = live(load, problem)
    return view
  },
}
