// A project's stored images (a printhub extension): `PUT …/images/:name` uploads or replaces one
// (scope jobs:write), documents print it with a `logo` section of that name; `GET` lists them or
// says one (jobs:read), `DELETE` removes one (jobs:write). Jobs already made keep their copy.
import { Elysia } from 'elysia'
import { conflict, invalidField, notFound, storageFull } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { pathPart, QueryReader } from '../../http/query.ts'
import { remoteAddress } from '../../http/failure-rate-limit.ts'
import { applicationActor } from '../../services/actor.ts'
import { MAX_IMAGE_BASE64_LENGTH } from '../../protocol/limits.ts'
import { imageName, MAX_PROJECT_IMAGES, putImageRule } from '../../protocol/project-images.ts'
import { authenticate } from '../auth.ts'
import type { ApiContext } from '../context.ts'

const IMAGES_PATH = '/v1/projects/:projectId/images'
/** The body: the image's base64 and a little JSON around it. */
const MAX_BODY = MAX_IMAGE_BASE64_LENGTH + 1_024

/** The name in the address, checked as a logo section's is. */
const nameOf = (name: string) => pathPart('name', imageName, name)

export function imageRoutes({ services }: ApiContext) {
  return new Elysia()
    .put(
      `${IMAGES_PATH}/:name`,
      async ({ request, params, set, server }) => {
        const key = await authenticate(services, request, params.projectId, 'jobs:write')
        new QueryReader(request.url, []).check()
        const name = nameOf(params.name)
        const input = await readValidBody(request, putImageRule, MAX_BODY, `key:${key.id}`)
        const actor = applicationActor(key, remoteAddress(request, server))
        const outcome = await services.images.put(actor, params.projectId, name, input)
        if (outcome.kind === 'storage_full')
          throw storageFull(
            'The hub is out of disk space and keeps no new image for now; nothing was written. Try again later.',
          )
        if (outcome.kind === 'invalid') throw invalidField('data', outcome.message)
        if (outcome.kind === 'too_many')
          throw conflict(`A project keeps at most ${MAX_PROJECT_IMAGES} images; delete one first.`)
        await services.durable()
        set.status = outcome.created ? 201 : 200
        return { image: outcome.image }
      },
      { parse: 'none' },
    )
    .get(IMAGES_PATH, async ({ request, params }) => {
      await authenticate(services, request, params.projectId, 'jobs:read')
      new QueryReader(request.url, []).check()
      return { images: await services.images.list(params.projectId) }
    })
    .get(`${IMAGES_PATH}/:name`, async ({ request, params }) => {
      await authenticate(services, request, params.projectId, 'jobs:read')
      new QueryReader(request.url, []).check()
      const image = await services.images.get(params.projectId, nameOf(params.name))
      if (!image) throw notFound('This project has no image of that name.')
      return { image }
    })
    .delete(`${IMAGES_PATH}/:name`, async ({ request, params, set, server }) => {
      const key = await authenticate(services, request, params.projectId, 'jobs:write')
      new QueryReader(request.url, []).check()
      const actor = applicationActor(key, remoteAddress(request, server))
      if (!(await services.images.delete(actor, params.projectId, nameOf(params.name))))
        throw notFound('This project has no image of that name.')
      await services.durable()
      set.status = 204
      return null
    })
}
