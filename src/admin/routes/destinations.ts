// Every project's destinations, for the technician: made, listed with their printers, deleted, as
// the public API and the CLI make them (services/destinations.ts).
import { conflict, invalidRequest, notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { array, object, oneOf, optional, string } from '../../protocol/rules.ts'
import { DESTINATION_MODES, MAX_DESTINATION_PRINTERS } from '../../protocol/destinations.ts'
import { identifier } from '../../protocol/values.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, STAFF_READS } from '../router.ts'

const MAX_BODY = 16_384
const newDestinationRule = object({
  name: identifier,
  mode: optional(oneOf(DESTINATION_MODES)),
  printers: array(string({ min: 1, max: 256 }), { min: 1, max: MAX_DESTINATION_PRINTERS }),
})

export function destinationRoutes({ services }: AdminContext) {
  return adminRouter(services, STAFF_READS)
    .get('/destinations', () => ({ destinations: services.destinations.reports() }))
    .post(
      '/projects/:id/destinations',
      async ({ request, params, set, actor }) => {
        const input = await readValidBody(request, newDestinationRule, MAX_BODY)
        const outcome = services.destinations.create(actor, params.id, input.name, {
          mode: input.mode ?? 'failover',
          printers: input.printers,
        })
        if (outcome.kind === 'invalid') throw invalidRequest(outcome.issues)
        if (outcome.kind === 'taken')
          throw conflict(`This project already has a printer or destination named "${outcome.name}".`)
        if (outcome.kind === 'unknown') throw notFound('There is no such project.')
        set.status = 201
        return { destination: outcome.destination }
      },
      { parse: 'none' },
    )
    .delete('/projects/:id/destinations/:name', ({ params, set, actor }) => {
      if (!services.destinations.delete(actor, params.id, params.name))
        throw notFound('This project has no destination of that name.')
      set.status = 204
      return null
    })
}
