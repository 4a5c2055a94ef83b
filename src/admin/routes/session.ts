// Signing in (an account's name and password) and out, the first owner (through the setup link),
// changing one's password, one's sessions and one's admin tokens. Sign-ins, failed ones too, go to
// the audit log; so does every change (the router writes those).
import { Elysia } from 'elysia'
import {
  ACCOUNT_LOGIN_FAILURES,
  type Attempt,
  FailureRateLimit,
  LOGIN_FAILURES,
  remoteAddress,
} from '../../http/failure-rate-limit.ts'
import { ApiError, invalidField, notFound, rateLimited } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { ADMIN_API_PREFIX } from '../../protocol/admin-api.ts'
import { nullable, object, oneOf, optional, string } from '../../protocol/rules.ts'
import { LANGUAGE_CODES } from '../../protocol/messages/index.ts'
import { shortString } from '../../protocol/values.ts'
import { ADMIN_SESSION_LIFETIME } from '../../store/store.ts'
import {
  addUser,
  checkPassword,
  checkSignIn,
  FIRST_OWNER_NAME,
  hasAccounts,
  passwordGeneration,
  passwordProblem,
  redeemSetupToken,
  setPassword,
} from '../../services/accounts.ts'
import type { User } from '../../store/users.ts'
import { type AdminIdentity, checkOrigin, clearedSessionCookie, csrfTokenFor, sessionCookie } from '../auth.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, audited, STAFF } from '../router.ts'

const MAX_BODY = 4_096
const secretText = string({ min: 1, max: 1_024 })
const userName = string({ min: 1, max: 64 })

/** The account as the dashboard shows it: its name, its role, its language. */
const accountOf = (user: User) => ({ id: user.id, name: user.name, role: user.role, language: user.language })

function sessionAnswer(identity: AdminIdentity) {
  if (identity.kind === 'token')
    return { via: 'token' as const, csrfToken: null, session: null, user: accountOf(identity.user) }
  const { id, expiresAt } = identity.session
  return {
    via: 'session' as const,
    csrfToken: csrfTokenFor(identity.token),
    session: { id, expiresAt },
    user: accountOf(identity.user),
  }
}

