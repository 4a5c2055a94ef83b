// Agents and pairing: a one-time pairing code with its QR code and countdown, and the paired
// agents with their printers.
import type { PrinterView } from '../../../services/printer-board.ts'
import { api } from '../api.ts'
import { badge, duration, empty, errorBox, field, h, replace, select, time } from '../dom.ts'
import { action, form, heading, live, type Page } from './page.ts'
import { type AgentView, printerLabel } from './records.ts'

export const agentsPage: Page = {
  path: 'agents',
  title: 'Agents & pairing',
  role: 'technician',
  render(main) {
    const problem = errorBox()
    const list = h('div', {})
    const codeArea = h('div', { class: 'pairing', 'aria-live': 'polite' })
    const printOn = select('printOn', [['', "Don't print it"]])
    let countdown: ReturnType<typeof setInterval> | undefined
    const create = form(
      [field('Valid for', select('ttl', [['300', '5 minutes'], ['900', '15 minutes'], ['3600', '1 hour']], '300')), field('Also print it on', printOn)],
      'Create pairing code',
      async (values) => {
        const code = await api<{ code: string; expiresAt: string; command: string; qrSvg: string }>('POST', '/pairing-codes', { ttlSeconds: Number(values.ttl), ...(values.printOn ? { printOn: values.printOn } : {}) })
        const remaining = h('p', { class: 'countdown' })
        const qr = h('div', { class: 'qr', role: 'img', 'aria-label': `QR code of the command: ${code.command}` })
        // The hub's own QR encoder made this SVG; it carries no script.
        qr.innerHTML = code.qrSvg
        replace(codeArea, h('p', {}, 'Pairing code, for one agent, once:'), h('p', { class: 'code', 'data-testid': 'pairing-code' }, code.code), remaining, qr, h('p', {}, 'On the agent machine run:'), h('pre', {}, code.command))
        clearInterval(countdown)
        const tick = () => {
          const left = Date.parse(code.expiresAt) - Date.now()
          remaining.textContent = left > 0 ? `Expires in ${duration(left)}` : 'Expired: create a new code.'
          if (left <= 0) clearInterval(countdown)
        }
        tick()
        countdown = setInterval(tick, 1_000)
      },
      { 'aria-label': 'Create a pairing code' },
    )
    replace(main, ...heading('Agents & pairing', 'Agents drive printers on other machines. Pair one with a one-time code.'), problem, h('section', { class: 'card' }, h('h2', {}, 'Pair an agent'), create, codeArea), list)
    api<{ printers: PrinterView[] }>('GET', '/printers')
      .then(({ printers }) => printers.forEach((p) => printOn.append(h('option', { value: p.id }, printerLabel(p)))))
      .catch(() => undefined)
    const load = async (changed: (data: unknown) => boolean) => {
      const { agents } = await api<{ agents: AgentView[] }>('GET', '/agents')
      if (!changed(agents)) return
      replace(
        list,
        h('h2', {}, 'Paired agents'),
        h(
          'ul',
          { class: 'cards' },
          ...agents.map((a) =>
            h(
              'li',
              { class: 'card', 'data-agent': a.name },
              h('div', { class: 'row spread' }, h('h3', {}, a.builtin ? 'Built-in agent (this hub)' : a.name), a.revokedAt ? h('span', { class: 'badge muted' }, 'Revoked') : badge(a.online ? 'online' : 'offline')),
              h('dl', { class: 'compact' }, h('dt', {}, 'Version'), h('dd', {}, `${a.version} on ${a.platform}`), h('dt', {}, 'Paired'), h('dd', {}, time(a.pairedAt)), h('dt', {}, 'Last seen'), h('dd', {}, a.online ? 'now' : time(a.lastSeenAt))),
              a.printers.length ? h('ul', { class: 'plain' }, ...a.printers.map((p) => h('li', {}, `${p.name} (${p.id}) `, badge(p.availability)))) : empty('No printers reported.'),
              a.builtin || a.revokedAt ? null : h('div', { class: 'actions' }, action('Revoke agent', () => api('POST', `/agents/${a.id}/revoke`), problem, { danger: true, confirmation: `Revoke ${a.name}? It is disconnected and can never connect again.` })),
            ),
          ),
        ),
      )
    }
    const view = live(load, problem)
    return { refresh: view.refresh, stop: () => (view.stop(), clearInterval(countdown)) }
  },
}
