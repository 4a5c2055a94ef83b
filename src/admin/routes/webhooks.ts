// Every project's webhooks, for the technician: how their recent deliveries went (status codes,
// errors, attempts), a test event on demand, enabling one that was disabled for failing, deleting.
// Applications make webhooks with the public API (api/routes/webhooks.ts); secrets are never shown
// here.
import { conflict, notFound } from '../../http/errors.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, TECHNICIAN } from '../router.ts'

const NO_WEBHOOK = 'There is no such webhook.'

export function webhookRoutes({ services }: AdminContext) {
  return adminRouter(services, TECHNICIAN)
    .get('/webhooks', () => ({ webhooks: services.webhooks.reports() }))
    .post('/webhooks/:id/test', ({ params, set, actor }) => {
      const outcome = services.webhooks.sendTest(actor, params.id)
      if (outcome.kind === 'unknown') throw notFound(NO_WEBHOOK)
      if (outcome.kind === 'disabled')
        throw conflict('This webhook is disabled: enable it first, then send a test event.')
      set.status = 202
      return { messageId: outcome.messageId }
    })
    .post('/webhooks/:id/enable', ({ params, actor }) => {
      const webhook = services.webhooks.enable(actor, params.id)
      if (!webhook) throw notFound(NO_WEBHOOK)
      return { webhook }
    })
    .delete('/webhooks/:id', ({ params, set, actor }) => {
      if (!services.webhooks.delete(actor, params.id)) throw notFound(NO_WEBHOOK)
      set.status = 204
      return null
    })
}