export function sessionRoutes(context: AdminContext) {
  const { store, now } = context
  // Keys are an address with the password's generation, or the generation alone: only the address is told.
  const lockedOut = (what: string) => (key: string, lockMs: number, failures: number) =>
    context.log.warn(
      `${what} locked out after wrong passwords`,
      {
        address: key.includes(' ') ? key.slice(0, key.lastIndexOf(' ')) : undefined,
        minutes: Math.round(lockMs / 60_000),
        failures,
      },
      { limit: `lockout ${what}` },
    )
  const byAddress = new FailureRateLimit(LOGIN_FAILURES, now, lockedOut('sign-in from an address'))
  const byAccount = new FailureRateLimit(ACCOUNT_LOGIN_FAILURES, now, lockedOut('sign-in for an account'))

  /**
   * One guess of an account's password (signing in, or the current one when changing it), counted
   * against the address and the account before it is checked; 429 when either is locked out.
   */
  const guess = (address: string, name: string | undefined): Attempt => {
    const account = passwordGeneration(store, name)
    const fromAddress = byAddress.attempt([`${address} ${account}`])
    if (!fromAddress.ok)
      throw rateLimited(
        'rate_limited',
        'Too many wrong passwords from this address; try again later.',
        fromAddress.retryAfterMs,
      )
    const onAccount = byAccount.attempt([account])
    if (!onAccount.ok) {
      fromAddress.attempt.succeeded()
      throw rateLimited(
        'rate_limited',
        'Too many wrong passwords for this account; its sign-in is paused for a ' +
          'while (printhub admin set-password on the hub ends it).',
        onAccount.retryAfterMs,
      )
    }
    return { succeeded: () => (fromAddress.attempt.succeeded(), onAccount.attempt.succeeded()) }
  }

  const startSession = (
    request: Request,
    user: User,
    address: string,
    set: { headers: Record<string, string | number> },
  ) => {
    const { session, token } = store.commits.write(() =>
      store.adminSessions.create(user.id, address, request.headers.get('user-agent') ?? ''),
    )
    audited(store, { identity: { user }, action: 'session.sign_in', target: session.id, address })
    set.headers['set-cookie'] = sessionCookie(request, token, Math.floor(ADMIN_SESSION_LIFETIME.maxMs / 1000))
    return {
      via: 'session' as const,
      csrfToken: csrfTokenFor(token),
      session: { id: session.id, expiresAt: session.expiresAt },
      user: accountOf(user),
    }
  }

  const signedOut = new Elysia({ prefix: ADMIN_API_PREFIX })
    // The only calls without a session: whether there is an account, signing in, and the first owner.
    .get('/login', () => ({ passwordSet: hasAccounts(store) }))
    .post(
      '/login',
      async ({ request, server, set }) => {
        checkOrigin(request)
        const address = remoteAddress(request, server)
        const body = await readValidBody(request, object({ name: optional(userName), password: secretText }), MAX_BODY)
        const attempt = guess(address, body.name)
        const user = await checkSignIn(store, body.name, body.password)
        if (!user) {
          const known = body.name === undefined ? undefined : store.users.withHash(body.name)?.user
          store.commits.write(() =>
            store.audit.record({
              userId: known?.id ?? null,
              user: known?.name ?? body.name ?? null,
              action: 'session.sign_in_failed',
              address,
            }),
          )
          if (!hasAccounts(store))
            throw new ApiError(
              'unauthorized',
              'No account exists yet: open the setup link the hub printed, or run printhub admin set-password.',
            )
          if (body.name !== undefined)
            throw new ApiError('unauthorized', 'That name and password do not match an account that may sign in.')
          throw new ApiError(
            'unauthorized',
            store.users.count() === 1 ? 'That password is not right.' : 'Give your name as well as your password.',
          )
        }
        attempt.succeeded()
        return startSession(request, user, address, set)
      },
      { parse: 'none' },
    )
    .post(
      '/setup',
      async ({ request, server, set }) => {
        checkOrigin(request)
        const body = await readValidBody(
          request,
          object({ token: secretText, password: secretText, name: optional(userName) }),
          MAX_BODY,
        )
        const problem = passwordProblem(body.password)
        if (problem) throw invalidField('password', problem, problem)
        // Used up here, before the password is hashed: of links sent at once, one makes the owner.
        if (!redeemSetupToken(store, body.token, now())) {
          throw new ApiError(
            'unauthorized',
            'This setup link is not valid any more: it was used, or it expired. ' +
              'Restart the hub for a new one, or run printhub admin set-password.',
          )
        }
        const added = await addUser(store, body.name ?? FIRST_OWNER_NAME, 'owner', body.password)
        if (added.kind === 'invalid') throw invalidField(added.path, added.message, added.message)
        if (added.kind === 'taken') throw new ApiError('conflict', 'An account of that name exists already.')
        const address = remoteAddress(request, server)
        audited(store, { identity: { user: added.user }, action: 'users.create', target: added.user.name, address })
        return startSession(request, added.user, address, set)
      },
      { parse: 'none' },
    )

  const signedIn = adminRouter(store, STAFF)
    .get('/session', ({ admin }) => sessionAnswer(admin))
    .post('/logout', ({ request, admin, set }) => {
      if (admin.kind === 'session')
        store.commits.write(() => store.adminSessions.revoke(admin.user.id, admin.session.id))
      set.headers['set-cookie'] = clearedSessionCookie(request)
      return { signedOut: true }
    })
    .get('/sessions', ({ admin }) => {
      const current = admin.kind === 'session' ? admin.session.id : null
      return { sessions: store.adminSessions.listLive(admin.user.id).map((s) => ({ ...s, current: s.id === current })) }
    })
    // Sign out everywhere (but here): a lost phone, or a password seen by someone.
    .post('/sessions/revoke-others', ({ admin }) => ({
      signedOut: store.commits.write(() =>
        store.adminSessions.revokeAll(admin.user.id, admin.kind === 'session' ? admin.session.id : undefined),
      ),
    }))
    .post('/sessions/:id/revoke', ({ admin, params }) => {
      if (!store.commits.write(() => store.adminSessions.revoke(admin.user.id, params.id)))
        throw notFound('There is no such session of yours, or it already ended.')
      return { revoked: true }
    })
    .put(
      '/password',
      async ({ request, server, admin }) => {
        const attempt = guess(remoteAddress(request, server), admin.user.name)
        const body = await readValidBody(
          request,
          object({ currentPassword: secretText, newPassword: secretText }),
          MAX_BODY,
        )
        if (!(await checkPassword(store, admin.user.id, body.currentPassword))) {
          throw invalidField('currentPassword', 'is not right', 'The current password is not right.')
        }
        attempt.succeeded()
        const problem = passwordProblem(body.newPassword)
        if (problem) throw invalidField('newPassword', problem, problem)
        await setPassword(store, admin.user.id, body.newPassword)
        // Whoever knew the old password is signed out; this browser stays signed in.
        const signedOut = store.commits.write(() =>
          store.adminSessions.revokeAll(admin.user.id, admin.kind === 'session' ? admin.session.id : undefined),
        )
        return { changed: true, otherSessionsEnded: signedOut }
      },
      { parse: 'none' },
    )
    // The account's language for the dashboard (null: the browser's).
    .put(
      '/session/language',
      async ({ request, admin }) => {
        const body = await readValidBody(request, object({ language: nullable(oneOf(LANGUAGE_CODES)) }), MAX_BODY)
        const user = store.commits.write(() => store.users.update(admin.user.id, { language: body.language }))!
        return { user: accountOf(user) }
      },
      { parse: 'none' },
    )
    // One's own admin tokens: each carries the account's role.
    .get('/tokens', ({ admin }) => ({ tokens: store.adminTokens.list(admin.user.id) }))
    .post(
      '/tokens',
      async ({ request, set, admin }) => {
        const body = await readValidBody(request, object({ name: shortString }), MAX_BODY)
        const { token, secret } = store.commits.write(() => store.adminTokens.create(admin.user.id, body.name))
        set.status = 201
        return { token, secret }
      },
      { parse: 'none' },
    )
    .post('/tokens/:id/revoke', ({ params, admin }) => {
      if (!store.commits.write(() => store.adminTokens.revoke(params.id, admin.user.id)))
        throw notFound('There is no such admin token of yours, or it is already revoked.')
      return { revoked: true }
    })

  return new Elysia().use(signedOut).use(signedIn)
}
