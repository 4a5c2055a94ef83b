// Projects (staff see their names) and their API keys (technicians only): the secret is shown once, when it is made.
import { invalidField, notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import {
  type AdminApiKey,
  type AdminProject,
  newApiKeyRule,
  newProjectRule,
  PROJECT_BODY_BYTES,
} from '../../protocol/admin/projects.ts'
import type { AdminContext } from '../context.ts'
import { Elysia } from 'elysia'
import { adminRouter, STAFF_READS, TECHNICIAN } from '../router.ts'

const NO_PROJECT = 'There is no such project.'

export function projectRoutes({ services }: AdminContext) {
  const projectOr404 = async (id: string) => {
    const project = await services.projects.get(id)
    if (!project) throw notFound(NO_PROJECT)
    return project
  }
  const projects = adminRouter(services, STAFF_READS)
    .get('/projects', async (): Promise<{ projects: AdminProject[] }> => ({ projects: await services.projects.list() }))
    .post(
      '/projects',
      async ({ request, set, actor }): Promise<{ project: AdminProject }> => {
        const body = await readValidBody(request, newProjectRule, PROJECT_BODY_BYTES)
        const outcome = await services.projects.create(actor, body.name)
        if (outcome.kind === 'invalid')
          throw invalidField('name', outcome.message, `The project's name ${outcome.message}.`)
        set.status = 201
        return { project: outcome.project }
      },
      { parse: 'none' },
    )
  const keys = adminRouter(services, TECHNICIAN)
    .get('/projects/:id/keys', async ({ params }): Promise<{ keys: AdminApiKey[] }> => {
      await projectOr404(params.id)
      return { keys: await services.keys.list(params.id) }
    })
    .post(
      '/projects/:id/keys',
      async ({ request, params, set, actor }): Promise<{ key: AdminApiKey; secret: string }> => {
        await projectOr404(params.id)
        const body = await readValidBody(request, newApiKeyRule, PROJECT_BODY_BYTES)
        const made = await services.keys.create(actor, params.id, { scopes: body.scopes, name: body.name ?? null })
        if (made.kind === 'unknown_project') throw notFound(NO_PROJECT)
        if (made.kind === 'invalid') throw invalidField('scopes', 'names a scope no key has')
        set.status = 201
        return { key: made.key, secret: made.secret }
      },
      { parse: 'none' },
    )
    .post('/keys/:id/revoke', async ({ params, actor }): Promise<{ key: AdminApiKey }> => {
      const outcome = await services.keys.revoke(actor, params.id)
      if (outcome.kind === 'unknown') throw notFound('There is no such API key.')
      return { key: outcome.key }
    })
  return new Elysia().use(projects).use(keys)
}
