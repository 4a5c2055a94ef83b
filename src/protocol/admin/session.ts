// Signing in and out, the first owner (through the setup link), one's own password, language,
// signed-in browsers and admin tokens: the admin API's routes of the account that calls them.
import { ADMIN_ROLES } from '../admin-api.ts'
import { LANGUAGE_CODES } from '../messages/index.ts'
import { array, boolean, type Infer, nullable, object, oneOf, optional, type Rule, string, tagged } from '../rules.ts'
import { shortString, timestamp } from '../values.ts'
import {
  type AdminBody,
  type AdminOperation,
  count,
  exactly,
  json,
  MAX_LISTED,
  nothing,
  recordId,
  text,
} from './contract.ts'

/** The bodies of the routes that take a password. */
export const ACCOUNT_BODY_BYTES = 4_096
/** A password, a setup token: what is typed or pasted as it is. */
export const secretText = string({ min: 1, max: 1_024 })
/** An account's name as it is typed to sign in (the accounts' own rule of names is the services'). */
export const userName = string({ min: 1, max: 64 })
/** The language an account chose for the dashboard; null: the browser's. */
export const accountLanguage = nullable(string({ min: 2, max: 35 }))

export const signInRule = object({ name: optional(userName), password: secretText })
export const setupRule = object({ token: secretText, password: secretText, name: optional(userName) })
export const passwordChangeRule = object({ currentPassword: secretText, newPassword: secretText })
export const languageChangeRule = object({ language: nullable(oneOf(LANGUAGE_CODES)) })
export const newTokenRule = object({ name: shortString })

/** The account as the dashboard shows it: its name, its role, its language. */
export const accountRule = object({ id: recordId, name: userName, role: oneOf(ADMIN_ROLES), language: accountLanguage })
export type Account = Infer<typeof accountRule>

/** Who is signed in, and how: a dashboard session (with its CSRF token) or an admin token (neither). */
export const sessionAnswerRule = tagged('via', {
  session: object({
    csrfToken: string({ min: 1, max: 256 }),
    session: object({ id: recordId, expiresAt: timestamp }),
    user: accountRule,
  }),
  token: object({ csrfToken: nothing(), session: nothing(), user: accountRule }),
})
export type SessionAnswer = Infer<typeof sessionAnswerRule>

/** A browser signed in to one's account. */
export const adminSessionRule = object({
  id: recordId,
  userId: recordId,
  address: text,
  userAgent: text,
  createdAt: timestamp,
  lastSeenAt: timestamp,
  expiresAt: timestamp,
  revokedAt: nullable(timestamp),
  /** The session of this request. */
  current: boolean(),
})
export type AdminSessionView = Infer<typeof adminSessionRule>

/** One of one's admin tokens (never its secret, shown once when it is made). */
export const adminTokenRule = object({
  id: recordId,
  userId: recordId,
  name: shortString,
  tokenPrefix: string({ min: 1, max: 64 }),
  createdAt: timestamp,
  lastUsedAt: nullable(timestamp),
  revokedAt: nullable(timestamp),
})
export type AdminTokenView = Infer<typeof adminTokenRule>

const secret = string({ min: 1, max: 256 })
const body = (rule: Rule<unknown>): AdminBody => ({ rule, maxBytes: ACCOUNT_BODY_BYTES })

export const sessionOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/login',
    operationId: 'getSignInState',
    summary: 'Whether any account exists (no session needed)',
    role: null,
    answers: { 200: json(object({ passwordSet: boolean() }), 'Whether an account exists to sign in with') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/login',
    operationId: 'signIn',
    summary: 'Sign in with a name and password: sets the session cookie (no session needed)',
    role: null,
    body: body(signInRule),
    answers: { 200: json(sessionAnswerRule, 'Signed in: the session, its CSRF token and the account') },
    errors: [401, 403, 429],
  },
  {
    method: 'POST',
    path: '/setup',
    operationId: 'setUpFirstOwner',
    summary: "Make the first owner with the setup link's token, and sign in (no session needed)",
    role: null,
    body: body(setupRule),
    answers: { 200: json(sessionAnswerRule, 'The first owner, signed in') },
    errors: [401, 403, 409],
  },
  {
    method: 'GET',
    path: '/session',
    operationId: 'getSession',
    summary: 'The current session, its CSRF token and the account',
    role: 'staff',
    answers: { 200: json(sessionAnswerRule, 'Who is signed in, and how') },
    errors: [],
  },
  {
    method: 'PUT',
    path: '/session/language',
    operationId: 'setLanguage',
    summary: "The account's language for the dashboard (null: the browser's)",
    role: 'staff',
    body: body(languageChangeRule),
    answers: { 200: json(object({ user: accountRule }), 'The account, with its language') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/logout',
    operationId: 'signOut',
    summary: 'Sign out: ends this session and clears its cookie',
    role: 'staff',
    answers: { 200: json(object({ signedOut: exactly(true) }), 'Signed out') },
    errors: [],
  },
  {
    method: 'GET',
    path: '/sessions',
    operationId: 'listSessions',
    summary: "The account's signed-in browsers",
    role: 'staff',
    answers: { 200: json(object({ sessions: array(adminSessionRule, { max: MAX_LISTED }) }), 'The live sessions') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/sessions/revoke-others',
    operationId: 'revokeOtherSessions',
    summary: 'Sign out every browser of the account but this one',
    role: 'staff',
    answers: { 200: json(object({ signedOut: count }), 'How many sessions ended') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/sessions/:id/revoke',
    operationId: 'revokeSession',
    summary: 'Sign out one browser of the account',
    role: 'staff',
    answers: { 200: json(object({ revoked: exactly(true) }), 'The session ended') },
    errors: [404],
  },
  {
    method: 'PUT',
    path: '/password',
    operationId: 'changePassword',
    summary: "Change the account's password: its other sessions end",
    role: 'staff',
    body: body(passwordChangeRule),
    answers: {
      200: json(
        object({ changed: exactly(true), otherSessionsEnded: count }),
        'Changed; how many other sessions ended',
      ),
    },
    errors: [429],
  },
  {
    method: 'GET',
    path: '/tokens',
    operationId: 'listTokens',
    summary: "The account's admin tokens",
    role: 'staff',
    answers: { 200: json(object({ tokens: array(adminTokenRule, { max: MAX_LISTED }) }), 'The admin tokens') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/tokens',
    operationId: 'createToken',
    summary: 'A new admin token of the account, with its role: the secret is in this answer only',
    role: 'staff',
    body: body(newTokenRule),
    answers: { 201: json(object({ token: adminTokenRule, secret }), 'The token, and its secret') },
    errors: [],
  },
  {
    method: 'POST',
    path: '/tokens/:id/revoke',
    operationId: 'revokeToken',
    summary: "Revoke one of the account's admin tokens",
    role: 'staff',
    answers: { 200: json(object({ revoked: exactly(true) }), 'Revoked') },
    errors: [404],
  },
]
