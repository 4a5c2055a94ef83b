// The dashboard's accounts as both stores' rows hold them, and the records made of them: an account, its sessions, its
// admin tokens (rows.ts says how numbers and times come from each store).
import type { AdminSession, AdminToken, User } from '../domain/accounts.ts'
import type { AdminRole } from '../protocol/admin-api.ts'
import { type Big, time, timeOrNull } from './rows.ts'

export interface UserRow {
  id: string
  name: string
  role: AdminRole
  password_hash: string
  language: string | null
  disabled_at: Big | null
  created_at: Big
  updated_at: Big
}

export const userOf = (row: UserRow): User => ({
  id: row.id,
  name: row.name,
  role: row.role,
  language: row.language,
  disabled: row.disabled_at !== null,
  createdAt: time(row.created_at),
  updatedAt: time(row.updated_at),
})

export interface SessionRow {
  id: string
  user_id: string
  address: string
  user_agent: string
  created_at: Big
  last_seen_at: Big
  expires_at: Big
  revoked_at: Big | null
}

export const sessionOf = (row: SessionRow): AdminSession => ({
  id: row.id,
  userId: row.user_id,
  address: row.address,
  userAgent: row.user_agent,
  createdAt: time(row.created_at),
  lastSeenAt: time(row.last_seen_at),
  expiresAt: time(row.expires_at),
  revokedAt: timeOrNull(row.revoked_at),
})

export interface AdminTokenRow {
  id: string
  user_id: string
  name: string
  token_prefix: string
  created_at: Big
  last_used_at: Big | null
  revoked_at: Big | null
}

export const adminTokenOf = (row: AdminTokenRow): AdminToken => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  tokenPrefix: row.token_prefix,
  createdAt: time(row.created_at),
  lastUsedAt: timeOrNull(row.last_used_at),
  revokedAt: timeOrNull(row.revoked_at),
})
