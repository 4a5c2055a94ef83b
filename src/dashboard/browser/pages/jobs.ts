// Jobs: the list, newest first, with filters; and one job with its timeline, receipt preview,
// cancelling and reprinting. A job posted to every printer of a destination (a fan-out) has a page
// of its own: each printer's job with its state, and a link to it.
import type { JobEvent } from '../../../store/jobs.ts'
import type { Job } from '../../../protocol/job.ts'
import type { PrintDocument } from '../../../protocol/document.ts'
import type { PrinterView } from '../../../services/printer-board.ts'
import type { Project } from '../../../store/projects.ts'
import { api } from '../api.ts'
import type { FailureWords } from '../../../protocol/messages/en.ts'
import { config, t } from '../config.ts'
import { announce, badge, duration, empty, errorBox, field, fill, formValues, h, replace, select, showError, time } from '../dom.ts'
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

/** A job posted to every printer of a destination: its state sums up its children's, one job per printer. */
interface FanOutDetail {
  job: Job
  children: { job: Job; printer: JobDetail['printer'] }[]
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
    h('caption', {}, t.jobs.timeline),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t.jobs.when), h('th', { scope: 'col' }, t.jobs.step), h('th', { scope: 'col' }, t.jobs.attempt), h('th', { scope: 'col' }, t.jobs.after), h('th', { scope: 'col' }, t.jobs.error))),
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

/** The application's own words of a job, as a list of entries: its metadata. */
const metadataList = (metadata: Record<string, string>) => Object.entries(metadata).map(([k, v]) => h('div', {}, h('code', {}, k), ' ', v))

/** A fan-out's page: what was posted, then each printer's job (its printer, a link to its page; its state, attempts, error). */
function fanOutBody(body: HTMLElement, { job, children }: FanOutDetail): void {
  replace(
    body,
    h('div', { class: 'row spread' }, h('code', {}, job.id), badge(job.state)),
    h('p', { class: 'intro' }, fill(t.jobs.parentIntro, { destination: job.printerId })),
    h(
      'dl',
      { class: 'compact' },
      h('dt', {}, t.jobs.idempotencyKey),
      h('dd', {}, job.idempotencyKey),
      h('dt', {}, t.jobs.expires),
      h('dd', {}, time(job.expiresAt)),
      job.lastErrorCode ? h('dt', {}, t.jobs.lastError) : null,
      job.lastErrorCode ? h('dd', {}, failureWords(job.lastErrorCode, job.lastErrorMessage)) : null,
      job.metadata ? h('dt', {}, t.jobs.metadata) : null,
      job.metadata ? h('dd', {}, metadataList(job.metadata)) : null,
    ),
    h(
      'div',
      { class: 'table-wrap', tabindex: '0' },
      h(
        'table',
        { class: 'children' },
        h('caption', {}, t.jobs.children),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t.jobs.printer), h('th', { scope: 'col' }, t.jobs.state), h('th', { scope: 'col' }, t.jobs.attempts))),
        h(
          'tbody',
          {},
          ...children.map(({ job: child, printer }) =>
            h(
              'tr',
              { 'data-child': child.id, 'data-printer': printer?.remoteId ?? '' },
              // The printer's name opens its job's page (its timeline, its receipt).
              h('td', {}, h('a', { href: `#/jobs/${child.id}` }, printer ? printerLabel(printer) : child.printerId)),
              h('td', {}, badge(child.state), child.lastErrorCode ? h('div', {}, failureWords(child.lastErrorCode, child.lastErrorMessage)) : null),
              h('td', {}, fill(t.jobs.attemptsOf, { n: child.attemptCount, max: child.maxAttempts })),
            ),
          ),
        ),
      ),
    ),
  )
}

