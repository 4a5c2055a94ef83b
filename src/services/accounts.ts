// The dashboard's accounts as every edge makes and checks them (the admin API, the CLI): names,
// roles, passwords hashed with argon2id, signing in, and the one-time setup link that makes the
// first owner (a fresh hub never has a default password). Outcomes are values.
import { timingSafeEqual } from 'node:crypto'
import type { AdminRole } from '../protocol/admin-api.ts'
import type { Store } from '../store/store.ts'
import type { User } from '../store/users.ts'
import { hashSecret, randomBase64Url } from '../store/secrets.ts'

const SETUP_KEY = 'admin_setup'
const PASSWORD_LENGTH = { min: 10, max: 256 } as const
/** A setup link is valid this long; every start without an account makes a new one. */
const SETUP_TTL_MS = 24 * 3_600_000
/** The name of the first owner when none is given (and of the account the one admin password of before became). */
export const FIRST_OWNER_NAME = 'admin'
/**
 * An account's name: letters and digits, and inside it spaces, dots, dashes, underscores and @; at most 64 characters.
 */
export const USER_NAME_PATTERN = /^[\p{L}\p{N}](?:[\p{L}\p{N} ._@-]{0,62}[\p{L}\p{N}])?$/u

/** Why a new password cannot be used, in plain words; undefined when it can. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== 'string') return 'The password must be text.'
  const length = [...password].length
  if (length < PASSWORD_LENGTH.min) return `The password must have at least ${PASSWORD_LENGTH.min} characters.`
  if (length > PASSWORD_LENGTH.max) return `The password must have at most ${PASSWORD_LENGTH.max} characters.`
  return undefined
}

/** Why a name cannot be an account's, in plain words; undefined when it can. */
export function userNameProblem(name: string): string | undefined {
  return USER_NAME_PATTERN.test(name)
    ? undefined
    : 'The name must be 1 to 64 letters or digits, with spaces, dots, dashes, underscores or @ inside.'
}

export function hasAccounts(store: Store): boolean {
  return store.users.count() > 0
}

const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id' })

export type AddUserOutcome =
  | { kind: 'added'; user: User }
  | { kind: 'invalid'; path: 'name' | 'password'; message: string }
  | { kind: 'taken' }

/** Makes an account (its password checked first); a pending setup link stops working once there is one. */
export async function addUser(store: Store, name: string, role: AdminRole, password: string): Promise<AddUserOutcome> {
  const nameProblem = userNameProblem(name)
  if (nameProblem) return { kind: 'invalid', path: 'name', message: nameProblem }
  const problem = passwordProblem(password)
  if (problem) return { kind: 'invalid', path: 'password', message: problem }
  const hash = await hashPassword(password)
  const user = store.commits.write(() => store.users.create(name, role, hash))
  if (!user) return { kind: 'taken' }
  store.commits.write(() => store.settings.delete(SETUP_KEY))
  return { kind: 'added', user }
}

/** Sets an account's password (checked with `passwordProblem` first). */
export async function setPassword(store: Store, userId: string, password: string): Promise<User | undefined> {
  const hash = await hashPassword(password)
  return store.commits.write(() => store.users.update(userId, { passwordHash: hash }))
}

/** A hash no password has: a name no account has costs the same time to check as one that has. */
let decoy: Promise<string> | undefined

/**
 * The account these credentials sign in, when they are right and it is not disabled. Without a
 * name, the hub's only account (a hub with one account signs in with its password alone).
 */
export async function checkSignIn(
  store: Store,
  name: string | undefined,
  password: unknown,
): Promise<User | undefined> {
  const found = signInAccount(store, name)
  if (typeof password !== 'string' || password.length > PASSWORD_LENGTH.max * 4) return undefined
  if (!found) {
    decoy ??= hashPassword(randomBase64Url(16))
    await Bun.password.verify(password, await decoy)
    return undefined
  }
  return (await Bun.password.verify(password, found.passwordHash)) && !found.user.disabled ? found.user : undefined
}

function signInAccount(store: Store, name: string | undefined): { user: User; passwordHash: string } | undefined {
  if (name !== undefined) return store.users.withHash(name)
  const [only, ...others] = store.users.list()
  return only && others.length === 0 ? store.users.withHash(only.name) : undefined
}

/** Checks an account's current password (changing it). */
export async function checkPassword(store: Store, userId: string, password: unknown): Promise<boolean> {
  const hash = store.users.passwordHash(userId)
  if (hash === undefined || typeof password !== 'string' || password.length > PASSWORD_LENGTH.max * 4) return false
  return Bun.password.verify(password, hash)
}

/**
 * Names an account's password as it is now, without revealing it, for failed sign-ins to count
 * against: setting a new one (printhub admin set-password) ends its lockout at once. Names no
 * account has share one name.
 */
export function passwordGeneration(store: Store, name: string | undefined): string {
  const found = signInAccount(store, name)
  return found
    ? Buffer.from(hashSecret(`${found.user.id}\0${found.passwordHash}`))
        .toString('hex')
        .slice(0, 16)
    : 'nobody'
}

/** A new one-time setup token (replacing any earlier one), while there is no account. */
export function createSetupToken(store: Store, now: number): string {
  const token = randomBase64Url(24)
  store.settings.set(
    SETUP_KEY,
    JSON.stringify({ hash: Buffer.from(hashSecret(token)).toString('hex'), expiresAt: now + SETUP_TTL_MS }),
  )
  return token
}

export function isSetupTokenValid(store: Store, token: unknown, now: number): boolean {
  const stored = store.settings.get(SETUP_KEY)
  if (stored === undefined || typeof token !== 'string' || hasAccounts(store)) return false
  const { hash, expiresAt } = JSON.parse(stored) as { hash: string; expiresAt: number }
  return expiresAt > now && timingSafeEqual(Buffer.from(hash, 'hex'), hashSecret(token))
}

/**
 * Uses the setup link up: true when it was valid, and then it is valid no more, in the same step
 * (requests that bring it at the same moment: exactly one gets it).
 */
export function redeemSetupToken(store: Store, token: unknown, now: number): boolean {
  if (!isSetupTokenValid(store, token, now)) return false
  store.settings.delete(SETUP_KEY)
  return true
}
