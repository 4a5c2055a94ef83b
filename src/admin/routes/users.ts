// The dashboard's accounts (owners only): listed, added with a role and a password, changed (role,
// password, disabled at once: its sessions end and its tokens stop working). The hub always keeps
// one owner who can sign in (services/accounts.ts says so, for the CLI too).
import { conflict, invalidField, notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { ACCOUNT_BODY_BYTES } from '../../protocol/admin/session.ts'
import { type AdminUser, newUserRule, userChangeRule } from '../../protocol/admin/users.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, OWNER } from '../router.ts'

export function userRoutes({ services }: AdminContext) {
  return adminRouter(services, OWNER)
    .get('/users', async (): Promise<{ users: AdminUser[] }> => ({ users: await services.accounts.list() }))
    .post(
      '/users',
      async ({ request, set, actor }): Promise<{ user: AdminUser }> => {
        const body = await readValidBody(request, newUserRule, ACCOUNT_BODY_BYTES)
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
      async ({ request, params, actor }): Promise<{ user: AdminUser }> => {
        const body = await readValidBody(request, userChangeRule, ACCOUNT_BODY_BYTES)
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
