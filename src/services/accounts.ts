// The dashboard's accounts as every edge makes and checks them (the admin API, the CLI): names,
// roles, passwords hashed with argon2id, signing in, and the one-time setup link that makes the
// first owner (a fresh hub never has a default password). One rule for every change: the hub keeps
// an owner who can sign in, checked in the change's own transaction. Every change is written to the
// audit log with it. Outcomes are values.
import { timingSafeEqual } from 'node:crypto'
import { SETUP_LINK_SETTING, type User } from '../domain/accounts.ts'
import type { AdminRole } from '../protocol/admin-api.ts'
import { hashSecret, randomBase64Url } from '../storage/secrets.ts'
import type { Db, UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import { type Actor, accountActor } from './actor.ts'
import { recordedChange } from './audit.ts'

/** The setup link as kept: its token's hash, and until when it is valid. */
interface StoredSetupLink {
  hash: string
  expiresAt: number
}
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

const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: 'argon2id' })

export type AddUserOutcome =
  | { kind: 'added'; user: User }
  | { kind: 'invalid'; path: 'name' | 'password'; message: string }
  | { kind: 'taken' }

export interface NewUser {
  name: string
  role: AdminRole
  password: string
}

/** What an owner changes of an account (the admin API), or the CLI (disabled). */
export interface UserChange {
  role?: AdminRole | undefined
  disabled?: boolean | undefined
  password?: string | undefined
}

export type ChangeUserOutcome =
  | { kind: 'changed'; user: User }
  | { kind: 'unknown' }
  /** The change would leave no owner who can sign in (disabling or demoting the last one): nothing changed. */
  | { kind: 'last_owner'; user: User }
  | { kind: 'invalid'; path: 'password'; message: string }

export type SetUpOutcome =
  | AddUserOutcome
  /** The setup link was used already, expired, or never was: nothing was made. */
  | { kind: 'link_not_valid' }

/** A hash no password has: a name no account has costs the same time to check as one that has. */
let decoy: Promise<string> | undefined

/** Whether `change` takes away the sign-in of an owner who can sign in: disabled, or made other than owner. */
const losesOwner = (user: User, change: UserChange): boolean =>
  user.role === 'owner' &&
  !user.disabled &&
  ((change.role !== undefined && change.role !== 'owner') || change.disabled === true)

export class AccountService {
  constructor(
    private readonly units: UnitRunner,
    private readonly now: () => number,
  ) {}

  /** Whether there is any account (none: the hub waits for its first owner). */
  async any(): Promise<boolean> {
    return (await this.count()) > 0
  }

  count(): Promise<number> {
    return this.units.read((db) => db.users.count())
  }

  /** Every account, by name. */
  list(): Promise<User[]> {
    return this.units.read((db) => db.users.list())
  }

  get(id: string): Promise<User | undefined> {
    return this.units.read((db) => db.users.get(id))
  }

  /** The account of this name, whatever its case. */
  async named(name: string): Promise<User | undefined> {
    return (await this.units.read((db) => db.users.withHash(name)))?.user
  }

  /** Makes an account (its name and password checked first); a pending setup link stops working once there is one. */
  add(actor: Actor, account: NewUser): Promise<AddUserOutcome> {
    return this.create(account, () => actor)
  }

  /**
   * A new one-time setup link's token (replacing any earlier one) while there is no account; undefined when there is
   * one. Every start of a hub without an account makes one. A cluster's node keeps a link that is still valid
   * (`keepValid`: undefined then too), so that nodes started together do not void the link one of them showed.
   */
  setupLink(options: { keepValid?: boolean } = {}): Promise<string | undefined> {
    const now = this.now()
    return this.units.write(function* (db): Unit<string | undefined> {
      if ((yield* db.users.count()) > 0) return undefined
      if (options.keepValid) {
        const kept = yield* db.settings.get(SETUP_LINK_SETTING)
        if (kept !== undefined && (JSON.parse(kept) as StoredSetupLink).expiresAt > now) return undefined
      }
      const token = randomBase64Url(24)
      const stored: StoredSetupLink = {
        hash: Buffer.from(hashSecret(token)).toString('hex'),
        expiresAt: now + SETUP_TTL_MS,
      }
      yield* db.settings.set(SETUP_LINK_SETTING, JSON.stringify(stored))
      return token
    })
  }

  /**
   * The first owner, through the one-time setup link: the link is used up first (of links sent at
   * once, one makes the owner), then the account is made, by itself from `address`.
   */
  async setUpFirstOwner(token: unknown, account: NewUser, address: string): Promise<SetUpOutcome> {
    const problem = passwordProblem(account.password)
    if (problem) return { kind: 'invalid', path: 'password', message: problem }
    if (!(await this.redeemSetupLink(token))) return { kind: 'link_not_valid' }
    return this.create(account, (user) => accountActor(user, address))
  }

  private async create(account: NewUser, actorOf: (user: User) => Actor): Promise<AddUserOutcome> {
    const nameProblem = userNameProblem(account.name)
    if (nameProblem) return { kind: 'invalid', path: 'name', message: nameProblem }
    const problem = passwordProblem(account.password)
    if (problem) return { kind: 'invalid', path: 'password', message: problem }
    const hash = await hashPassword(account.password)
    return this.units.write(function* (db): Unit<AddUserOutcome> {
      const made = yield* db.users.create(account.name, account.role, hash)
      if (!made) return { kind: 'taken' }
      yield* db.settings.delete(SETUP_LINK_SETTING)
      yield* recordedChange(db, { actor: actorOf(made), action: 'users.create', target: `${made.name} (${made.role})` })
      return { kind: 'added', user: made }
    })
  }

