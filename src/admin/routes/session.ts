// Signing in and out, the first password (through the setup link), changing it, the sessions and
// the admin tokens.
import { Elysia } from 'elysia'
import { ACCOUNT_LOGIN_FAILURES, type Attempt, FailureRateLimit, LOGIN_FAILURES, remoteAddress } from '../../http/failure-rate-limit.ts'
import { ApiError, invalidField, notFound, rateLimited } from '../../http/errors.ts'
import { readValidBody } from '../../http/json-body.ts'
import { ADMIN_API_PREFIX } from '../../protocol/admin-api.ts'
import { object, string } from '../../protocol/rules.ts'
import { shortString } from '../../protocol/values.ts'
import { ADMIN_SESSION_LIFETIME } from '../../store/store.ts'
import { checkAdminPassword, hasAdminPassword, passwordGeneration, passwordProblem, redeemSetupToken, setAdminPassword } from '../../services/admin-password.ts'
import { type AdminIdentity, authenticateAdmin, checkOrigin, clearedSessionCookie, csrfTokenFor, sessionCookie } from '../auth.ts'
import type { AdminContext } from '../context.ts'

const MAX_BODY = 4_096
const secretText = string({ min: 1, max: 1_024 })

function sessionAnswer(identity: AdminIdentity) {
  if (identity.kind === 'token') return { via: 'token' as const, csrfToken: null, session: null }
  const { id, expiresAt } = identity.session
  return { via: 'session' as const, csrfToken: csrfTokenFor(identity.token), session: { id, expiresAt } }
}

