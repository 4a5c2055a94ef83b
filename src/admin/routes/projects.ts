// Projects (staff see their names) and their API keys (technicians only): the secret is shown once, when it is made.
import { notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { API_KEY_SCOPES } from '../../protocol/api-key.ts'
import { array, nullable, object, oneOf, optional } from '../../protocol/rules.ts'
import { shortString } from '../../protocol/values.ts'
import type { AdminContext } from '../context.ts'
import { Elysia } from 'elysia'
import { adminRouter, STAFF_READS, TECHNICIAN } from '../router.ts'

const MAX_BODY = 4_096

export function projectRoutes({ store, services }: AdminContext) {
  const projectOr404 = (id: string) => {
    const project = store.projects.get(id)
    if (!project) throw notFound('There is no such project.')
    return project
  }
  const projects = adminRouter(services, STAFF_READS)
    .get('/projects', () => ({ projects: store.projects.list() }))
    .post(
      '/projects',
      async ({ request, set }) => {
        const body = await readValidBody(request, object({ name: shortString }), MAX_BODY)
        set.status = 201
        return { project: store.projects.create(body.name.trim() || body.name) }
      },
      { parse: 'none' },
    )
  const keys = adminRouter(services, TECHNICIAN)
    .get('/projects/:id/keys', ({ params }) => {
      projectOr404(params.id)
      return { keys: store.apiKeys.list(params.id) }
    })
    .post(
      '/projects/:id/keys',
      async ({ request, params, set }) => {
        projectOr404(params.id)
        const body = await readValidBody(
          request,
          object({
            name: optional(nullable(shortString)),
            scopes: array(oneOf(API_KEY_SCOPES), { min: 1, max: API_KEY_SCOPES.length, unique: true }),
          }),
          MAX_BODY,
        )
        const { key, secret } = store.apiKeys.create(params.id, body.scopes, body.name ?? null)
        set.status = 201
        return { key, secret }
      },
      { parse: 'none' },
    )
    .post('/keys/:id/revoke', ({ params }) => {
      const key = store.apiKeys.get(params.id)
      if (!key) throw notFound('There is no such API key.')
      store.apiKeys.revoke(key.id)
      return { key: store.apiKeys.get(key.id) }
    })
  return new Elysia().use(projects).use(keys)
}
