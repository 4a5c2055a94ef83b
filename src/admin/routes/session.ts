// Signing in (an account's name and password) and out, the first owner (through the setup link),
// changing one's password, one's sessions and one's admin tokens. Sign-ins, failed ones too, go to
// the audit log; so does every change (each operation writes its own entry).
import { Elysia } from 'elysia'
import {
  ACCOUNT_LOGIN_FAILURES,
  FailureRateLimit,
  LOGIN_FAILURES,
  remoteAddress,
} from '../../http/failure-rate-limit.ts'
import type { Attempt, FailureCountsOf } from '../../domain/failure-limit.ts'
import { ApiError, invalidField, notFound, rateLimited } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { ADMIN_API_PREFIX } from '../../protocol/admin-api.ts'
import {
  ACCOUNT_BODY_BYTES,
  type Account,
  type AdminSessionView,
  type AdminTokenView,
  languageChangeRule,
  newTokenRule,
  passwordChangeRule,
  type SessionAnswer,
  setupRule,
  signInRule,
} from '../../protocol/admin/session.ts'
import { ADMIN_SESSION_LIFETIME, type User } from '../../domain/accounts.ts'
import { FIRST_OWNER_NAME, passwordProblem } from '../../services/accounts.ts'
import { type AdminIdentity, checkOrigin, clearedSessionCookie, csrfTokenFor, sessionCookie } from '../auth.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, STAFF } from '../router.ts'

/** The account as the dashboard shows it: its name, its role, its language. */
const accountOf = (user: User): Account => ({ id: user.id, name: user.name, role: user.role, language: user.language })

