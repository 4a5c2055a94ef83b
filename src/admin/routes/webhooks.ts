// Every project's webhooks, for the technician: how their recent deliveries went (status codes,
// errors, attempts), a test event on demand, enabling one that was disabled for failing, deleting.
// Applications make webhooks with the public API (api/routes/webhooks.ts); secrets are never shown
// here.
import { conflict, notFound } from '../../http/errors.ts'
import type { AdminWebhook, WebhookReport } from '../../protocol/admin/webhooks.ts'
import type { EventType } from '../../protocol/events.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, TECHNICIAN } from '../router.ts'

const NO_WEBHOOK = 'There is no such webhook.'

/** A webhook's events as the contract types them: kept as the public API checked them when it made the webhook. */
const typed = <W extends { events: string[] }>(webhook: W) => ({ ...webhook, events: webhook.events as EventType[] })

export function webhookRoutes({ services }: AdminContext) {
  return adminRouter(services, TECHNICIAN)
    .get(
      '/webhooks',
      async (): Promise<{ webhooks: WebhookReport[] }> => ({
        webhooks: (await services.webhooks.reports()).map(typed),
      }),
    )
    .post('/webhooks/:id/test', async ({ params, set, actor }): Promise<{ messageId: string }> => {
      const outcome = await services.webhooks.sendTest(actor, params.id)
      if (outcome.kind === 'unknown') throw notFound(NO_WEBHOOK)
      if (outcome.kind === 'disabled')
        throw conflict('This webhook is disabled: enable it first, then send a test event.')
      set.status = 202
      return { messageId: outcome.messageId }
    })
    .post('/webhooks/:id/enable', async ({ params, actor }): Promise<{ webhook: AdminWebhook }> => {
      const webhook = await services.webhooks.enable(actor, params.id)
      if (!webhook) throw notFound(NO_WEBHOOK)
      return { webhook: typed(webhook) }
    })
    .delete('/webhooks/:id', async ({ params, set, actor }) => {
      if (!(await services.webhooks.delete(actor, params.id))) throw notFound(NO_WEBHOOK)
      set.status = 204
      return null
    })
}
