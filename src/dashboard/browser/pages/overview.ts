// The overview, printers first: each printer's state in words with what to do when it needs
// someone, and its waiting tickets; then today's tickets by state; then the hub itself. Every
// count is a link to the list it counts. It is drawn from the overview the hub sends with every
// change, so it asks the API only when it opens.
import type { PrinterWords } from '../../../protocol/messages/en.ts'
import type { AdminOverview as Overview } from '../../../protocol/admin/overview.ts'
import { api } from '../api.ts'
import { may, t } from '../config.ts'
import { badge, duration, empty, errorBox, fill, h, replace } from '../dom.ts'
import { heading, live, type Page } from './page.ts'
import { printerLabel } from './records.ts'

/** The jobs page with these filters. */
const jobsLink = (filters: Record<string, string>, text: string, label: string) =>
  h('a', { href: `#/jobs?${new URLSearchParams(filters)}`, class: 'count-link', 'aria-label': label }, text)

const MB = 1024 * 1024
const size = (bytes: number) =>
  bytes >= 1024 * MB
    ? `${(bytes / 1024 / MB).toFixed(1)} GB`
    : bytes >= MB
      ? `${Math.round(bytes / MB)} MB`
      : `${Math.round(bytes / 1024)} KB`

/** The data's disk: its writes a day and, where the card reports it, its wear in words (a badge when it is low). */
function diskLines(disk: Overview['hub']['disk']): HTMLElement[] {
  if (!disk) return []
  const written = fill(t.overview.diskWritten, {
    device: disk.device,
    kind: t.overview.diskKinds[disk.kind],
    perDay: size(disk.writtenPerDay),
    hub: size(disk.hubWrittenPerDay),
    free: size(disk.freeMb * MB),
  })
  const life = disk.lifeUsed ? fill(t.overview.cardLife, { from: disk.lifeUsed.from, to: disk.lifeUsed.to }) : ''
  // A disk that is no card (a server's) reports no wear: nothing to say of it.
  const wear = disk.wear === 'unknown' && disk.kind === 'other' ? '' : t.overview.cardWear[disk.wear]
  const sign = disk.wear === 'worn' ? 'badge bad' : disk.wear === 'low' ? 'badge warn' : ''
  return [
    h('dt', {}, t.overview.disk),
    h(
      'dd',
      { 'data-testid': 'disk', 'data-wear': disk.wear },
      h('div', {}, written),
      life ? h('div', {}, life) : '',
      wear ? h('div', {}, sign ? h('span', { class: sign }, wear) : wear) : '',
    ),
  ]
}

export const overviewPage: Page = {
  path: 'overview',
  title: 'Overview',
  role: 'staff',
  primary: true,
  render(main, _params, initial) {
    const hub = h('section', { class: 'card', 'aria-labelledby': 'hub-h' })
    const printers = h('section', { class: 'card', 'aria-labelledby': 'printers-h' })
    const jobs = h('section', { class: 'card', 'aria-labelledby': 'jobs-h' })
    const problem = errorBox()
    replace(main, ...heading(t.pages.overview), problem, printers, h('div', { class: 'grid' }, jobs, hub))
    let startedAt = 0
    const uptime = h('dd', {})
    const tick = setInterval(() => (uptime.textContent = startedAt ? duration(Date.now() - startedAt) : '—'), 1_000)
    const show = (o: Overview) => {
      startedAt = Date.parse(o.hub.startedAt)
      uptime.textContent = duration(Date.now() - startedAt)
      replace(
        printers,
        h('h2', { id: 'printers-h' }, t.pages.printers),
        o.printersToAdopt > 0 && may('technician')
          ? h(
              'p',
              { class: 'todo', 'data-todo': 'adopt' },
              h('a', { href: '#/printers' }, fill(t.overview.toAdopt, { n: o.printersToAdopt })),
            )
          : null,
        o.printers.length === 0
          ? empty(t.overview.noPrinters)
          : h(
              'ul',
              { class: 'tiles' },
              ...o.printers.map((p) => {
                const todo = (t.printerStates as Record<string, PrinterWords>)[p.state]?.do
                return h(
                  'li',
                  { class: 'tile', 'data-printer': p.remoteId },
                  h('strong', {}, printerLabel(p)),
                  badge(p.state),
                  todo ? h('p', { class: 'todo', 'data-todo': p.state }, todo) : null,
                  jobsLink(
                    { printer: p.id, state: 'PENDING' },
                    fill(t.overview.waiting, { n: p.queue }),
                    fill(t.overview.waitingAt, { n: p.queue, printer: printerLabel(p) }),
                  ),
                  p.agentOnline ? null : h('small', {}, fill(t.overview.agentAway, { agent: p.agentName })),
                )
              }),
            ),
      )
      replace(
        jobs,
        h('h2', { id: 'jobs-h' }, t.overview.today),
        h(
          'ul',
          { class: 'counts' },
          ...Object.entries(o.jobsToday.counts).map(([state, count]) =>
            h(
              'li',
              { 'data-state': state },
              badge(state),
              jobsLink(
                { state, from: o.jobsToday.since },
                String(count),
                fill(t.overview.todayCount, { n: count, state: t.jobStates[state as keyof typeof t.jobStates].word }),
              ),
            ),
          ),
        ),
      )
      replace(
        hub,
        h('h2', { id: 'hub-h' }, o.hub.serverName),
        h(
          'dl',
          {},
          h('dt', {}, t.overview.health),
          h('dd', {}, h('span', { class: 'badge good' }, t.overview.running)),
          h('dt', {}, t.overview.version),
          h('dd', {}, `${o.hub.version} (${o.hub.commit.slice(0, 12)})`),
          h('dt', {}, t.overview.uptime),
          uptime,
          h('dt', {}, t.overview.address),
          h('dd', {}, h('a', { href: o.hub.url }, o.hub.url)),
          h('dt', {}, t.overview.lan),
          h('dd', {}, o.hub.addresses.join(', ') || t.overview.none),
          h('dt', {}, t.overview.agentsOnline),
          h(
            'dd',
            { 'data-testid': 'agents-online' },
            fill(t.overview.agentsOf, { n: o.agents.online, m: o.agents.paired }),
          ),
          ...diskLines(o.hub.disk),
        ),
      )
    }
    const view = live(async () => show(await api<Overview>('GET', '/overview')), problem)
    if (initial) show(initial as Overview)
    return {
      refresh: (o) => (o ? show(o as Overview) : view.refresh()),
      stop: () => {
        clearInterval(tick)
        view.stop()
      },
    }
  },
}
