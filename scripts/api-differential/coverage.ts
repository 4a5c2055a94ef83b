// The API differential's coverage: the operations the hubs' own OpenAPI documents name (the public API's
// /openapi.json, the admin API's /admin/v1/openapi.json where a side serves it), and which of them the scenario asked.
import type { Entry } from './hub.ts'

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete'])

interface Operation {
  method: string
  template: string
  pattern: RegExp
}

/** The operations of the first answer 200 to `documentPath` in the recordings. */
function operations(recordings: Entry[][], documentPath: string): Operation[] | undefined {
  const answer = recordings.flat().find((entry) => entry.path === documentPath && entry.status === 200)
  const paths = (answer?.body as { paths?: Record<string, Record<string, unknown>> } | undefined)?.paths
  if (!paths) return undefined
  return Object.entries(paths).flatMap(([template, item]) =>
    Object.keys(item)
      .filter((method) => METHODS.has(method))
      .map((method) => ({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      })),
  )
}

/** A line per document: how many of its operations were asked, and which were not. */
export function coverage(recordings: Entry[][]): string[] {
  const asked = recordings.flat().map((entry) => ({ method: entry.method, path: entry.path.split('?')[0]! }))
  const lines: string[] = []
  for (const [name, documentPath] of [
    ['public API', '/openapi.json'],
    ['admin API', '/admin/v1/openapi.json'],
  ] as const) {
    const all = operations(recordings, documentPath)
    if (!all) {
      lines.push(`coverage of the ${name}: no side served ${documentPath}`)
      continue
    }
    const missed = all.filter((op) => !asked.some((a) => a.method === op.method && op.pattern.test(a.path)))
    lines.push(
      `coverage of the ${name} (${documentPath}): ${all.length - missed.length} of ${all.length} operations asked` +
        (missed.length > 0 ? `; not: ${missed.map((op) => `${op.method} ${op.template}`).join(', ')}` : ''),
    )
  }
  return lines
}
