// The admin password, hashed with argon2id, and the one-time setup link that sets the first one:
// a fresh hub never has a default password.
import type { Store } from '../store/store.ts'
import { hashSecret, randomBase64Url } from '../store/secrets.ts'
import { timingSafeEqual } from 'node:crypto'

const PASSWORD_KEY = 'admin_password_hash'
const SETUP_KEY = 'admin_setup'
const PASSWORD_LENGTH = { min: 10, max: 256 } as const
/** A setup link is valid this long; every start without a password makes a new one. */
const SETUP_TTL_MS = 24 * 3_600_000

/** Why a new password cannot be used, in plain words; undefined when it can. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== 'string') return 'The password must be text.'
  const length = [...password].length
  if (length < PASSWORD_LENGTH.min) return `The password must have at least ${PASSWORD_LENGTH.min} characters.`
  if (length > PASSWORD_LENGTH.max) return `The password must have at most ${PASSWORD_LENGTH.max} characters.`
  return undefined
}

export function hasAdminPassword(store: Store): boolean {
  return store.settings.get(PASSWORD_KEY) !== undefined
}

/** Sets the password (checked with `passwordProblem` first); a pending setup link stops working. */
export async function setAdminPassword(store: Store, password: string): Promise<void> {
  const hash = await Bun.password.hash(password, { algorithm: 'argon2id' })
  store.settings.set(PASSWORD_KEY, hash)
  store.settings.delete(SETUP_KEY)
}

export async function checkAdminPassword(store: Store, password: unknown): Promise<boolean> {
  const hash = store.settings.get(PASSWORD_KEY)
  if (hash === undefined || typeof password !== 'string' || password.length > PASSWORD_LENGTH.max * 4) return false
  return Bun.password.verify(password, hash)
}

/** A new one-time setup token (replacing any earlier one), while no password is set. */
export function createSetupToken(store: Store, now: number): string {
  const token = randomBase64Url(24)
  store.settings.set(SETUP_KEY, JSON.stringify({ hash: Buffer.from(hashSecret(token)).toString('hex'), expiresAt: now + SETUP_TTL_MS }))
  return token
}

export function isSetupTokenValid(store: Store, token: unknown, now: number): boolean {
  const stored = store.settings.get(SETUP_KEY)
  if (stored === undefined || typeof token !== 'string' || hasAdminPassword(store)) return false
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

/**
 * Names the admin password now set, without revealing it: failed sign-ins count against it, so
 * setting a new one on the machine (printhub admin set-password) ends a lockout at once.
 */
export function passwordGeneration(store: Store): string {
  const hash = store.settings.get(PASSWORD_KEY)
  return hash === undefined ? 'none' : Buffer.from(hashSecret(hash)).toString('hex').slice(0, 16)
}
