// The public edge: health, discovery and pairing (OpenPrinter), the job API, the project's
// printers and events, the OpenAPI document of them, and the gateway's WebSocket endpoint where
// agents connect.
import { Elysia } from 'elysia'
import type { ApiContext } from './context.ts'
import { discoveryRoutes } from './routes/discovery.ts'
import { gatewayRoute } from './routes/gateway.ts'
import { healthRoutes } from './routes/health.ts'
import { jobRoutes } from './routes/jobs.ts'
import { pairingRoutes } from './routes/pairing.ts'
import { eventRoutes } from './routes/events.ts'
import { printerRoutes } from './routes/printers.ts'
import { webhookRoutes } from './routes/webhooks.ts'
import { imageRoutes } from './routes/images.ts'
import { destinationRoutes } from './routes/destinations.ts'

export function publicApi(context: ApiContext) {
  return new Elysia()
    .use(healthRoutes(context.serverId, context.capacity))
    .use(discoveryRoutes(context))
    .use(pairingRoutes(context))
    .use(jobRoutes(context))
    .use(printerRoutes(context))
    .use(eventRoutes(context))
    .use(webhookRoutes(context))
    .use(imageRoutes(context))
    .use(destinationRoutes(context))
    .get('/openapi.json', async () => (await import('./openapi.ts')).openApiDocument())
    .use(gatewayRoute(context.gateway))
}
