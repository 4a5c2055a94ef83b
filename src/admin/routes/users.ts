// The dashboard's accounts (owners only): listed, added with a role and a password, changed (role,
// password, disabled at once: its sessions end and its tokens stop working). The hub always keeps
// one owner who can sign in.
import { conflict, invalidField, notFound } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { ADMIN_ROLES } from '../../protocol/admin-api.ts'
import { boolean, object, oneOf, optional, string } from '../../protocol/rules.ts'
import { addUser, passwordProblem, setPassword } from '../../services/accounts.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, OWNER } from '../router.ts'

const MAX_BODY = 4_096
const password = string({ min: 1, max: 1_024 })

export function userRoutes({ store }: AdminContext) {
  return adminRouter(store, OWNER)
    .get('/users', () => ({ users: store.users.list() }))
    .post(
      '/users',
      async ({ request, set }) => {
        const body = await readValidBody(
          request,
          object({ name: string({ min: 1, max: 64 }), role: oneOf(ADMIN_ROLES), password }),
          MAX_BODY,
        )
        const added = await addUser(store, body.name, body.role, body.password)
        if (added.kind === 'invalid') throw invalidField(added.path, added.message, added.message)
        if (added.kind === 'taken') throw conflict(`There is an account named "${body.name}" already.`)
        set.status = 201
        return { user: added.user }
      },
      { parse: 'none' },
    )
    .patch(
      '/users/:id',
      async ({ request, params }) => {
        const body = await readValidBody(
          request,
          object({ role: optional(oneOf(ADMIN_ROLES)), disabled: optional(boolean()), password: optional(password) }),
          MAX_BODY,
        )
        const user = store.users.get(params.id)
        if (!user) throw notFound('There is no such account.')
        const losesOwner =
          user.role === 'owner' &&
          !user.disabled &&
          ((body.role !== undefined && body.role !== 'owner') || body.disabled === true)
        if (losesOwner && store.users.activeOwners() === 1)
          throw conflict(`${user.name} is the only owner who can sign in: make another owner first.`)
        if (body.password !== undefined) {
          const problem = passwordProblem(body.password)
          if (problem) throw invalidField('password', problem, problem)
          await setPassword(store, user.id, body.password)
        }
        const changed = store.commits.write(() => {
          // Disabled, or given a new password by an owner: signed out everywhere at once.
          if (body.disabled === true || body.password !== undefined) store.adminSessions.revokeAll(user.id)
          return store.users.update(user.id, {
            ...(body.role !== undefined ? { role: body.role } : {}),
            ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
          })
        })
        return { user: changed }
      },
      { parse: 'none' },
    )
}
