// One scenario for both stores, at the API: the API differential (scripts/api-differential.ts) runs the same
// requests and CLI commands, every operation of the public and the admin API among them, against one hub on SQLite
// and a node of a cluster on a real PostgreSQL, both from this tree, and compares every answer; what may differ is
// listed with why in scripts/api-differential/cluster.expect. Any other difference fails, named.
import { expect, test } from 'bun:test'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')

test('a hub on SQLite and a node on PostgreSQL answer one scenario alike, but as cluster.expect says', async () => {
  const run = Bun.spawn(
    [
      process.execPath,
      join(ROOT, 'scripts/api-differential.ts'),
      '--base',
      '.',
      '--current-store',
      'postgres',
      '--expect',
      join(ROOT, 'scripts/api-differential/cluster.expect'),
    ],
    { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' },
  )
  const [stdout, stderr, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ])
  const summary = stdout.split('\n').filter((line) => !line.startsWith('  '))
  if (code !== 0) console.log(`${stdout}\n${stderr}`)
  expect(summary.find((line) => / requests, \d+ differ$/.test(line))).toMatch(/^\d{3,} requests, 0 differ$/)
  expect(summary).toContain('coverage of the public API (/openapi.json): 25 of 25 operations asked')
  expect(summary).toContain('coverage of the admin API (/admin/v1/openapi.json): 55 of 55 operations asked')
  expect(code).toBe(0)
}, 240_000)
