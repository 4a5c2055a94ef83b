// An audit entry as every store writes it: who, what and from where, each cut to the length the log keeps.
import type { NewAuditEntry } from './repositories.ts'

/** The longest user name, target and address the log keeps. */
const USER_LENGTH = 128
const TARGET_LENGTH = 256
const ADDRESS_LENGTH = 64

export interface AuditRow {
  userId: string | null
  user: string | null
  action: string
  target: string | null
  address: string | null
}

export function auditRowOf(entry: NewAuditEntry): AuditRow {
  return {
    userId: entry.userId,
    user: entry.user?.slice(0, USER_LENGTH) ?? null,
    action: entry.action,
    target: entry.target?.slice(0, TARGET_LENGTH) ?? null,
    address: entry.address?.slice(0, ADDRESS_LENGTH) ?? null,
  }
}