export function sessionRoutes(context: AdminContext) {
  const { store, now } = context
  // Keys are an address with the password's generation, or the generation alone: only the address is told.
  const lockedOut = (what: string) => (key: string, lockMs: number, failures: number) =>
    context.log.warn(`${what} locked out after wrong passwords`, { address: key.includes(' ') ? key.slice(0, key.lastIndexOf(' ')) : undefined, minutes: Math.round(lockMs / 60_000), failures }, { limit: `lockout ${what}` })
  const byAddress = new FailureRateLimit(LOGIN_FAILURES, now, lockedOut('sign-in from an address'))
  const byAccount = new FailureRateLimit(ACCOUNT_LOGIN_FAILURES, now, lockedOut('sign-in for everyone'))
  const admin = (request: Request) => authenticateAdmin(store, request)

  /**
   * One guess of the admin password (signing in, or the current one when changing it), counted
   * against the address and the account before it is checked; 429 when either is locked out.
   */
  const guess = (address: string): Attempt => {
    const account = passwordGeneration(store)
    const fromAddress = byAddress.attempt([`${address} ${account}`])
    if (!fromAddress.ok) throw rateLimited('rate_limited', 'Too many wrong passwords from this address; try again later.', fromAddress.retryAfterMs)
    const onAccount = byAccount.attempt([account])
    if (!onAccount.ok) {
      fromAddress.attempt.succeeded()
      throw rateLimited('rate_limited', 'Too many wrong passwords; sign-in is paused for a while (printhub admin set-password on the hub ends it).', onAccount.retryAfterMs)
    }
    return { succeeded: () => (fromAddress.attempt.succeeded(), onAccount.attempt.succeeded()) }
  }

  const startSession = (request: Request, address: string, set: { headers: Record<string, string | number> }) => {
    const { session, token } = store.adminSessions.create(address, request.headers.get('user-agent') ?? '')
    set.headers['set-cookie'] = sessionCookie(request, token, Math.floor(ADMIN_SESSION_LIFETIME.maxMs / 1000))
    return { via: 'session' as const, csrfToken: csrfTokenFor(token), session: { id: session.id, expiresAt: session.expiresAt } }
  }

  return (
    new Elysia({ prefix: ADMIN_API_PREFIX })
      // The only calls without a session: whether a password is set, signing in, and the first password.
      .get('/login', () => ({ passwordSet: hasAdminPassword(store) }))
      .post(
        '/login',
        async ({ request, server, set }) => {
          checkOrigin(request)
          const address = remoteAddress(request, server)
          const attempt = guess(address)
          const body = await readValidBody(request, object({ password: secretText }), MAX_BODY)
          if (!(await checkAdminPassword(store, body.password))) {
            throw new ApiError('unauthorized', hasAdminPassword(store) ? 'That password is not right.' : 'No admin password is set yet: open the setup link the hub printed, or run printhub admin set-password.')
          }
          attempt.succeeded()
          return startSession(request, address, set)
        },
        { parse: 'none' },
      )
      .post(
        '/setup',
        async ({ request, server, set }) => {
          checkOrigin(request)
          const body = await readValidBody(request, object({ token: secretText, password: secretText }), MAX_BODY)
          const problem = passwordProblem(body.password)
          if (problem) throw invalidField('password', problem, problem)
          // Used up here, before the password is hashed: of links sent at once, one sets the password.
          if (!redeemSetupToken(store, body.token, now())) {
            throw new ApiError('unauthorized', 'This setup link is not valid any more: it was used, or it expired. Restart the hub for a new one, or run printhub admin set-password.')
          }
          await setAdminPassword(store, body.password)
          return startSession(request, remoteAddress(request, server), set)
        },
        { parse: 'none' },
      )
      .get('/session', ({ request }) => sessionAnswer(admin(request)))
      .post('/logout', ({ request, set }) => {
        const identity = admin(request)
        if (identity.kind === 'session') store.adminSessions.revoke(identity.session.id)
        set.headers['set-cookie'] = clearedSessionCookie(request)
        return { signedOut: true }
      })
      .get('/sessions', ({ request }) => {
        const identity = admin(request)
        const current = identity.kind === 'session' ? identity.session.id : null
        return { sessions: store.adminSessions.listLive().map((s) => ({ ...s, current: s.id === current })) }
      })
      // Sign out everywhere (but here): a lost phone, or a password seen by someone.
      .post('/sessions/revoke-others', ({ request }) => {
        const identity = admin(request)
        return { signedOut: store.adminSessions.revokeAll(identity.kind === 'session' ? identity.session.id : undefined) }
      })
      .post('/sessions/:id/revoke', ({ request, params }) => {
        admin(request)
        if (!store.adminSessions.revoke(params.id)) throw notFound('There is no such session, or it already ended.')
        return { revoked: true }
      })
      .put(
        '/password',
        async ({ request, server }) => {
          const identity = admin(request)
          const attempt = guess(remoteAddress(request, server))
          const body = await readValidBody(request, object({ currentPassword: secretText, newPassword: secretText }), MAX_BODY)
          if (!(await checkAdminPassword(store, body.currentPassword))) {
            throw invalidField('currentPassword', 'is not right', 'The current password is not right.')
          }
          attempt.succeeded()
          const problem = passwordProblem(body.newPassword)
          if (problem) throw invalidField('newPassword', problem, problem)
          await setAdminPassword(store, body.newPassword)
          // Whoever knew the old password is signed out; this browser stays signed in.
          const signedOut = store.adminSessions.revokeAll(identity.kind === 'session' ? identity.session.id : undefined)
          return { changed: true, otherSessionsEnded: signedOut }
        },
        { parse: 'none' },
      )
      .get('/tokens', ({ request }) => {
        admin(request)
        return { tokens: store.adminTokens.list() }
      })
      .post(
        '/tokens',
        async ({ request, set }) => {
          admin(request)
          const body = await readValidBody(request, object({ name: shortString }), MAX_BODY)
          const { token, secret } = store.adminTokens.create(body.name)
          set.status = 201
          return { token, secret }
        },
        { parse: 'none' },
      )
      .post('/tokens/:id/revoke', ({ request, params }) => {
        admin(request)
        if (!store.adminTokens.revoke(params.id)) throw notFound('There is no such admin token, or it is already revoked.')
        return { revoked: true }
      })
  )
}
