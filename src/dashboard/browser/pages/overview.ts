// The overview: the hub itself, jobs of the last hour, and every printer with its state. It is
// drawn from the overview the hub sends with every change, so it asks the API only when it opens.
import type { Overview } from '../../../services/overview.ts'
import { api } from '../api.ts'
import { badge, duration, empty, errorBox, h, replace } from '../dom.ts'
import { heading, live, type Page } from './page.ts'
import { printerLabel } from './records.ts'

export const overviewPage: Page = {
  path: 'overview',
  title: 'Overview',
  role: 'staff',
  render(main, _params, initial) {
    const hub = h('section', { class: 'card', 'aria-labelledby': 'hub-h' })
    const printers = h('section', { class: 'card', 'aria-labelledby': 'printers-h' })
    const jobs = h('section', { class: 'card', 'aria-labelledby': 'jobs-h' })
    const problem = errorBox()
    replace(main, ...heading('Overview'), problem, h('div', { class: 'grid' }, hub, jobs), printers)
    let startedAt = 0
    const uptime = h('dd', {})
    const tick = setInterval(() => (uptime.textContent = startedAt ? duration(Date.now() - startedAt) : '—'), 1_000)
    const show = (o: Overview) => {
      startedAt = Date.parse(o.hub.startedAt)
      uptime.textContent = duration(Date.now() - startedAt)
      replace(
        hub,
        h('h2', { id: 'hub-h' }, o.hub.serverName),
        h(
          'dl',
          {},
          h('dt', {}, 'Health'),
          h('dd', {}, h('span', { class: 'badge good' }, 'Running')),
          h('dt', {}, 'Version'),
          h('dd', {}, `${o.hub.version} (${o.hub.commit.slice(0, 12)})`),
          h('dt', {}, 'Uptime'),
          uptime,
          h('dt', {}, 'Address'),
          h('dd', {}, h('a', { href: o.hub.url }, o.hub.url)),
          h('dt', {}, 'LAN addresses'),
          h('dd', {}, o.hub.addresses.join(', ') || 'none'),
          h('dt', {}, 'Agents online'),
          h('dd', { 'data-testid': 'agents-online' }, `${o.agents.online} of ${o.agents.paired}`),
        ),
      )
      replace(
        jobs,
        h('h2', { id: 'jobs-h' }, 'Jobs in the last hour'),
        h('ul', { class: 'counts' }, ...Object.entries(o.jobsLastHour).map(([state, count]) => h('li', { 'data-state': state }, badge(state), h('span', { class: 'count' }, count)))),
      )
      replace(
        printers,
        h('h2', { id: 'printers-h' }, 'Printers'),
        o.printers.length === 0
          ? empty('No printers yet. Add one on the Printers page.')
          : h(
              'ul',
              { class: 'tiles' },
              ...o.printers.map((p) =>
                h('li', { class: 'tile', 'data-printer': p.remoteId }, h('strong', {}, printerLabel(p)), badge(p.state), h('span', {}, `${p.queue} waiting`), p.agentOnline ? null : h('small', {}, `Agent ${p.agentName} is not connected`)),
              ),
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
