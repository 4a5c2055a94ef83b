// The audit log, for owners and technicians: newest first, a page at a time, and all of it (as
// retention keeps it) as CSV for a spreadsheet.
import { array, type Infer, nullable, object, string } from '../rules.ts'
import { timestamp } from '../values.ts'
import { type AdminOperation, json, text } from './contract.ts'

/** Entries a page holds unless asked, and at most. */
export const AUDIT_PAGE = { default: 100, max: 500 } as const
/** Rows one CSV export holds at most (the newest). */
export const AUDIT_CSV_ROWS = 100_000
/** A page's cursor: an entry's number. */
export const MAX_AUDIT_CURSOR = Number.MAX_SAFE_INTEGER

export const AUDIT_QUERY = {
  limit: {
    schema: { type: 'integer', minimum: 1, maximum: AUDIT_PAGE.max },
    description: `Entries in the page (${AUDIT_PAGE.default} unless said).`,
  },
  cursor: {
    schema: { type: 'integer', minimum: 1, maximum: MAX_AUDIT_CURSOR },
    description: 'The next page: nextCursor of the page before.',
  },
}

/** Who did what, on what, from where: a change, a sign-in, a backup downloaded, a start of another version. */
export const auditEntryRule = object({
  at: timestamp,
  /** The account's name as it was then; null when no account was known. */
  user: nullable(text),
  /** What was done, e.g. `printers.create`, `session.sign_in`. */
  action: string({ min: 1, max: 256 }),
  target: nullable(text),
  /** Where from: a network address, `this machine` (the CLI), or null. */
  address: nullable(text),
})
export type AuditEntryView = Infer<typeof auditEntryRule>

export const auditPageRule = object({
  entries: array(auditEntryRule, { max: AUDIT_PAGE.max }),
  nextCursor: nullable(string({ min: 1, max: 32 })),
})
export type AuditPage = Infer<typeof auditPageRule>

export const auditOperations: AdminOperation[] = [
  {
    method: 'GET',
    path: '/audit',
    operationId: 'getAuditLog',
    summary: 'The audit log, newest first, a page at a time',
    role: 'technician',
    query: AUDIT_QUERY,
    answers: { 200: json(auditPageRule, 'A page of entries, and the cursor of the next (null at the end)') },
    errors: [400],
  },
  {
    method: 'GET',
    path: '/audit.csv',
    operationId: 'exportAuditLog',
    summary: `The audit log as CSV (the newest ${AUDIT_CSV_ROWS.toLocaleString('en')} entries)`,
    role: 'technician',
    answers: { 200: { description: 'at,user,action,target,address: a line an entry', mediaType: 'text/csv' } },
    errors: [],
  },
]
