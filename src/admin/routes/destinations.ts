// Every project's destinations, for the technician: made, listed with their printers, deleted, as
// the public API and the CLI make them (services/destinations.ts).
import { conflict, invalidRequest, notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import {
  type AdminDestination,
  DESTINATION_BODY_BYTES,
  type DestinationReport,
  newDestinationRule,
} from '../../protocol/admin/destinations.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, STAFF_READS } from '../router.ts'

export function destinationRoutes({ services }: AdminContext) {
  return adminRouter(services, STAFF_READS)
    .get(
      '/destinations',
      async (): Promise<{ destinations: DestinationReport[] }> => ({
        destinations: await services.destinations.reports(),
      }),
    )
    .post(
      '/projects/:id/destinations',
      async ({ request, params, set, actor }): Promise<{ destination: AdminDestination }> => {
        const input = await readValidBody(request, newDestinationRule, DESTINATION_BODY_BYTES)
        const outcome = await services.destinations.create(actor, params.id, input.name, {
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
    .delete('/projects/:id/destinations/:name', async ({ params, set, actor }) => {
      if (!(await services.destinations.delete(actor, params.id, params.name)))
        throw notFound('This project has no destination of that name.')
      set.status = 204
      return null
    })
}
