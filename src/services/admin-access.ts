// How accounts reach the admin API: signing in (and the failed tries, for the audit log), a
// session's or an admin token's account, one's own sessions ended one by one or all but one, one's
// admin tokens made and revoked. Each change is written to the audit log with it.
import type { AdminSession, AdminToken, User } from '../domain/accounts.ts'
import type { Store } from '../store/store.ts'
import { type Actor, accountActor } from './actor.ts'
import { recordChange } from './audit.ts'

/** Where a browser signs in from: its address and what it says it is. */
export interface SignInPlace {
  address: string
  userAgent: string
}

export class AdminAccess {
  constructor(private readonly store: Store) {}

  /** The live session of a browser's token with its account; undefined when none (ended, expired, disabled). */
  session(token: string): { session: AdminSession; user: User } | undefined {
    const session = this.store.adminSessions.use(token)
    const user = session && this.store.users.get(session.userId)
    return session && user ? { session, user } : undefined
  }

  /** The active admin token of this secret with its account; undefined when none. */
  token(secret: string): { token: AdminToken; user: User } | undefined {
    const token = this.store.adminTokens.use(secret)
    const user = token && this.store.users.get(token.userId)
    return token && user ? { token, user } : undefined
  }

  /** A new session of an account whose credentials were checked: its secret goes into the browser's cookie. */
  signIn(user: User, { address, userAgent }: SignInPlace): { session: AdminSession; token: string } {
    return this.store.commits.write(() => {
      const made = this.store.adminSessions.create(user.id, address, userAgent)
      recordChange(this.store, {
        actor: accountActor(user, address),
        action: 'session.sign_in',
        target: made.session.id,
      })
      return made
    })
  }

  /** A sign-in that failed: said in the audit log with the account the name is (or the name as given). */
  signInFailed(name: string | undefined, address: string): void {
    const known = name === undefined ? undefined : this.store.users.withHash(name)?.user
    this.store.commits.write(() =>
      recordChange(this.store, {
        actor: { userId: known?.id ?? null, user: known?.name ?? name ?? null, address },
        action: 'session.sign_in_failed',
        target: null,
      }),
    )
  }

  /** Signs out: the session ends (an admin token has none to end; the sign-out is recorded all the same). */
  signOut(actor: Actor, userId: string, sessionId: string | undefined): void {
    this.store.commits.write(() => {
      if (sessionId !== undefined) this.store.adminSessions.revoke(userId, sessionId)
      recordChange(this.store, { actor, action: 'session.sign_out', target: sessionId ?? null })
    })
  }

  /** The account's sessions that may still be used, newest first. */
  liveSessions(userId: string): AdminSession[] {
    return this.store.adminSessions.listLive(userId)
  }

  /** Ends one of the account's sessions; false when it has no such live session. */
  revokeSession(actor: Actor, userId: string, sessionId: string): boolean {
    return this.store.commits.write(() => {
      if (!this.store.adminSessions.revoke(userId, sessionId)) return false
      recordChange(this.store, { actor, action: 'sessions.revoke', target: sessionId })
      return true
    })
  }

  /** Ends every session of the account but `keepId` (a lost phone, a password seen by someone); how many ended. */
  revokeOtherSessions(actor: Actor, userId: string, keepId: string | undefined): number {
    return this.store.commits.write(() => {
      const ended = this.store.adminSessions.revokeAll(userId, keepId)
      recordChange(this.store, { actor, action: 'sessions.revoke-others', target: null })
      return ended
    })
  }

  /** The account's admin tokens, oldest first. */
  tokens(userId: string): AdminToken[] {
    return this.store.adminTokens.list(userId)
  }

  /** A new admin token of `user`, carrying its role; the secret is shown once. */
  createToken(actor: Actor, user: User, name: string): { token: AdminToken; secret: string } {
    return this.store.commits.write(() => {
      const made = this.store.adminTokens.create(user.id, name)
      recordChange(this.store, { actor, action: 'tokens.create', target: `${user.name}: ${name}` })
      return made
    })
  }

  /** Revokes one of the account's admin tokens; false when it has no such active one. */
  revokeToken(actor: Actor, userId: string, tokenId: string): boolean {
    return this.store.commits.write(() => {
      if (!this.store.adminTokens.revoke(tokenId, userId)) return false
      recordChange(this.store, { actor, action: 'tokens.revoke', target: tokenId })
      return true
    })
  }
}
