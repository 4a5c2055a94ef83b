// The dashboard's accounts (owners only): listed, added with a role and a password, changed (role,
// password, disabled at once: its sessions end and its tokens stop working). The hub always keeps
// one owner who can sign in (services/accounts.ts says so, for the CLI too).
import { conflict, invalidField, notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { ADMIN_ROLES } from '../../protocol/admin-api.ts'
import { boolean, object, oneOf, optional, string } from '../../protocol/rules.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, OWNER } from '../router.ts'

const MAX_BODY = 4_096
const password = string({ min: 1, max: 1_024 })

export function userRoutes({ services }: AdminContext) {
  return adminRouter(services, OWNER)
    .get('/users', () => ({ users: services.accounts.list() }))
    .post(
      '/users',
      async ({ request, set, actor }) => {
        const body = await readValidBody(
          request,
          object({ name: string({ min: 1, max: 64 }), role: oneOf(ADMIN_ROLES), password }),
          MAX_BODY,
        )
        const added = await services.accounts.add(actor, body)
        if (added.kind === 'invalid') throw invalidField(added.path, added.message, added.message)
        if (added.kind === 'taken') throw conflict(`There is an account named "${body.name}" already.`)
        set.status = 201
        return { user: added.user }
      },
      { parse: 'none' },
    )
    .patch(
      '/users/:id',
      async ({ request, params, actor }) => {
        const body = await readValidBody(
          request,
          object({ role: optional(oneOf(ADMIN_ROLES)), disabled: optional(boolean()), password: optional(password) }),
          MAX_BODY,
        )
        const outcome = await services.accounts.change(actor, params.id, body)
        if (outcome.kind === 'unknown') throw notFound('There is no such account.')
        if (outcome.kind === 'last_owner')
          throw conflict(`${outcome.user.name} is the only owner who can sign in: make another owner first.`)
        if (outcome.kind === 'invalid') throw invalidField('password', outcome.message, outcome.message)
        return { user: outcome.user }
      },
      { parse: 'none' },
    )
}