function jobDetail(main: HTMLElement, id: string) {
  const problem = errorBox()
  const body = h('div', {})
  replace(main, h('p', {}, h('a', { href: '#/jobs' }, t.jobs.back)), h('h1', {}, t.jobs.job), problem, body)
  let preview: HTMLImageElement | undefined
  let shownState: string | undefined
  const load = async (changed: (data: unknown) => boolean) => {
    const answer = await api<JobDetail | FanOutDetail>('GET', `/jobs/${encodeURIComponent(id)}`)
    if (!changed(answer)) return
    const { job } = answer
    // A change of state while the page is open is read out (the live region), not only redrawn.
    if (shownState !== undefined && shownState !== job.state) announce(`${t.jobs.job}: ${t.jobStates[job.state].word}`)
    shownState = job.state
    if ('children' in answer) return fanOutBody(body, answer)
    const detail = answer
    preview ??= h('img', { src: `${config.api}/jobs/${encodeURIComponent(id)}/preview.png`, alt: t.jobs.receiptAlt, class: 'receipt' })
    const cancellable = config.cancellableStates.includes(job.state)
    replace(
      body,
      h('div', { class: 'row spread' }, h('code', {}, job.id), badge(job.state)),
      h(
        'dl',
        { class: 'compact' },
        h('dt', {}, t.jobs.printer),
        h('dd', {}, detail.printer ? printerLabel(detail.printer) : job.printerId),
        h('dt', {}, t.jobs.idempotencyKey),
        h('dd', {}, job.idempotencyKey),
        h('dt', {}, t.jobs.attempts),
        h('dd', {}, fill(t.jobs.attemptsOf, { n: job.attemptCount, max: job.maxAttempts })),
        h('dt', {}, t.jobs.expires),
        h('dd', {}, time(job.expiresAt)),
        job.lastErrorCode ? h('dt', {}, t.jobs.lastError) : null,
        job.lastErrorCode ? h('dd', {}, failureWords(job.lastErrorCode, job.lastErrorMessage)) : null,
        job.metadata ? h('dt', {}, t.jobs.metadata) : null,
        job.metadata ? h('dd', {}, metadataList(job.metadata)) : null,
        detail.reprintOf ? h('dt', {}, t.jobs.reprintOf) : null,
        detail.reprintOf ? h('dd', { 'data-reprint-of': detail.reprintOf }, jobLink(detail.reprintOf)) : null,
        detail.reprints.length > 0 ? h('dt', {}, t.jobs.reprints) : null,
        detail.reprints.length > 0 ? h('dd', { 'data-reprints': '' }, ...detail.reprints.map((reprint) => h('div', {}, jobLink(reprint)))) : null,
        detail.fanOut ? h('dt', {}, fill(t.jobs.fanOut, { destination: detail.fanOut.destination })) : null,
        detail.fanOut
          ? h('dd', { 'data-fan-out': detail.fanOut.id }, h('div', { class: 'row' }, jobLink(detail.fanOut.id), badge(detail.fanOut.state)), ...detail.fanOut.jobs.filter((id) => id !== job.id).map((id) => h('div', {}, `${t.jobs.also} `, jobLink(id))))
          : null,
      ),
      h(
        'div',
        { class: 'actions' },
        cancellable ? action(t.jobs.cancel, () => api('POST', `/jobs/${job.id}/cancel`), problem, { danger: true, confirmation: t.jobs.cancelAsk }) : null,
        action(
          t.jobs.reprint,
          async () => {
            const { job: copy } = await api<{ job: Job }>('POST', `/jobs/${job.id}/reprint`)
            announce(t.jobs.reprinted)
            location.hash = `#/jobs/${copy.id}`
          },
          problem,
          { confirmation: t.jobs.reprintAsk },
        ),
      ),
      h('div', { class: 'table-wrap', tabindex: '0' }, timelineTable(detail.timeline)),
      h('h2', {}, t.jobs.receipt),
      detail.document ? preview : empty(t.jobs.documentGone),
    )
  }
  return live(load, problem)
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
              h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t.jobs.state), h('th', { scope: 'col' }, t.jobs.created), h('th', { scope: 'col' }, t.jobs.printer), h('th', { scope: 'col' }, t.jobs.ticket))),
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
        more ? h('p', { class: 'intro' }, t.jobs.more) : null,
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
          if (values.fanOut) search.set('fanOut', values.fanOut)
          if (values.from) search.set('from', new Date(values.from).toISOString())
          if (values.to) search.set('to', new Date(values.to).toISOString())
          query = search.size ? `?${search}` : ''
          view.refresh()
        }
        replace(
          filters,
          field(t.jobs.search, h('input', { type: 'search', name: 'q', placeholder: '1042', autocomplete: 'off', maxlength: '1000' }), t.jobs.searchHint),
          field(t.jobs.project, select('project', [['', t.jobs.allProjects], ...projectOptions(projects)])),
          field(t.jobs.printer, select('printer', [['', t.jobs.allPrinters], ...printers.map((p): [string, string] => [p.id, printerLabel(p)])])),
          field(t.jobs.state, select('state', [['', t.jobs.allStates], ...config.jobStates.map((s): [string, string] => [s, t.jobStates[s].word])])),
          field(t.jobs.show, select('fanOut', [['', t.jobs.eachTicket], ['true', t.jobs.fanOuts]])),
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
