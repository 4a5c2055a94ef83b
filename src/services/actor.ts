// Who makes a change, as the audit log records it: a dashboard account (its name as it is now, and
// the address it came from), the hub's own machine (the CLI), or an application (a project API key).
// Every operation of the services that changes something takes one and writes its audit entry
// with the change.
import { AUDIT_ON_THE_MACHINE } from '../protocol/admin-api.ts'

export interface Actor {
  /** The account; null for the machine and applications. */
  userId: string | null
  /** Who, in words: the account's name, an application's key prefix; null for the machine. */
  user: string | null
  /** Where from: the remote address, or `this machine`. */
  address: string | null
}

/** A change made on the hub's own machine with the CLI: no account made it, from no network address. */
export const THE_MACHINE: Actor = Object.freeze({ userId: null, user: null, address: AUDIT_ON_THE_MACHINE })

/** A change a dashboard account (a session or one of its admin tokens) made from `address`. */
export function accountActor(account: { id: string; name: string }, address: string | null): Actor {
  return { userId: account.id, user: account.name, address }
}

/** A change an application made with a project API key, from `address`. */
export function applicationActor(key: { keyPrefix: string }, address: string | null): Actor {
  return { userId: null, user: `API key ${key.keyPrefix}`, address }
}
