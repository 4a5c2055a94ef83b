// A project's destinations (a printhub extension): names applications post jobs to instead of a
// printer, with failover between their printers (services/failover.ts). Changes need scope
// printers:write; reading printers:read. Names share one namespace with the project's printers.
import { Elysia } from 'elysia'
import { conflict, invalidRequest, notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { pathPart, QueryReader } from '../../http/query.ts'
import { createDestinationRule, type DestinationView, updateDestinationRule } from '../../protocol/destinations.ts'
import { identifier } from '../../protocol/values.ts'
import type { Destination } from '../../domain/records.ts'
import { remoteAddress } from '../../http/failure-rate-limit.ts'
import { applicationActor } from '../../services/actor.ts'
import type { DestinationOutcome } from '../../services/destinations.ts'
import { authenticate } from '../auth.ts'
import type { ApiContext } from '../context.ts'

const DESTINATIONS_PATH = '/v1/projects/:projectId/destinations'
const MAX_BODY = 16_384

const view = ({ name, mode, printers, createdAt, updatedAt }: Destination): DestinationView => ({
  name,
  mode,
  printers,
  createdAt,
  updatedAt,
})

/** A create or change, in HTTP terms. */
function said(outcome: DestinationOutcome): DestinationView {
  if (outcome.kind === 'invalid') throw invalidRequest(outcome.issues)
  if (outcome.kind === 'taken')
    throw conflict(`This project already has a printer or destination named "${outcome.name}".`)
  if (outcome.kind === 'unknown') throw notFound('This project has no destination of that name.')
  return view(outcome.destination)
}

const nameOf = (name: string) => pathPart('name', identifier, name)

export function destinationRoutes({ services }: ApiContext) {
  const destinationOr404 = async (projectId: string, name: string) => {
    const found = await services.destinations.get(projectId, nameOf(name))
    if (!found) throw notFound('This project has no destination of that name.')
    return found
  }
  return new Elysia()
    .post(
      DESTINATIONS_PATH,
      async ({ request, params, set, server }) => {
        const key = await authenticate(services, request, params.projectId, 'printers:write')
        new QueryReader(request.url, []).check()
        const input = await readValidBody(request, createDestinationRule, MAX_BODY, `key:${key.id}`)
        const actor = applicationActor(key, remoteAddress(request, server))
        const destination = said(await services.destinations.create(actor, params.projectId, input.name, input))
        await services.durable()
        set.status = 201
        return { destination }
      },
      { parse: 'none' },
    )
    .get(DESTINATIONS_PATH, async ({ request, params }) => {
      await authenticate(services, request, params.projectId, 'printers:read')
      new QueryReader(request.url, []).check()
      return { destinations: (await services.destinations.list(params.projectId)).map(view) }
    })
    .get(`${DESTINATIONS_PATH}/:name`, async ({ request, params }) => {
      await authenticate(services, request, params.projectId, 'printers:read')
      new QueryReader(request.url, []).check()
      return { destination: view(await destinationOr404(params.projectId, params.name)) }
    })
    .put(
      `${DESTINATIONS_PATH}/:name`,
      async ({ request, params, server }) => {
        const key = await authenticate(services, request, params.projectId, 'printers:write')
        new QueryReader(request.url, []).check()
        const existing = await destinationOr404(params.projectId, params.name)
        const input = await readValidBody(request, updateDestinationRule, MAX_BODY, `key:${key.id}`)
        const actor = applicationActor(key, remoteAddress(request, server))
        const destination = said(await services.destinations.set(actor, params.projectId, existing.name, input))
        await services.durable()
        return { destination }
      },
      { parse: 'none' },
    )
    .delete(`${DESTINATIONS_PATH}/:name`, async ({ request, params, set, server }) => {
      const key = await authenticate(services, request, params.projectId, 'printers:write')
      new QueryReader(request.url, []).check()
      const existing = await destinationOr404(params.projectId, params.name)
      await services.destinations.delete(
        applicationActor(key, remoteAddress(request, server)),
        params.projectId,
        existing.name,
      )
      await services.durable()
      set.status = 204
      return null
    })
}
