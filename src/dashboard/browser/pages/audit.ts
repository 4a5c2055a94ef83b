// The audit log (owners and technicians): who did what, when, from where, newest first, a page at
// a time; all of it as CSV.
import type { AuditEntryView as Entry, AuditPage } from '../../../protocol/admin/audit.ts'
import { api } from '../api.ts'
import { config, t } from '../config.ts'
import { empty, errorBox, h, replace, time } from '../dom.ts'
import { heading, live, type Page } from './page.ts'

function rows(entries: Entry[]): HTMLElement[] {
  return entries.map((entry) =>
    h(
      'tr',
      { 'data-action': entry.action },
      h('td', {}, time(entry.at)),
      h('td', {}, entry.user ?? t.audit.onTheHub),
      h('td', {}, h('code', {}, entry.action)),
      h('td', {}, entry.target ?? ''),
      h(
        'td',
        {},
        entry.address === config.auditOnTheMachine
          ? t.audit.thisMachine
          : entry.address === null
            ? ''
            : h('code', {}, entry.address),
      ),
    ),
  )
}

export const auditPage: Page = {
  path: 'audit',
  title: 'Audit log',
  role: 'technician',
  render(main) {
    const problem = errorBox()
    const body = h('tbody', {})
    const more = h('button', { type: 'button', class: 'secondary', hidden: true }, t.audit.older)
    let next: string | null = null
    more.addEventListener('click', async () => {
      if (next === null) return
      const page = await api<AuditPage>('GET', `/audit?cursor=${next}`)
      body.append(...rows(page.entries))
      next = page.nextCursor
      more.hidden = next === null
    })
    const table = h(
      'div',
      { class: 'table-wrap', tabindex: '0' },
      h(
        'table',
        {},
        h('caption', { class: 'visually-hidden' }, t.pages.audit),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...[t.audit.when, t.audit.who, t.audit.what, t.audit.on, t.audit.from].map((text) =>
              h('th', { scope: 'col' }, text),
            ),
          ),
        ),
        body,
      ),
    )
    const download = h('a', { href: `${config.api}/audit.csv`, download: 'printhub-audit.csv' }, t.audit.csv)
    replace(
      main,
      ...heading(t.pages.audit, t.audit.intro),
      problem,
      h('p', {}, download),
      table,
      h('div', { class: 'actions' }, more),
    )
    const load = async (changed: (data: unknown) => boolean) => {
      const page = await api<AuditPage>('GET', '/audit')
      if (!changed(page.entries)) return
      replace(
        body,
        ...(page.entries.length === 0
          ? [h('tr', {}, h('td', { colspan: '5' }, empty(t.audit.none)))]
          : rows(page.entries)),
      )
      next = page.nextCursor
      more.hidden = next === null
    }
    const view = live(load, problem)
    return view
  },
}
