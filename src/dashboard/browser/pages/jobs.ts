// Jobs: the list, newest first, with filters; one job's page is job-detail.ts, a fan-out's (a job
// posted to every printer of a destination) fan-out-detail.ts.
import type { Job } from '../../../protocol/job.ts'
import type { AdminPrinter as PrinterView } from '../../../protocol/admin/printers.ts'
import type { AdminProject as Project } from '../../../protocol/admin/projects.ts'
import { api } from '../api.ts'
import { config, t } from '../config.ts'
import { badge, empty, errorBox, field, formValues, h, replace, select, showError, time } from '../dom.ts'
import { jobDetail } from './job-detail.ts'
import { heading, live, type Page } from './page.ts'
import { printerLabel, projectOptions } from './records.ts'

/** A time (ISO 8601) as a datetime-local field holds it: the browser's local time, to the minute. */
function localInputTime(iso: string): string {
  const at = new Date(iso)
  if (Number.isNaN(at.getTime())) return ''
  const two = (n: number) => String(n).padStart(2, '0')
  const day = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`
  return `${day}T${two(at.getHours())}:${two(at.getMinutes())}`
}

export const jobsPage: Page = {
  path: 'jobs',
  title: 'Jobs',
  role: 'staff',
  primary: true,
  render(main, params, _overview, asked) {
    if (params[0]) return jobDetail(main, params[0])
    const problem = errorBox()
    const list = h('div', { class: 'table-wrap', tabindex: '0' })
    const filters = h('form', { class: 'filters', 'aria-label': t.jobs.filters })
    replace(main, ...heading(t.pages.jobs, t.jobs.intro), filters, problem, list)
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
          ? empty(query ? t.jobs.noMatch : t.jobs.none)
          : h(
              'table',
              { class: 'jobs' },
              h('caption', { class: 'visually-hidden' }, t.pages.jobs),
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  h('th', { scope: 'col' }, t.jobs.state),
                  h('th', { scope: 'col' }, t.jobs.created),
                  h('th', { scope: 'col' }, t.jobs.printer),
                  h('th', { scope: 'col' }, t.jobs.ticket),
                ),
              ),
              h(
                'tbody',
                {},
                ...jobs.map((j) =>
                  h(
                    'tr',
                    { 'data-job': j.id },
                    h('td', {}, badge(j.state)),
                    h('td', {}, time(j.createdAt)),
                    h('td', {}, printerName(j.printerId)),
                    // What the application said of it (an order number, a table) is what people know it by.
                    h(
                      'td',
                      {},
                      h(
                        'a',
                        { href: `#/jobs/${j.id}` },
                        j.metadata
                          ? Object.entries(j.metadata)
                              .map(([k, v]) => `${k} ${v}`)
                              .join(' · ')
                          : j.id,
                      ),
                    ),
                  ),
                ),
              ),
            ),
        more ? h('p', { class: 'intro' }, t.jobs.more) : null,
      )
    }
    const view = live(load, problem)
    Promise.all([
      api<{ projects: Project[] }>('GET', '/projects'),
      api<{ printers: PrinterView[] }>('GET', '/printers'),
    ])
      .then(([{ projects }, printerList]) => {
        printers = printerList.printers
        const apply = () => {
          const values = formValues(filters)
          const search = new URLSearchParams()
          if (values.q) search.set('q', values.q)
          if (values.project) search.set('project', values.project)
          if (values.printer) search.set('printer', values.printer)
          if (values.state) search.set('state', values.state)
          if (values.fanOut) search.set('fanOut', values.fanOut)
          if (values.from) search.set('from', new Date(values.from).toISOString())
          if (values.to) search.set('to', new Date(values.to).toISOString())
          query = search.size ? `?${search}` : ''
          view.refresh()
        }
        replace(
          filters,
          field(
            t.jobs.search,
            h('input', { type: 'search', name: 'q', placeholder: '1042', autocomplete: 'off', maxlength: '1000' }),
            t.jobs.searchHint,
          ),
          field(t.jobs.project, select('project', [['', t.jobs.allProjects], ...projectOptions(projects)])),
          field(
            t.jobs.printer,
            select('printer', [
              ['', t.jobs.allPrinters],
              ...printers.map((p): [string, string] => [p.id, printerLabel(p)]),
            ]),
          ),
          field(
            t.jobs.state,
            select('state', [
              ['', t.jobs.allStates],
              ...config.jobStates.map((s): [string, string] => [s, t.jobStates[s].word]),
            ]),
          ),
          field(
            t.jobs.show,
            select('fanOut', [
              ['', t.jobs.eachTicket],
              ['true', t.jobs.fanOuts],
            ]),
          ),
          field(t.jobs.from, h('input', { type: 'datetime-local', name: 'from' })),
          field(t.jobs.before, h('input', { type: 'datetime-local', name: 'to' })),
        )
        // Filters the address brings (a count on the overview links to its list).
        for (const [name, value] of asked) {
          const control = filters.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null
          if (control) control.value = control.type === 'datetime-local' ? localInputTime(value) : value
        }
        filters.addEventListener('change', apply)
        // Results as you type, once typing pauses.
        let typing: ReturnType<typeof setTimeout> | undefined
        filters.addEventListener('input', (event) => {
          if ((event.target as HTMLInputElement).name !== 'q') return
          clearTimeout(typing)
          typing = setTimeout(apply, 150)
        })
        filters.addEventListener('submit', (event) => event.preventDefault())
        apply()
      })
      .catch((error) => showError(problem, error))
    return view
  },
}
