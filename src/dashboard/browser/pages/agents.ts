// Agents and pairing: a one-time pairing code with its QR code and countdown, and the paired
// agents with their printers.
import type { PairingCodeAnswer } from '../../../protocol/admin/agents.ts'
import type { AdminPrinter as PrinterView } from '../../../protocol/admin/printers.ts'
import { api } from '../api.ts'
import { t } from '../config.ts'
import { badge, duration, empty, errorBox, field, fill, h, replace, select, time } from '../dom.ts'
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
    const printOn = select('printOn', [['', t.agents.dontPrint]])
    let countdown: ReturnType<typeof setInterval> | undefined
    const create = form(
      [
        field(
          t.agents.validFor,
          select(
            'ttl',
            [
              ['300', t.agents.minutes5],
              ['900', t.agents.minutes15],
              ['3600', t.agents.hour1],
            ],
            '300',
          ),
        ),
        field(t.agents.printOn, printOn),
      ],
      t.agents.create,
      async (values) => {
        const code = await api<PairingCodeAnswer>('POST', '/pairing-codes', {
          ttlSeconds: Number(values.ttl),
          ...(values.printOn ? { printOn: values.printOn } : {}),
        })
        const remaining = h('p', { class: 'countdown' })
        const qr = h('div', { class: 'qr', role: 'img', 'aria-label': fill(t.agents.qr, { command: code.command }) })
        // The hub's own QR encoder made this SVG; it carries no script.
        qr.innerHTML = code.qrSvg
        replace(
          codeArea,
          h('p', {}, t.agents.code),
          h('p', { class: 'code', 'data-testid': 'pairing-code' }, code.code),
          remaining,
          qr,
          h('p', {}, t.agents.run),
          h('pre', {}, code.command),
        )
        clearInterval(countdown)
        const tick = () => {
          const left = Date.parse(code.expiresAt) - Date.now()
          remaining.textContent = left > 0 ? fill(t.agents.expiresIn, { time: duration(left) }) : t.agents.expired
          if (left <= 0) clearInterval(countdown)
        }
        tick()
        countdown = setInterval(tick, 1_000)
      },
      { 'aria-label': t.agents.createLabel },
    )
    replace(
      main,
      ...heading(t.pages.agents, t.agents.intro),
      problem,
      h('section', { class: 'card' }, h('h2', {}, t.agents.pair), create, codeArea),
      list,
    )
    api<{ printers: PrinterView[] }>('GET', '/printers')
      .then(({ printers }) => printers.forEach((p) => printOn.append(h('option', { value: p.id }, printerLabel(p)))))
      .catch(() => undefined)
    const load = async (changed: (data: unknown) => boolean) => {
      const { agents } = await api<{ agents: AgentView[] }>('GET', '/agents')
      if (!changed(agents)) return
      replace(
        list,
        h('h2', {}, t.agents.paired),
        h(
          'ul',
          { class: 'cards' },
          ...agents.map((a) =>
            h(
              'li',
              { class: 'card', 'data-agent': a.name },
              h(
                'div',
                { class: 'row spread' },
                h('h3', {}, a.builtin ? t.agents.builtin : a.name),
                a.revokedAt
                  ? h('span', { class: 'badge muted' }, t.agents.revoked)
                  : badge(a.online ? 'online' : 'offline'),
              ),
              h(
                'dl',
                { class: 'compact' },
                h('dt', {}, t.agents.version),
                h('dd', {}, fill(t.agents.versionOn, { version: a.version, platform: a.platform })),
                h('dt', {}, t.agents.pairedAt),
                h('dd', {}, time(a.pairedAt)),
                h('dt', {}, t.agents.lastSeen),
                h('dd', {}, a.online ? t.agents.now : time(a.lastSeenAt)),
              ),
              a.printers.length
                ? h(
                    'ul',
                    { class: 'plain' },
                    ...a.printers.map((p) => h('li', {}, `${p.name} (${p.id}) `, badge(p.availability))),
                  )
                : empty(t.agents.noPrinters),
              a.builtin || a.revokedAt
                ? null
                : h(
                    'div',
                    { class: 'actions' },
                    action(t.agents.revoke, () => api('POST', `/agents/${a.id}/revoke`), problem, {
                      danger: true,
                      confirmation: fill(t.agents.revokeAsk, { name: a.name }),
                    }),
                  ),
            ),
          ),
        ),
      )
    }
    const view = live(load, problem)
    return { refresh: view.refresh, stop: () => (view.stop(), clearInterval(countdown)) }
  },
}
