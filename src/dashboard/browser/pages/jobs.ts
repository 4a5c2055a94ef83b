// Jobs: the list, newest first, with filters; and one job with its timeline, receipt preview,
// cancelling and reprinting.
import type { JobEvent } from '../../../store/jobs.ts'
import type { Job } from '../../../protocol/job.ts'
import type { PrintDocument } from '../../../protocol/document.ts'
import type { PrinterView } from '../../../services/printer-board.ts'
import type { Project } from '../../../store/projects.ts'
import { api } from '../api.ts'
import type { FailureWords } from '../../../protocol/messages/en.ts'
import { config, t } from '../config.ts'
import { announce, badge, duration, empty, errorBox, field, formValues, h, replace, select, showError, time } from '../dom.ts'
import { action, heading, live, type Page } from './page.ts'
import { printerLabel, projectOptions } from './records.ts'

interface JobDetail {
  job: Job
  timeline: JobEvent[]
  printer: { id: string; remoteId: string; name: string | null } | null
  document: PrintDocument | null
  /** The job this one reprints, and the reprints made of it. */
  reprintOf: string | null
  reprints: string[]
  /** The job posted to every printer of a destination that this one is one printer's of, and all of their jobs. */
  fanOut: { id: string; destination: string; state: Job['state']; jobs: string[] } | null
}

const jobLink = (id: string) => h('a', { href: `#/jobs/${id}` }, id)

/** A time (ISO 8601) as a datetime-local field holds it: the browser's local time, to the minute. */
function localInputTime(iso: string): string {
  const at = new Date(iso)
  if (Number.isNaN(at.getTime())) return ''
  const two = (n: number) => String(n).padStart(2, '0')
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}T${two(at.getHours())}:${two(at.getMinutes())}`
}

/** A failure in the page's language, with what to do; its code stays beside it for technicians. */
function failureWords(code: string, message: string | null): HTMLElement {
  const words = (t.failures as Record<string, FailureWords>)[code]
  return h('span', { class: 'failure', title: message ?? '' }, words ? `${words.say}${words.do ? ` ${words.do}` : ''} ` : '', h('code', { class: 'code' }, code))
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
        const step = i === 0 ? t.timeline.created : e.state === 'PENDING' && e.attempt > 0 ? t.timeline.retry : (t.timeline[e.state] ?? e.state)
        const after = i === 0 ? '' : duration(Date.parse(e.at) - Date.parse(events[i - 1]!.at))
        return h('tr', { 'data-state': e.state }, h('td', {}, time(e.at)), h('td', {}, step), h('td', {}, e.attempt || ''), h('td', {}, after), h('td', {}, e.errorCode ? failureWords(e.errorCode, e.errorMessage) : ''))
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
    preview ??= h('img', { src: `${config.api}/jobs/${encodeURIComponent(id)}/preview.png`, alt: 'The receipt this job prints', class: 'receipt' })
    const cancellable = config.cancellableStates.includes(job.state)
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
        job.lastErrorCode ? h('dd', {}, failureWords(job.lastErrorCode, job.lastErrorMessage)) : null,
        job.metadata ? h('dt', {}, 'Metadata') : null,
        job.metadata ? h('dd', {}, Object.entries(job.metadata).map(([k, v]) => h('div', {}, h('code', {}, k), ' ', v))) : null,
        detail.reprintOf ? h('dt', {}, 'Reprint of') : null,
        detail.reprintOf ? h('dd', { 'data-reprint-of': detail.reprintOf }, jobLink(detail.reprintOf)) : null,
        detail.reprints.length > 0 ? h('dt', {}, 'Reprinted as') : null,
        detail.reprints.length > 0 ? h('dd', { 'data-reprints': '' }, ...detail.reprints.map((reprint) => h('div', {}, jobLink(reprint)))) : null,
        detail.fanOut ? h('dt', {}, `Sent to every printer of ${detail.fanOut.destination}`) : null,
        detail.fanOut
          ? h('dd', { 'data-fan-out': detail.fanOut.id }, `${detail.fanOut.id} (all: ${detail.fanOut.state})`, ...detail.fanOut.jobs.filter((id) => id !== job.id).map((id) => h('div', {}, 'also ', jobLink(id))))
          : null,
      ),
      h(
        'div',
        { class: 'actions' },
        cancellable ? action('Cancel job', () => api('POST', `/jobs/${job.id}/cancel`), problem, { danger: true, confirmation: 'Cancel this job? It will not print.' }) : null,
        action(
          'Reprint',
          async () => {
            const { job: copy } = await api<{ job: Job }>('POST', `/jobs/${job.id}/reprint`)
            announce('Reprint created')
            location.hash = `#/jobs/${copy.id}`
          },
          problem,
          { confirmation: 'Print this ticket again? It prints with a REPRINT banner and the time of the first one.' },
        ),
      ),
      h('div', { class: 'table-wrap', tabindex: '0' }, timelineTable(detail.timeline)),
      h('h2', {}, 'Receipt'),
      detail.document ? preview : empty('The document is no longer kept.'),
    )
  }
  return live(load, problem)
}

export const jobsPage: Page = {
  path: 'jobs',
  title: 'Jobs',
  role: 'staff',
  render(main, params, _overview, asked) {
    if (params[0]) return jobDetail(main, params[0])
    const problem = errorBox()
    const list = h('div', { class: 'table-wrap', tabindex: '0' })
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
              h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'State'), h('th', { scope: 'col' }, 'Created'), h('th', { scope: 'col' }, 'Printer'), h('th', { scope: 'col' }, 'Ticket'))),
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
                    h('td', {}, h('a', { href: `#/jobs/${j.id}` }, j.metadata ? Object.entries(j.metadata).map(([k, v]) => `${k} ${v}`).join(' · ') : j.id)),
                  ),
                ),
              ),
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
          if (values.q) search.set('q', values.q)
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
          field('Search', h('input', { type: 'search', name: 'q', placeholder: '1042', autocomplete: 'off', maxlength: '1000' }), 'An order number, a table: any value the application sent with the ticket, as you type.'),
          field('Project', select('project', [['', 'All projects'], ...projectOptions(projects)])),
          field('Printer', select('printer', [['', 'All printers'], ...printers.map((p): [string, string] => [p.id, printerLabel(p)])])),
          field('State', select('state', [['', 'All states'], ...config.jobStates.map((s): [string, string] => [s, s])])),
          field('Created from', h('input', { type: 'datetime-local', name: 'from' })),
          field('Created before', h('input', { type: 'datetime-local', name: 'to' })),
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
      .catch((error) => showError(problem, (error as Error).message))
    return view
  },
}