  /**
   * Changes an account's role, whether it is disabled, its password. Disabled, or given a new
   * password by an owner, it is signed out everywhere at once. Never the last owner who can sign in.
   */
  async change(actor: Actor, userId: string, change: UserChange): Promise<ChangeUserOutcome> {
    const check = function* (db: Db): Unit<ChangeUserOutcome | User> {
      const user = yield* db.users.get(userId)
      if (!user) return { kind: 'unknown' }
      if (losesOwner(user, change) && (yield* db.users.activeOwners()) === 1) return { kind: 'last_owner', user }
      return user
    }
    const before = await this.units.read(check)
    if ('kind' in before) return before
    if (change.password !== undefined) {
      const problem = passwordProblem(change.password)
      if (problem) return { kind: 'invalid', path: 'password', message: problem }
    }
    const passwordHash = change.password === undefined ? undefined : await hashPassword(change.password)
    // Checked again where it is written: another change (another request, the CLI) may have come between.
    return this.units.write(function* (db): Unit<ChangeUserOutcome> {
      const user = yield* check(db)
      if ('kind' in user) return user
      if (change.disabled === true || passwordHash !== undefined) yield* db.adminSessions.revokeAll(user.id)
      const changed = (yield* db.users.update(user.id, {
        ...(change.role !== undefined ? { role: change.role } : {}),
        ...(change.disabled !== undefined ? { disabled: change.disabled } : {}),
        ...(passwordHash !== undefined ? { passwordHash } : {}),
      }))!
      const audit = (action: 'users.role' | 'users.disable' | 'users.enable' | 'users.password', target: string) =>
        recordedChange(db, { actor, action, target })
      if (change.role !== undefined) yield* audit('users.role', `${changed.name} (${changed.role})`)
      if (change.disabled !== undefined) yield* audit(change.disabled ? 'users.disable' : 'users.enable', changed.name)
      if (passwordHash !== undefined) yield* audit('users.password', changed.name)
      return { kind: 'changed', user: changed }
    })
  }

  /**
   * Sets an account's password (checked with `passwordProblem` first) and signs it out everywhere
   * but session `keepSessionId` (the browser that changed it); how many sessions ended.
   */
  async setPassword(
    actor: Actor,
    userId: string,
    { password, keepSessionId }: { password: string; keepSessionId?: string | undefined },
  ): Promise<{ user: User; ended: number } | undefined> {
    const hash = await hashPassword(password)
    return this.units.write(function* (db): Unit<{ user: User; ended: number } | undefined> {
      const user = yield* db.users.update(userId, { passwordHash: hash })
      if (!user) return undefined
      yield* recordedChange(db, { actor, action: 'users.password', target: user.name })
      return { user, ended: yield* db.adminSessions.revokeAll(user.id, keepSessionId) }
    })
  }

  /** The account's language for the dashboard (null: the browser's). */
  setLanguage(actor: Actor, userId: string, language: string | null): Promise<User | undefined> {
    return this.units.write(function* (db): Unit<User | undefined> {
      const user = yield* db.users.update(userId, { language })
      if (user) yield* recordedChange(db, { actor, action: 'users.language', target: user.name })
      return user
    })
  }

  /**
   * The account these credentials sign in, when they are right and it is not disabled. Without a
   * name, the hub's only account (a hub with one account signs in with its password alone).
   */
  async checkSignIn(name: string | undefined, password: unknown): Promise<User | undefined> {
    const found = await this.signInAccount(name)
    if (typeof password !== 'string' || password.length > PASSWORD_LENGTH.max * 4) return undefined
    if (!found) {
      decoy ??= hashPassword(randomBase64Url(16))
      await Bun.password.verify(password, await decoy)
      return undefined
    }
    return (await Bun.password.verify(password, found.passwordHash)) && !found.user.disabled ? found.user : undefined
  }

  private signInAccount(name: string | undefined): Promise<{ user: User; passwordHash: string } | undefined> {
    return this.units.read(function* (db): Unit<{ user: User; passwordHash: string } | undefined> {
      if (name !== undefined) return yield* db.users.withHash(name)
      const [only, ...others] = yield* db.users.list()
      return only && others.length === 0 ? yield* db.users.withHash(only.name) : undefined
    })
  }

  /** Checks an account's current password (changing it). */
  async checkPassword(userId: string, password: unknown): Promise<boolean> {
    const hash = await this.units.read((db) => db.users.passwordHash(userId))
    if (hash === undefined || typeof password !== 'string' || password.length > PASSWORD_LENGTH.max * 4) return false
    return Bun.password.verify(password, hash)
  }

  /**
   * Names an account's password as it is now, without revealing it, for failed sign-ins to count
   * against: setting a new one (printhub admin set-password) ends its lockout at once. Names no
   * account has share one name.
   */
  async passwordGeneration(name: string | undefined): Promise<string> {
    const found = await this.signInAccount(name)
    return found
      ? Buffer.from(hashSecret(`${found.user.id}\0${found.passwordHash}`))
          .toString('hex')
          .slice(0, 16)
      : 'nobody'
  }

  /**
   * Uses the setup link up: true when it was valid, and then it is valid no more, in the same change
   * (requests that bring it at the same moment: exactly one gets it).
   */
  private redeemSetupLink(token: unknown): Promise<boolean> {
    const now = this.now()
    return this.units.write(function* (db): Unit<boolean> {
      const stored = yield* db.settings.get(SETUP_LINK_SETTING)
      if (stored === undefined || typeof token !== 'string' || (yield* db.users.count()) > 0) return false
      const { hash, expiresAt } = JSON.parse(stored) as StoredSetupLink
      if (!(expiresAt > now && timingSafeEqual(Buffer.from(hash, 'hex'), hashSecret(token)))) return false
      yield* db.settings.delete(SETUP_LINK_SETTING)
      return true
    })
  }
}
