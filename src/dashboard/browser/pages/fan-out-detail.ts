// The page of a job posted to every printer of a destination (a fan-out): what was posted, then each
// printer's job with its state, and a link to it.
import type { AdminFanOutDetail } from '../../../protocol/admin/jobs.ts'
import { t } from '../config.ts'
import { badge, fill, h, replace, time } from '../dom.ts'
import { failureWords, metadataList } from './job-words.ts'
import { printerLabel } from './records.ts'

/** A job posted to every printer of a destination: its state sums up its children's, one job per printer. */
export type FanOutDetail = AdminFanOutDetail

/**
 * A fan-out's page: what was posted, then each printer's job (its printer, a link to its page; its state, attempts,
 * error).
 */
export function fanOutBody(body: HTMLElement, { job, children }: FanOutDetail): void {
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
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, t.jobs.printer),
            h('th', { scope: 'col' }, t.jobs.state),
            h('th', { scope: 'col' }, t.jobs.attempts),
          ),
        ),
        h(
          'tbody',
          {},
          ...children.map(({ job: child, printer }) =>
            h(
              'tr',
              { 'data-child': child.id, 'data-printer': printer?.remoteId ?? '' },
              // The printer's name opens its job's page (its timeline, its receipt).
              h('td', {}, h('a', { href: `#/jobs/${child.id}` }, printer ? printerLabel(printer) : child.printerId)),
              h(
                'td',
                {},
                badge(child.state),
                child.lastErrorCode ? h('div', {}, failureWords(child.lastErrorCode, child.lastErrorMessage)) : null,
              ),
              h('td', {}, fill(t.jobs.attemptsOf, { n: child.attemptCount, max: child.maxAttempts })),
            ),
          ),
        ),
      ),
    ),
  )
}
