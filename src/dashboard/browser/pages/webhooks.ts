// Webhooks: where each project's events are sent, and how that went: the recent deliveries with
// their status codes or errors, a test event on demand, enabling one disabled for failing. Webhooks
// are made by applications with their API key; their secrets are never shown here.
import type { WebhookDelivery as DeliveryRecord, WebhookReport } from '../../../protocol/admin/webhooks.ts'
import { api } from '../api.ts'
import { t } from '../config.ts'
import { announce, empty, errorBox, fill, h, replace, time } from '../dom.ts'
import { action, heading, live, type Page } from './page.ts'

/** An event type in words (a test event's type, or one this page does not know, as it is). */
const eventWords = (type: string): string => (t.events as Record<string, string>)[type] ?? type

/** How a webhook is doing, in words and a tone (the word carries the meaning). */
function health(webhook: WebhookReport): HTMLElement {
  if (webhook.disabledAt)
    return h(
      'span',
      { class: 'badge bad', 'data-health': 'disabled' },
      fill(t.webhooks.disabled, { time: time(webhook.disabledAt) }),
    )
  if (webhook.failingSince)
    return h(
      'span',
      { class: 'badge wait', 'data-health': 'failing' },
      fill(t.webhooks.failing, { time: time(webhook.failingSince) }),
    )
  return h('span', { class: 'badge good', 'data-health': 'working' }, t.webhooks.working)
}

/** How a delivery went, with its status code and, past the first, how many tries it took. */
function outcome(delivery: DeliveryRecord): string {
  const tries = delivery.attempts > 1 ? `, ${fill(t.webhooks.tries, { n: delivery.attempts })}` : ''
  if (delivery.deliveredAt) return fill(t.webhooks.delivered, { status: `${delivery.lastStatus}${tries}` })
  if (delivery.attempts === 0) return t.webhooks.waiting
  const why =
    delivery.lastStatus === null
      ? (delivery.lastError ?? t.webhooks.noAnswer)
      : fill(t.webhooks.answered, { status: delivery.lastStatus })
  return fill(t.webhooks.failed, { why: `${why}${tries}` })
}

function deliveryTable(webhook: WebhookReport): HTMLElement {
  if (webhook.deliveries.length === 0) return empty(t.webhooks.nothingSent)
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0' },
    h(
      'table',
      { class: 'deliveries' },
      h('caption', { class: 'visually-hidden' }, fill(t.webhooks.deliveries, { url: webhook.url })),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[t.webhooks.event, t.webhooks.made, t.webhooks.outcome].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        ...webhook.deliveries.map((d) =>
          h(
            'tr',
            { 'data-delivery': d.messageId },
            h('td', { title: `${d.type} · ${d.messageId}` }, eventWords(d.type)),
            h('td', {}, time(d.createdAt)),
            h('td', { 'data-status': d.lastStatus === null ? '' : String(d.lastStatus) }, outcome(d)),
          ),
        ),
      ),
    ),
  )
}

export const webhooksPage: Page = {
  path: 'webhooks',
  title: 'Webhooks',
  role: 'technician',
  render(main) {
    const problem = errorBox()
    const list = h('div', {})
    replace(main, ...heading(t.pages.webhooks, t.webhooks.intro), problem, list)
    const load = async (changed: (data: unknown) => boolean) => {
      const { webhooks } = await api<{ webhooks: WebhookReport[] }>('GET', '/webhooks')
      if (!changed(webhooks)) return
      replace(
        list,
        webhooks.length === 0
          ? empty(t.webhooks.none)
          : webhooks.map((webhook) =>
              h(
                'section',
                { class: 'card', 'data-webhook': webhook.id },
                h('div', { class: 'row spread' }, h('h2', {}, h('code', {}, webhook.url)), health(webhook)),
                h(
                  'p',
                  { class: 'intro' },
                  `${webhook.projectName} · ` +
                    webhook.events.map(eventWords).join(', ') +
                    (webhook.description ? ` · ${webhook.description}` : ''),
                ),
                deliveryTable(webhook),
                h(
                  'div',
                  { class: 'actions' },
                  webhook.disabledAt
                    ? action(
                        t.webhooks.enable,
                        async () => (
                          await api('POST', `/webhooks/${webhook.id}/enable`),
                          announce(t.webhooks.enabled),
                          view.refresh()
                        ),
                        problem,
                      )
                    : action(
                        t.webhooks.test,
                        async () => (
                          await api('POST', `/webhooks/${webhook.id}/test`),
                          announce(t.webhooks.testQueued),
                          view.refresh()
                        ),
                        problem,
                      ),
                  action(
                    t.webhooks.delete,
                    () => api('DELETE', `/webhooks/${webhook.id}`).then(() => view.refresh()),
                    problem,
                    { danger: true, confirmation: fill(t.webhooks.deleteAsk, { url: webhook.url }) },
                  ),
                ),
              ),
            ),
      )
    }
    const view = live(load, problem)
    return view
  },
}
