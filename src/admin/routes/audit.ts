// The audit log for owners and technicians: newest first, a page at a time, and all of it (as kept
// by retention) as CSV for a spreadsheet.
import { QueryReader } from '../../http/query.ts'
import type { AuditEntry } from '../../domain/accounts.ts'
import {
  AUDIT_CSV_ROWS,
  AUDIT_PAGE,
  AUDIT_QUERY,
  type AuditEntryView,
  type AuditPage,
  MAX_AUDIT_CURSOR,
} from '../../protocol/admin/audit.ts'
import type { AdminContext } from '../context.ts'
import { adminRouter, TECHNICIAN } from '../router.ts'

const entryView = ({ at, user, action, target, address }: AuditEntry): AuditEntryView => ({
  at,
  user,
  action,
  target,
  address,
})

/** A CSV cell: quoted when it must be, and never read as a formula by a spreadsheet. */
function cell(value: string | null): string {
  if (value === null) return ''
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

export function auditRoutes({ services }: AdminContext) {
  return adminRouter(services, TECHNICIAN)
    .get('/audit', async ({ request }): Promise<AuditPage> => {
      const query = new QueryReader(request.url, Object.keys(AUDIT_QUERY))
      const limit = query.integer('limit', 1, AUDIT_PAGE.max) ?? AUDIT_PAGE.default
      const before = query.integer('cursor', 1, MAX_AUDIT_CURSOR)
      query.check()
      const entries = await services.audit.page(limit + 1, before)
      const page = entries.slice(0, limit)
      return { entries: page.map(entryView), nextCursor: entries.length > limit ? String(page.at(-1)!.id) : null }
    })
    .get('/audit.csv', async () => {
      const lines = [
        'at,user,action,target,address',
        ...(await services.audit.page(AUDIT_CSV_ROWS)).map((e) =>
          [e.at, e.user, e.action, e.target, e.address].map(cell).join(','),
        ),
      ]
      return new Response(`${lines.join('\r\n')}\r\n`, {
        headers: {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': 'attachment; filename="printhub-audit.csv"',
          'cache-control': 'no-store',
        },
      })
    })
}
