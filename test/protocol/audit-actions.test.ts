// The audit log's actions are documented where the audit log is (docs/dashboard.md, "The audit
// log"): its table lists every action of AUDIT_ACTIONS, in its order, with the same words.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { AUDIT_ACTIONS } from '../../src/protocol/audit-actions.ts'

test("docs/dashboard.md's table of audit actions is AUDIT_ACTIONS", () => {
  const doc = readFileSync(join(import.meta.dir, '..', '..', 'docs', 'dashboard.md'), 'utf8')
  const table = doc.slice(doc.indexOf('| Action | What was done |'))
  const rows = [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)]
  expect(rows.map(([, action, said]) => [action, said])).toEqual(Object.entries(AUDIT_ACTIONS))
})
