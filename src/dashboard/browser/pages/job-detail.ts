// One job's page: its timeline, receipt preview, cancelling and reprinting, and links to the jobs it
// reprints or is reprinted as, and to the fan-out it is one printer's job of (whose own page is
// fan-out-detail.ts).
import type { AdminJobDetail, JobEvent } from '../../../protocol/admin/jobs.ts'
import type { ReprintJobResponse } from '../../../protocol/job.ts'
import { api } from '../api.ts'
import { config, t } from '../config.ts'
import { announce, badge, duration, empty, errorBox, fill, h, replace, time } from '../dom.ts'
import { type FanOutDetail, fanOutBody } from './fan-out-detail.ts'
import { failureWords, metadataList } from './job-words.ts'
import { action, live } from './page.ts'
import { printerLabel } from './records.ts'

export type JobDetail = AdminJobDetail

const jobLink = (id: string) => h('a', { href: `#/jobs/${id}` }, id)

function timelineTable(events: JobEvent[]): HTMLElement {
  return h(
    'table',
    { class: 'timeline' },
    h('caption', {}, t.jobs.timeline),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, t.jobs.when),
        h('th', { scope: 'col' }, t.jobs.step),
        h('th', { scope: 'col' }, t.jobs.attempt),
        h('th', { scope: 'col' }, t.jobs.after),
        h('th', { scope: 'col' }, t.jobs.error),
      ),
    ),
    h(
      'tbody',
      {},
      ...events.map((e, i) => {
        const step =
          i === 0
            ? t.timeline.created
            : e.state === 'PENDING' && e.attempt > 0
              ? t.timeline.retry
              : (t.timeline[e.state] ?? e.state)
        const after = i === 0 ? '' : duration(Date.parse(e.at) - Date.parse(events[i - 1]!.at))
        return h(
          'tr',
          { 'data-state': e.state },
          h('td', {}, time(e.at)),
          h('td', {}, step),
          h('td', {}, e.attempt || ''),
          h('td', {}, after),
          h('td', {}, e.errorCode ? failureWords(e.errorCode, e.errorMessage) : ''),
        )
      }),
    ),
  )
}

export function jobDetail(main: HTMLElement, id: string) {
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
    preview ??= h('img', {
      src: `${config.api}/jobs/${encodeURIComponent(id)}/preview.png`,
      alt: t.jobs.receiptAlt,
      class: 'receipt',
    })
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
        detail.reprints.length > 0
          ? h('dd', { 'data-reprints': '' }, ...detail.reprints.map((reprint) => h('div', {}, jobLink(reprint))))
          : null,
        detail.fanOut ? h('dt', {}, fill(t.jobs.fanOut, { destination: detail.fanOut.destination })) : null,
        detail.fanOut
          ? h(
              'dd',
              { 'data-fan-out': detail.fanOut.id },
              h('div', { class: 'row' }, jobLink(detail.fanOut.id), badge(detail.fanOut.state)),
              ...detail.fanOut.jobs
                .filter((id) => id !== job.id)
                .map((id) => h('div', {}, `${t.jobs.also} `, jobLink(id))),
            )
          : null,
      ),
      h(
        'div',
        { class: 'actions' },
        cancellable
          ? action(t.jobs.cancel, () => api('POST', `/jobs/${job.id}/cancel`), problem, {
              danger: true,
              confirmation: t.jobs.cancelAsk,
            })
          : null,
        action(
          t.jobs.reprint,
          async () => {
            const { job: copy } = await api<ReprintJobResponse>('POST', `/jobs/${job.id}/reprint`)
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
