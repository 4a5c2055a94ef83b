// The dashboard's accounts as every part reads them: an account, its sessions and admin tokens,
// and the audit log's entries. Plain values, whichever store keeps them.
import type { AdminRole } from '../protocol/admin-api.ts'

/** The setting that keeps the one-time setup link's hash and end (`{ hash, expiresAt }`) while there is no account. */
export const SETUP_LINK_SETTING = 'admin_setup'

export interface User {
  id: string
  name: string
  role: AdminRole
  /** The language the account chose for the dashboard; null: the browser's. */
  language: string | null
  disabled: boolean
  createdAt: string
  updatedAt: string
}

export interface AdminSession {
  id: string
  /** The account signed in. */
  userId: string
  address: string
  userAgent: string
  createdAt: string
  lastSeenAt: string
  expiresAt: string
  revokedAt: string | null
}

/** Lifetimes of a dashboard session: it ends after `idleMs` unused, and `maxMs` after login at the latest. */
export interface SessionLifetime {
  idleMs: number
  maxMs: number
}

/** A dashboard session ends after 12 hours unused, and a week after login at the latest. */
export const ADMIN_SESSION_LIFETIME: SessionLifetime = { idleMs: 12 * 3_600_000, maxMs: 7 * 86_400_000 }

export interface AdminToken {
  id: string
  /** The account whose role it carries. */
  userId: string
  name: string
  tokenPrefix: string
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}

export interface AuditEntry {
  id: number
  at: string
  /**
   * The account's name as it was then; null when no account was known (a failed sign-in of a name no account has, the
   * machine).
   */
  user: string | null
  action: string
  target: string | null
  address: string | null
}
