// Webhooks: where each project's events are sent, and how that went: the recent deliveries with
// their status codes or errors, a test event on demand, enabling one disabled for failing. Webhooks
// are made by applications with their API key; their secrets are never shown here.
import type { WebhookReport } from '../../../services/webhooks.ts'
import type { DeliveryRecord } from '../../../store/webhooks.ts'
import { api } from '../api.ts'
import { announce, empty, errorBox, h, replace, time } from '../dom.ts'
import { action, heading, live, type Page } from './page.ts'

/** How a webhook is doing, in words and a tone (the word carries the meaning). */
function health(webhook: WebhookReport): HTMLElement {
  if (webhook.disabledAt) return h('span', { class: 'badge bad', 'data-health': 'disabled' }, `Disabled ${time(webhook.disabledAt)}`)
  if (webhook.failingSince) return h('span', { class: 'badge wait', 'data-health': 'failing' }, `Failing since ${time(webhook.failingSince)}`)
  return h('span', { class: 'badge good', 'data-health': 'working' }, 'Working')
}

/** How a delivery went, with its status code and, past the first, how many tries it took. */
function outcome(delivery: DeliveryRecord): string {
  const tries = delivery.attempts > 1 ? `, ${delivery.attempts} tries` : ''
  if (delivery.deliveredAt) return `Delivered (${delivery.lastStatus}${tries})`
  if (delivery.attempts === 0) return 'Waiting'
  return `${delivery.lastStatus === null ? `Failed: ${delivery.lastError ?? 'no answer'}` : `Failed: answered ${delivery.lastStatus}`}${tries}; trying again`
}

function deliveryTable(webhook: WebhookReport): HTMLElement {
  if (webhook.deliveries.length === 0) return empty('Nothing sent yet.')
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0' },
    h(
      'table',
      { class: 'deliveries' },
      h('caption', { class: 'visually-hidden' }, `Recent deliveries to ${webhook.url}`),
      h('thead', {}, h('tr', {}, ...['Event', 'Made', 'Outcome'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...webhook.deliveries.map((d) =>
          h('tr', { 'data-delivery': d.messageId }, h('td', { title: d.messageId }, d.type), h('td', {}, time(d.createdAt)), h('td', { 'data-status': d.lastStatus === null ? '' : String(d.lastStatus) }, outcome(d))),
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
    replace(main, ...heading('Webhooks', 'Where applications asked for their events to be sent, and how the last deliveries went.'), problem, list)
    const load = async (changed: (data: unknown) => boolean) => {
      const { webhooks } = await api<{ webhooks: WebhookReport[] }>('GET', '/webhooks')
      if (!changed(webhooks)) return
      replace(
        list,
        webhooks.length === 0
          ? empty('No webhooks yet. Applications add them with their API key (POST /v1/projects/ID/webhooks).')
          : webhooks.map((webhook) =>
              h(
                'section',
                { class: 'card', 'data-webhook': webhook.id },
                h('div', { class: 'row spread' }, h('h2', {}, h('code', {}, webhook.url)), health(webhook)),
                h('p', { class: 'intro' }, `${webhook.projectName} · ${webhook.events.join(', ')}${webhook.description ? ` · ${webhook.description}` : ''}`),
                deliveryTable(webhook),
                h(
                  'div',
                  { class: 'actions' },
                  webhook.disabledAt
                    ? action('Enable again', async () => (await api('POST', `/webhooks/${webhook.id}/enable`), announce('Webhook enabled'), view.refresh()), problem)
                    : action('Send test event', async () => (await api('POST', `/webhooks/${webhook.id}/test`), announce('Test event queued'), view.refresh()), problem),
                  action('Delete', () => api('DELETE', `/webhooks/${webhook.id}`).then(() => view.refresh()), problem, { danger: true, confirmation: `Delete the webhook to ${webhook.url}? It gets no more events; the application must add it again.` }),
                ),
              ),
            ),
      )
    }
    const view = live(load, problem)
    return view
  },
}
