// Who may use the admin API: a dashboard session (its cookie, and for every change the session's
// CSRF token in a header) or an admin token. A project API key never is.
import { createHash, timingSafeEqual } from 'node:crypto'
import { ApiError } from '../http/errors.ts'
import { API_KEY_PREFIX } from '../protocol/api-key.ts'
import type { AdminSession, AdminToken, User } from '../domain/accounts.ts'
import type { HubServices } from '../services/hub-services.ts'

export const SESSION_COOKIE = 'printhub_session'
const CSRF_HEADER = 'x-csrf-token'
const SAFE_METHODS = new Set(['GET', 'HEAD'])

/** Who is asking: a session or a token, and the account it is (whose role decides what it may do). */
export type AdminIdentity = (
  | { kind: 'session'; session: AdminSession; token: string }
  | { kind: 'token'; token: AdminToken }
) & { user: User }

/** The CSRF token of a session: derived from its secret, so it needs no storage and dies with it. */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`csrf\0${sessionToken}`).digest('base64url')
}

export function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

/** Secure when the browser came over TLS (directly, or through a proxy that says so). */
function isTls(request: Request): boolean {
  return new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https'
}

export function sessionCookie(request: Request, token: string, maxAgeSeconds: number): string {
  return (
    `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; ` +
    `Max-Age=${maxAgeSeconds}${isTls(request) ? '; Secure' : ''}`
  )
}

export function clearedSessionCookie(request: Request): string {
  return sessionCookie(request, '', 0)
}

const unauthorized = (message: string) => new ApiError('unauthorized', message)

/**
 * A state-changing request from a browser must come from the dashboard's own origin: a page
 * elsewhere cannot post to the hub with the staff's cookie (SameSite=Strict already stops most).
 */
export function checkOrigin(request: Request): void {
  if (SAFE_METHODS.has(request.method)) return
  const origin = request.headers.get('origin')
  if (origin === null) return
  const host = request.headers.get('host')
  let originHost: string | undefined
  try {
    originHost = new URL(origin).host
  } catch {
    originHost = undefined
  }
  if (originHost !== host) throw new ApiError('forbidden', 'The request came from another site.')
}

/**
 * The admin behind the request; throws 401 without a live session or admin token, 403 on a change without the CSRF
 * token.
 */
export async function authenticateAdmin({ access }: HubServices, request: Request): Promise<AdminIdentity> {
  const header = request.headers.get('authorization')
  if (header !== null) {
    const secret = /^Bearer (\S+)$/i.exec(header)?.[1] ?? ''
    if (secret.startsWith(API_KEY_PREFIX))
      throw unauthorized('A project API key cannot use the admin API: sign in to the dashboard, or use an admin token.')
    const found = await access.token(secret)
    if (!found) throw unauthorized('The admin token is not valid.')
    return { kind: 'token', ...found }
  }
  const sessionToken = cookieValue(request, SESSION_COOKIE)
  const found = sessionToken ? await access.session(sessionToken) : undefined
  if (!found || !sessionToken) throw unauthorized('Sign in to the dashboard first (or send an admin token).')
  const { session, user } = found
  checkOrigin(request)
  if (!SAFE_METHODS.has(request.method)) {
    const sent = Buffer.from(request.headers.get(CSRF_HEADER) ?? '')
    const expected = Buffer.from(csrfTokenFor(sessionToken))
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
      throw new ApiError('forbidden', 'The request lacks the CSRF token of this session; reload the page.')
  }
  return { kind: 'session', session, token: sessionToken, user }
}

/** The account a browser's request is signed in as (a live dashboard session); undefined when none. */
export async function sessionAccount({ access }: HubServices, request: Request): Promise<User | undefined> {
  const token = cookieValue(request, SESSION_COOKIE)
  return token === undefined ? undefined : (await access.session(token))?.user
}
