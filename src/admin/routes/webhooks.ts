// Every project's webhooks, for the technician: how their recent deliveries went (status codes,
// errors, attempts), a test event on demand, enabling one that was disabled for failing, deleting.
// Applications make webhooks with the public API (api/routes/webhooks.ts); secrets are never shown
// here.
import { conflict, notFound } from '../../http/errors.ts'
import { webhookReports } from '../../services/webhooks.ts'
import type { Webhook } from '../../store/webhooks.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, TECHNICIAN } from '../router.ts'

export function webhookRoutes({ store, services, webhooks }: AdminContext) {
  const webhookOr404 = (id: string): Webhook => {
    const webhook = store.webhooks.get(id)
    if (!webhook) throw notFound('There is no such webhook.')
    return webhook
  }
  return adminRouter(services, TECHNICIAN)
    .get('/webhooks', () => ({ webhooks: webhookReports(store) }))
    .post('/webhooks/:id/test', ({ params, set }) => {
      const webhook = webhookOr404(params.id)
      if (webhook.disabledAt) throw conflict('This webhook is disabled: enable it first, then send a test event.')
      set.status = 202
      return webhooks.sendTest(webhook.id)
    })
    .post('/webhooks/:id/enable', ({ params }) => {
      webhookOr404(params.id)
      webhooks.enable(params.id)
      return { webhook: webhookOr404(params.id) }
    })
    .delete('/webhooks/:id', ({ params, set }) => {
      const webhook = webhookOr404(params.id)
      store.commits.write(() => store.webhooks.delete(webhook.projectId, webhook.id))
      set.status = 204
      return null
    })
}
