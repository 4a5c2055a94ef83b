// A project's destinations (a printhub extension): names applications post jobs to instead of a
// printer, with failover between their printers (services/failover.ts). Changes need scope
// printers:write; reading printers:read. Names share one namespace with the project's printers.
import { Elysia } from 'elysia'
import { ApiError, conflict, invalidField, invalidRequest, notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { QueryReader } from '../../http/query.ts'
import { createDestinationRule, type DestinationView, updateDestinationRule } from '../../protocol/destinations.ts'
import { validate } from '../../protocol/rules.ts'
import { identifier } from '../../protocol/values.ts'
import type { Destination } from '../../store/destinations.ts'
import type { Store } from '../../store/store.ts'
import { authenticate } from '../auth.ts'
import type { ApiContext } from '../context.ts'

const DESTINATIONS_PATH = '/v1/projects/:projectId/destinations'
const MAX_BODY = 16_384

const view = ({ name, mode, printers, createdAt, updatedAt }: Destination): DestinationView => ({ name, mode, printers, createdAt, updatedAt })

/** The printers named (record IDs or names), as record IDs; 400 naming each the project lacks. */
function printerIds(store: Store, projectId: string, names: readonly string[]): string[] {
  const found = names.map((name) => store.printers.resolve(projectId, name)?.id)
  const missing = found.flatMap((id, index) => (id ? [] : [{ path: `printers[${index}]`, message: `is no printer of this project ("${names[index]}")` }]))
  if (missing.length > 0) throw invalidRequest(missing)
  if (new Set(found).size !== found.length) throw invalidField('printers', 'names one printer twice')
  return found as string[]
}

/** Fan-out (mode `all`) is not built yet: refused plainly rather than printed on one printer. */
function checkMode(mode: string): 'failover' {
  if (mode !== 'failover') throw invalidField('mode', 'must be "failover" for now: fan-out to every printer ("all") is not available yet')
  return mode
}

function nameOf(name: string): string {
  const checked = validate(identifier, name)
  if (!checked.ok) throw invalidField('name', checked.issues[0]!.message)
  return checked.value
}

export function destinationRoutes({ store }: ApiContext) {
  const destinationOr404 = (projectId: string, name: string) => {
    const found = store.destinations.get(projectId, nameOf(name))
    if (!found) throw notFound('This project has no destination of that name.')
    return found
  }
  return new Elysia()
    .post(
      DESTINATIONS_PATH,
      async ({ request, params, set }) => {
        const key = authenticate(store, request, params.projectId, 'printers:write')
        new QueryReader(request.url, []).check()
        const input = await readValidBody(request, createDestinationRule, MAX_BODY, `key:${key.id}`)
        const mode = checkMode(input.mode)
        const printers = printerIds(store, params.projectId, input.printers)
        // One namespace: applications post to a printer or a destination by the same field.
        if (store.printers.resolve(params.projectId, input.name) || store.destinations.get(params.projectId, input.name)) throw conflict(`This project already has a printer or destination named "${input.name}".`)
        const destination = store.commits.write(() => store.destinations.create(params.projectId, input.name, mode, printers))
        await store.commits.durable()
        set.status = 201
        return { destination: view(destination) }
      },
      { parse: 'none' },
    )
    .get(DESTINATIONS_PATH, ({ request, params }) => {
      authenticate(store, request, params.projectId, 'printers:read')
      new QueryReader(request.url, []).check()
      return { destinations: store.destinations.list(params.projectId).map(view) }
    })
    .get(`${DESTINATIONS_PATH}/:name`, ({ request, params }) => {
      authenticate(store, request, params.projectId, 'printers:read')
      new QueryReader(request.url, []).check()
      return { destination: view(destinationOr404(params.projectId, params.name)) }
    })
    .put(
      `${DESTINATIONS_PATH}/:name`,
      async ({ request, params }) => {
        const key = authenticate(store, request, params.projectId, 'printers:write')
        new QueryReader(request.url, []).check()
        const existing = destinationOr404(params.projectId, params.name)
        const input = await readValidBody(request, updateDestinationRule, MAX_BODY, `key:${key.id}`)
        const mode = checkMode(input.mode)
        const printers = printerIds(store, params.projectId, input.printers)
        const updated = store.commits.write(() => store.destinations.update(params.projectId, existing.name, mode, printers))
        if (!updated) throw new ApiError('not_found', 'This project has no destination of that name.')
        await store.commits.durable()
        return { destination: view(updated) }
      },
      { parse: 'none' },
    )
    .delete(`${DESTINATIONS_PATH}/:name`, async ({ request, params, set }) => {
      authenticate(store, request, params.projectId, 'printers:write')
      new QueryReader(request.url, []).check()
      const existing = destinationOr404(params.projectId, params.name)
      store.commits.write(() => store.destinations.delete(params.projectId, existing.name))
      await store.commits.durable()
      set.status = 204
      return null
    })
}