function sessionAnswer(identity: AdminIdentity): SessionAnswer {
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
  const { services, now } = context
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
  const counts: FailureCountsOf =
    context.failureCounts ?? ((_scope, bounds, told) => new FailureRateLimit(bounds, now, told))
  const byAddress = counts('sign-in-address', LOGIN_FAILURES, lockedOut('sign-in from an address'))
  const byAccount = counts('sign-in-account', ACCOUNT_LOGIN_FAILURES, lockedOut('sign-in for an account'))

  /**
   * One guess of an account's password (signing in, or the current one when changing it), counted
   * against the address and the account before it is checked; 429 when either is locked out.
   */
  const guess = async (address: string, name: string | undefined): Promise<Attempt> => {
    const account = await services.accounts.passwordGeneration(name)
    const fromAddress = await byAddress.attempt([`${address} ${account}`])
    if (!fromAddress.ok)
      throw rateLimited(
        'rate_limited',
        'Too many wrong passwords from this address; try again later.',
        fromAddress.retryAfterMs,
      )
    const onAccount = await byAccount.attempt([account])
    if (!onAccount.ok) {
      await fromAddress.attempt.succeeded()
      throw rateLimited(
        'rate_limited',
        'Too many wrong passwords for this account; its sign-in is paused for a ' +
          'while (printhub admin set-password on the hub ends it).',
        onAccount.retryAfterMs,
      )
    }
    return {
      succeeded: async () => {
        await fromAddress.attempt.succeeded()
        await onAccount.attempt.succeeded()
      },
    }
  }

  const startSession = async (
    request: Request,
    user: User,
    address: string,
    set: { headers: Record<string, string | number> },
  ): Promise<SessionAnswer> => {
    const { session, token } = await services.access.signIn(user, {
      address,
      userAgent: request.headers.get('user-agent') ?? '',
    })
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
    .get('/login', async (): Promise<{ passwordSet: boolean }> => ({ passwordSet: await services.accounts.any() }))
    .post(
      '/login',
      async ({ request, server, set }) => {
        checkOrigin(request)
        const address = remoteAddress(request, server)
        const body = await readValidBody(request, signInRule, ACCOUNT_BODY_BYTES)
        const attempt = await guess(address, body.name)
        const user = await services.accounts.checkSignIn(body.name, body.password)
        if (!user) {
          await services.access.signInFailed(body.name, address)
          if (!(await services.accounts.any()))
            throw new ApiError(
              'unauthorized',
              'No account exists yet: open the setup link the hub printed, or run printhub admin set-password.',
            )
          if (body.name !== undefined)
            throw new ApiError('unauthorized', 'That name and password do not match an account that may sign in.')
          throw new ApiError(
            'unauthorized',
            (await services.accounts.count()) === 1
              ? 'That password is not right.'
              : 'Give your name as well as your password.',
          )
        }
        await attempt.succeeded()
        return startSession(request, user, address, set)
      },
      { parse: 'none' },
    )
    .post(
      '/setup',
      async ({ request, server, set }) => {
        checkOrigin(request)
        const body = await readValidBody(request, setupRule, ACCOUNT_BODY_BYTES)
        const address = remoteAddress(request, server)
        // The link is used up before the password is hashed: of links sent at once, one makes the owner.
        const added = await services.accounts.setUpFirstOwner(
          body.token,
          { name: body.name ?? FIRST_OWNER_NAME, role: 'owner', password: body.password },
          address,
        )
        if (added.kind === 'link_not_valid')
          throw new ApiError(
            'unauthorized',
            'This setup link is not valid any more: it was used, or it expired. ' +
              'Restart the hub for a new one, or run printhub admin set-password.',
          )
        if (added.kind === 'invalid') throw invalidField(added.path, added.message, added.message)
        if (added.kind === 'taken') throw new ApiError('conflict', 'An account of that name exists already.')
        return startSession(request, added.user, address, set)
      },
      { parse: 'none' },
    )

  const signedIn = adminRouter(services, STAFF)
    .get('/session', ({ admin }) => sessionAnswer(admin))
    .post('/logout', async ({ request, admin, actor, set }): Promise<{ signedOut: true }> => {
      await services.access.signOut(actor, admin.user.id, admin.kind === 'session' ? admin.session.id : undefined)
      set.headers['set-cookie'] = clearedSessionCookie(request)
      return { signedOut: true }
    })
    .get('/sessions', async ({ admin }): Promise<{ sessions: AdminSessionView[] }> => {
      const current = admin.kind === 'session' ? admin.session.id : null
      return {
        sessions: (await services.access.liveSessions(admin.user.id)).map((s) => ({ ...s, current: s.id === current })),
      }
    })
    // Sign out everywhere (but here): a lost phone, or a password seen by someone.
    .post(
      '/sessions/revoke-others',
      async ({ admin, actor }): Promise<{ signedOut: number }> => ({
        signedOut: await services.access.revokeOtherSessions(
          actor,
          admin.user.id,
          admin.kind === 'session' ? admin.session.id : undefined,
        ),
      }),
    )
    .post('/sessions/:id/revoke', async ({ admin, actor, params }): Promise<{ revoked: true }> => {
      if (!(await services.access.revokeSession(actor, admin.user.id, params.id)))
        throw notFound('There is no such session of yours, or it already ended.')
      return { revoked: true }
    })
    .put(
      '/password',
      async ({ request, server, admin, actor }): Promise<{ changed: true; otherSessionsEnded: number }> => {
        const attempt = await guess(remoteAddress(request, server), admin.user.name)
        const body = await readValidBody(request, passwordChangeRule, ACCOUNT_BODY_BYTES)
        if (!(await services.accounts.checkPassword(admin.user.id, body.currentPassword))) {
          throw invalidField('currentPassword', 'is not right', 'The current password is not right.')
        }
        await attempt.succeeded()
        const problem = passwordProblem(body.newPassword)
        if (problem) throw invalidField('newPassword', problem, problem)
        // Whoever knew the old password is signed out; this browser stays signed in.
        const changed = await services.accounts.setPassword(actor, admin.user.id, {
          password: body.newPassword,
          keepSessionId: admin.kind === 'session' ? admin.session.id : undefined,
        })
        return { changed: true, otherSessionsEnded: changed?.ended ?? 0 }
      },
      { parse: 'none' },
    )
    // The account's language for the dashboard (null: the browser's).
    .put(
      '/session/language',
      async ({ request, admin, actor }): Promise<{ user: Account }> => {
        const body = await readValidBody(request, languageChangeRule, ACCOUNT_BODY_BYTES)
        const user = (await services.accounts.setLanguage(actor, admin.user.id, body.language))!
        return { user: accountOf(user) }
      },
      { parse: 'none' },
    )
    // One's own admin tokens: each carries the account's role.
    .get(
      '/tokens',
      async ({ admin }): Promise<{ tokens: AdminTokenView[] }> => ({
        tokens: await services.access.tokens(admin.user.id),
      }),
    )
    .post(
      '/tokens',
      async ({ request, set, admin, actor }): Promise<{ token: AdminTokenView; secret: string }> => {
        const body = await readValidBody(request, newTokenRule, ACCOUNT_BODY_BYTES)
        const { token, secret } = await services.access.createToken(actor, admin.user, body.name)
        set.status = 201
        return { token, secret }
      },
      { parse: 'none' },
    )
    .post('/tokens/:id/revoke', async ({ params, admin, actor }): Promise<{ revoked: true }> => {
      if (!(await services.access.revokeToken(actor, admin.user.id, params.id)))
        throw notFound('There is no such admin token of yours, or it is already revoked.')
      return { revoked: true }
    })

  return new Elysia().use(signedOut).use(signedIn)
}
