// The project's webhooks (scope webhooks:write): made with a URL and the event types it wants; its
// secret (`whsec_…`) is shown once, when it is made. Deliveries follow Standard Webhooks
// (services/webhooks.ts sends them).
import { Elysia } from 'elysia'
import { notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { QueryReader } from '../../http/query.ts'
import { createWebhookRule } from '../../protocol/webhooks.ts'
import type { Webhook } from '../../domain/records.ts'
import { remoteAddress } from '../../http/failure-rate-limit.ts'
import { applicationActor } from '../../services/actor.ts'
import { authenticate } from '../auth.ts'
import type { ApiContext } from '../context.ts'

const WEBHOOKS_PATH = '/v1/projects/:projectId/webhooks'
const MAX_BODY = 8_192

const shown = (webhook: Webhook) => ({
  id: webhook.id,
  url: webhook.url,
  events: webhook.events,
  description: webhook.description,
  createdAt: webhook.createdAt,
  failingSince: webhook.failingSince,
  disabledAt: webhook.disabledAt,
})

export function webhookRoutes({ services }: ApiContext) {
  return new Elysia()
    .post(
      WEBHOOKS_PATH,
      async ({ request, params, set, server }) => {
        const key = await authenticate(services, request, params.projectId, 'webhooks:write')
        new QueryReader(request.url, []).check()
        const input = await readValidBody(request, createWebhookRule, MAX_BODY, `key:${key.id}`)
        const { webhook, secret } = await services.webhooks.create(
          applicationActor(key, remoteAddress(request, server)),
          params.projectId,
          { url: input.url, events: input.events, description: input.description ?? null },
        )
        await services.durable()
        set.status = 201
        return {
          webhook: { id: webhook.id, url: webhook.url, events: webhook.events, createdAt: webhook.createdAt },
          secret,
        }
      },
      { parse: 'none' },
    )
    .get(WEBHOOKS_PATH, async ({ request, params }) => {
      await authenticate(services, request, params.projectId, 'webhooks:write')
      new QueryReader(request.url, []).check()
      return { webhooks: (await services.webhooks.list(params.projectId)).map(shown) }
    })
    .delete(`${WEBHOOKS_PATH}/:webhookId`, async ({ request, params, set, server }) => {
      const key = await authenticate(services, request, params.projectId, 'webhooks:write')
      new QueryReader(request.url, []).check()
      const actor = applicationActor(key, remoteAddress(request, server))
      if (!(await services.webhooks.delete(actor, params.webhookId, params.projectId)))
        throw notFound('This project has no such webhook.')
      await services.durable()
      set.status = 204
      return null
    })
}
