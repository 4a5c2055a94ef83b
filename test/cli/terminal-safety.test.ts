// Text that came from the network never drives the technician's terminal: a job's idempotency key
// and metadata, a printer's name, sent through the API by anyone with a key, are shown by the CLI
// with their control characters (ANSI escape sequences, a bell, a line break that would fake a
// row) written as escapes. JSON output escapes them by itself.
import { adminToken } from '../support/fixtures.ts'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { cli, cliJson } from '../support/cli.ts'
import { startTestHub, tempDir, type TestHub } from '../support/hub.ts'
import { rmSync } from 'node:fs'

const EVIL_KEY = 'order-1\x1b[2J\x1b]0;pwned\x07\nFAKE ROW'
const EVIL_NAME = 'Bar\x1b[31m red\u202e reversed\x9b'
let dir: string
let projectId: string

beforeAll(async () => {
  dir = tempDir()
  const hub: TestHub = await startTestHub({ dataDir: dir, offline: true })
  try {
    projectId = hub.projectId
    const job = await hub.request('POST', `/v1/projects/${projectId}/jobs`, {
      body: {
        printerId: 'demo',
        idempotencyKey: EVIL_KEY,
        metadata: { note: 'x\x1b[1A\x1b[K' },
        document: { width: 80, sections: [{ type: 'cut' }] },
      },
    })
    expect(job.status).toBe(202)
    const token = adminToken(hub.hub.store)
    const printer = await hub.request('POST', '/admin/v1/printers', {
      key: token,
      body: { projectId, id: 'bar', connection: 'virtual', name: EVIL_NAME },
    })
    expect(printer.status).toBe(201)
  } finally {
    await hub.hub.stop()
  }
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const raw = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/

test('jobs list and jobs show: escapes instead of control characters, one line per job', async () => {
  const list = await cli(['jobs', 'list', '--project', projectId, '--data', dir])
  expect(list.code).toBe(0)
  expect(list.stdout).not.toMatch(raw)
  expect(list.stdout).toContain('order-1\\x1b[2J\\x1b]0;pwned\\x07\\x0aFAKE ROW')
  expect(list.stdout.trim().split('\n')).toHaveLength(2)
  const jobId = list.stdout.split('\n')[1]!.split(/\s+/)[0]!
  const show = await cli(['jobs', 'show', jobId, '--data', dir])
  expect(show.code).toBe(0)
  expect(show.stdout).not.toMatch(raw)
  expect(show.stdout).toContain('\\x1b[2J')
  // The JSON output keeps the key exactly, escaped the JSON way.
  const json = await cliJson(['jobs', 'show', jobId, '--data', dir])
  expect(json.idempotencyKey).toBe(EVIL_KEY)
})

test("printers list: a printer's name cannot colour or reverse the terminal", async () => {
  const list = await cli(['printers', 'list', '--project', projectId, '--data', dir])
  expect(list.code).toBe(0)
  expect(list.stdout).not.toMatch(raw)
  expect(list.stdout).toContain('Bar\\x1b[31m red\\u202e reversed\\x9b')
})
