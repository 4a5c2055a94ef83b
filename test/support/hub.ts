// A real hub for tests: an HTTP server on an ephemeral port over a SQLite file in a temp dir.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { formatRequestLog } from '../../src/http/app.ts'
import { resolveConfig } from '../../src/hub/config.ts'
import { initialize, type InitResult } from '../../src/services/init.ts'
import { Store } from '../../src/store/store.ts'
import { type Hub, startHub, type StartOptions } from '../../src/hub/start.ts'
import type { Job } from '../../src/protocol/job.ts'
import { setPrinterConnection } from './fixtures.ts'
import { waitFor } from './wait.ts'

export interface TestHub {
  hub: Hub
  url: string
  dataDir: string
  projectId: string
  apiKey: string
  /** The test printer's remote ID. */
  printerId: string
  /** Every request log line the hub wrote. */
  logs: string[]
  request(
    method: string,
    path: string,
    options?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
  ): Promise<Response>
  stop(): Promise<void>
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'printhub-test-'))
}

export interface TestHubOptions {
  env?: Record<string, string>
  now?: () => number
  dataDir?: string
  /** The demo printer is offline, so jobs stay PENDING (tests of the API alone). */
  offline?: boolean
  events?: (line: string) => void
  /** The scheduled backups' timing. */
  backups?: StartOptions['backups']
  firstWork?: StartOptions['firstWork']
}

export async function startTestHub(options: TestHubOptions = {}): Promise<TestHub> {
  const dataDir = options.dataDir ?? tempDir()
  const config = resolveConfig({ host: '127.0.0.1', port: '0', data: dataDir }, options.env ?? {})
  const logs: string[] = []
  let firstStart: InitResult | undefined
  if (options.offline) {
    const store = Store.open({ dataDir, create: true, maxOpenJobsPerProject: config.maxOpenJobsPerProject })
    firstStart = await initialize(store, dataDir)
    setPrinterConnection(store, store.printers.resolve(firstStart.projectId, 'demo')!.id, 'virtual://demo?mode=offline')
    store.close()
  }
  const hub = await startHub(config, {
    log: (entry) => logs.push(formatRequestLog(entry)),
    now: options.now,
    events: options.events ?? (() => {}),
    backups: options.backups,
    firstWork: options.firstWork,
  })
  const init = (firstStart ?? hub.init) as Extract<InitResult, { created: true }>
  return {
    hub,
    url: hub.url,
    dataDir,
    projectId: init.projectId,
    apiKey: init.apiKey,
    printerId: init.printerId,
    logs,
    request(method, path, { body, key, headers = {} } = {}) {
      const auth: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key ?? init.apiKey}` }
      const json: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' }
      return fetch(hub.url + path, {
        method,
        headers: { ...auth, ...json, ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      })
    },
    async stop() {
      await hub.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A small valid job body; `overrides` replace top-level fields. */
export function jobBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    printerId: 'demo',
    idempotencyKey: `key-${crypto.randomUUID()}`,
    document: { width: 80, sections: [{ type: 'text', value: 'Table 4' }, { type: 'cut' }] },
    ...overrides,
  }
}

/** Adds a printer of the hub's built-in agent and waits until the agent reports it (within 5 s). Its record ID. */
export async function addBuiltinPrinter(
  t: TestHub,
  remoteId: string,
  connection: string,
  profile = 'generic-80mm',
): Promise<string> {
  const agentId = t.hub.store.agents.builtin()!.id
  const printer = t.hub.store.printers.add({
    projectId: t.projectId,
    remoteId,
    name: null,
    connection,
    profile,
    width: 80,
    agentId,
  })!
  await waitFor(() => t.hub.sessions.session(agentId)?.printers.has(printer.id), 5_000)
  return printer.id
}

/** Submits jobBody(overrides) with the test key; the job, or an error when the answer is not 202. */
export async function submitJob(t: TestHub, overrides: Record<string, unknown> = {}): Promise<Job> {
  const response = await t.request('POST', `/v1/projects/${t.projectId}/jobs`, { body: jobBody(overrides) })
  if (response.status !== 202) throw new Error(`the job was answered ${response.status}: ${await response.text()}`)
  return (await response.json()).job
}
