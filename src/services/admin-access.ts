// How accounts reach the admin API: signing in (and the failed tries, for the audit log), a
// session's or an admin token's account, one's own sessions ended one by one or all but one, one's
// admin tokens made and revoked. Each change is written to the audit log with it.
import type { AdminSession, AdminToken, User } from '../domain/accounts.ts'
import type { UnitRunner } from '../storage/repositories.ts'
import type { Unit } from '../storage/unit.ts'
import { type Actor, accountActor } from './actor.ts'
import { recordedChange } from './audit.ts'

/** Where a browser signs in from: its address and what it says it is. */
export interface SignInPlace {
  address: string
  userAgent: string
}

export class AdminAccess {
  constructor(private readonly units: UnitRunner) {}

  /** The live session of a browser's token with its account; undefined when none (ended, expired, disabled). */
  session(token: string): Promise<{ session: AdminSession; user: User } | undefined> {
    return this.units.read(function* (db): Unit<{ session: AdminSession; user: User } | undefined> {
      const session = yield* db.adminSessions.use(token)
      const user = session && (yield* db.users.get(session.userId))
      return session && user ? { session, user } : undefined
    })
  }

  /** The active admin token of this secret with its account; undefined when none. */
  token(secret: string): Promise<{ token: AdminToken; user: User } | undefined> {
    return this.units.read(function* (db): Unit<{ token: AdminToken; user: User } | undefined> {
      const token = yield* db.adminTokens.use(secret)
      const user = token && (yield* db.users.get(token.userId))
      return token && user ? { token, user } : undefined
    })
  }

  /** A new session of an account whose credentials were checked: its secret goes into the browser's cookie. */
  signIn(user: User, { address, userAgent }: SignInPlace): Promise<{ session: AdminSession; token: string }> {
    return this.units.write(function* (db): Unit<{ session: AdminSession; token: string }> {
      const made = yield* db.adminSessions.create(user.id, address, userAgent)
      yield* recordedChange(db, {
        actor: accountActor(user, address),
        action: 'session.sign_in',
        target: made.session.id,
      })
      return made
    })
  }

  /** A sign-in that failed: said in the audit log with the account the name is (or the name as given). */
  signInFailed(name: string | undefined, address: string): Promise<void> {
    return this.units.write(function* (db): Unit<void> {
      const known = name === undefined ? undefined : (yield* db.users.withHash(name))?.user
      yield* recordedChange(db, {
        actor: { userId: known?.id ?? null, user: known?.name ?? name ?? null, address },
        action: 'session.sign_in_failed',
        target: null,
      })
    })
  }

  /** Signs out: the session ends (an admin token has none to end; the sign-out is recorded all the same). */
  signOut(actor: Actor, userId: string, sessionId: string | undefined): Promise<void> {
    return this.units.write(function* (db): Unit<void> {
      if (sessionId !== undefined) yield* db.adminSessions.revoke(userId, sessionId)
      yield* recordedChange(db, { actor, action: 'session.sign_out', target: sessionId ?? null })
    })
  }

  /** The account's sessions that may still be used, newest first. */
  liveSessions(userId: string): Promise<AdminSession[]> {
    return this.units.read((db) => db.adminSessions.listLive(userId))
  }

  /** Ends one of the account's sessions; false when it has no such live session. */
  revokeSession(actor: Actor, userId: string, sessionId: string): Promise<boolean> {
    return this.units.write(function* (db): Unit<boolean> {
      if (!(yield* db.adminSessions.revoke(userId, sessionId))) return false
      yield* recordedChange(db, { actor, action: 'sessions.revoke', target: sessionId })
      return true
    })
  }

  /** Ends every session of the account but `keepId` (a lost phone, a password seen by someone); how many ended. */
  revokeOtherSessions(actor: Actor, userId: string, keepId: string | undefined): Promise<number> {
    return this.units.write(function* (db): Unit<number> {
      const ended = yield* db.adminSessions.revokeAll(userId, keepId)
      yield* recordedChange(db, { actor, action: 'sessions.revoke-others', target: null })
      return ended
    })
  }

  /** The account's admin tokens, oldest first. */
  tokens(userId: string): Promise<AdminToken[]> {
    return this.units.read((db) => db.adminTokens.list(userId))
  }

  /** A new admin token of `user`, carrying its role; the secret is shown once. */
  createToken(actor: Actor, user: User, name: string): Promise<{ token: AdminToken; secret: string }> {
    return this.units.write(function* (db): Unit<{ token: AdminToken; secret: string }> {
      const made = yield* db.adminTokens.create(user.id, name)
      yield* recordedChange(db, { actor, action: 'tokens.create', target: `${user.name}: ${name}` })
      return made
    })
  }

  /** Revokes one of the account's admin tokens; false when it has no such active one. */
  revokeToken(actor: Actor, userId: string, tokenId: string): Promise<boolean> {
    return this.units.write(function* (db): Unit<boolean> {
      if (!(yield* db.adminTokens.revoke(tokenId, userId))) return false
      yield* recordedChange(db, { actor, action: 'tokens.revoke', target: tokenId })
      return true
    })
  }
}
