// GET /openapi.json is ready for code generators: Redocly's recommended rules find nothing in it
// (as redocly.yaml configures them), its operations have stable operationIds (method names in
// generated clients), and a TypeScript client generated from it with openapi-typescript
// type-checks and, with openapi-fetch, submits, reads, lists and cancels a job on a real hub.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createConfig, loadConfig, lintFromString } from '@redocly/openapi-core'
import { startTestHub, type TestHub } from '../support/hub.ts'

const ROOT = join(import.meta.dir, '..', '..')
const BUN = join(ROOT, 'node_modules', '.bin', 'bun')
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc')

/** Each operation's ID: what generated clients name their methods. Renaming one breaks their users. */
const OPERATION_IDS: Record<string, string> = {
  'get /health': 'getHealth',
  'get /.well-known/printservice': 'getDiscovery',
  'get /.well-known/openprinter': 'getOpenPrinterDiscovery',
  'post /printservice/pair': 'pairAgent',
  'post /v1/projects/{projectId}/jobs': 'createJob',
  'get /v1/projects/{projectId}/jobs': 'listJobs',
  'get /v1/projects/{projectId}/jobs/{jobId}': 'getJob',
  'post /v1/projects/{projectId}/jobs/{jobId}/cancel': 'cancelJob',
  'post /v1/projects/{projectId}/jobs/{jobId}/reprint': 'reprintJob',
  'get /v1/projects/{projectId}/printers': 'listPrinters',
  'get /v1/projects/{projectId}/printers/{printerId}': 'getPrinter',
  'get /v1/projects/{projectId}/events': 'streamEvents',
  'post /v1/projects/{projectId}/webhooks': 'createWebhook',
  'get /v1/projects/{projectId}/webhooks': 'listWebhooks',
  'delete /v1/projects/{projectId}/webhooks/{webhookId}': 'deleteWebhook',
  'get /v1/projects/{projectId}/images': 'listImages',
  'put /v1/projects/{projectId}/images/{name}': 'storeImage',
  'get /v1/projects/{projectId}/images/{name}': 'getImage',
  'delete /v1/projects/{projectId}/images/{name}': 'deleteImage',
  'post /v1/projects/{projectId}/destinations': 'createDestination',
  'get /v1/projects/{projectId}/destinations': 'listDestinations',
  'get /v1/projects/{projectId}/destinations/{name}': 'getDestination',
  'put /v1/projects/{projectId}/destinations/{name}': 'updateDestination',
  'delete /v1/projects/{projectId}/destinations/{name}': 'deleteDestination',
  'get /openapi.json': 'getOpenApiDocument',
}

let t: TestHub
let source: string
let workDir: string
beforeAll(async () => {
  t = await startTestHub({ offline: true })
  source = await (await fetch(`${t.url}/openapi.json`)).text()
  workDir = mkdtempSync(join(tmpdir(), 'printhub-openapi-client-'))
  // The generated client and its usage resolve openapi-fetch from the project's packages.
  symlinkSync(join(ROOT, 'node_modules'), join(workDir, 'node_modules'))
})
afterAll(async () => {
  await t.stop()
  rmSync(workDir, { recursive: true, force: true })
})

interface Finding {
  severity: string
  ruleId: string
  pointer: string | undefined
  message: string
}

async function lintServed(config: Awaited<ReturnType<typeof createConfig>>): Promise<Finding[]> {
  const problems = await lintFromString({ source, absoluteRef: `${t.url}/openapi.json`, config })
  return problems.map((problem) => ({
    severity: problem.severity,
    ruleId: problem.ruleId,
    pointer: problem.location[0]?.pointer,
    message: problem.message,
  }))
}

describe("Redocly's recommended rules", () => {
  test('find no error and no warning in the served document, as redocly.yaml configures them', async () => {
    expect(await lintServed(await loadConfig({ configPath: join(ROOT, 'redocly.yaml') }))).toEqual([])
  })

  test(
    'left as they are, they miss only a 4xx answer of the four operations ' +
      'that take no input (the one rule redocly.yaml turns off)',
    async () => {
      const findings = await lintServed(await createConfig({ extends: ['recommended'] }))
      expect(findings.map(({ ruleId, pointer }) => `${ruleId} ${pointer}`).sort()).toEqual(
        ['/health', '/.well-known/printservice', '/.well-known/openprinter', '/openapi.json']
          .map((path) => `operation-4xx-response #/paths/${path.replaceAll('/', '~1')}/get/responses`)
          .sort(),
      )
      const document = JSON.parse(source)
      for (const path of ['/health', '/.well-known/printservice', '/.well-known/openprinter', '/openapi.json'])
        expect([
          path,
          document.paths[path].get.parameters,
          document.paths[path].get.requestBody,
          document.paths[path].get.security,
        ]).toEqual([path, undefined, undefined, []])
    },
  )
})

describe('operations', () => {
  test('each has a stable camelCase operationId, and says who may call it', () => {
    const document = JSON.parse(source)
    const operations = Object.entries(
      document.paths as Record<string, Record<string, { operationId: string; security: unknown[] }>>,
    ).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ key: `${method} ${path}`, operation })),
    )
    expect(Object.fromEntries(operations.map(({ key, operation }) => [key, operation.operationId]))).toEqual(
      OPERATION_IDS,
    )
    for (const { key, operation } of operations)
      expect([key, operation.security]).toEqual([key, key.includes('/v1/') ? [{ apiKey: [] }] : []])
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }])
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' })
  })
})

/** A small application of the generated client: what the test type-checks, then runs. */
const USAGE = `import createClient, { type Client } from 'openapi-fetch'
import type { operations, paths } from './printhub.ts'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
// The operations' names, as the generated types have them.
export const sameOperations: Equal<keyof operations, ${Object.values(OPERATION_IDS)
  .map((id) => JSON.stringify(id))
  .join(' | ')}> = true

type Job = operations['getJob']['responses'][200]['content']['application/json']['job']

export async function roundTrip(hub: {
  baseUrl: string
  apiKey: string
  projectId: string
  printerId: string
  idempotencyKey: string
}) {
  const client: Client<paths> = createClient<paths>({
    baseUrl: hub.baseUrl,
    headers: { authorization: \`Bearer \${hub.apiKey}\` },
  })
  const path = { projectId: hub.projectId }
  const created = await client.POST('/v1/projects/{projectId}/jobs', {
    params: { path },
    body: {
      printerId: hub.printerId,
      idempotencyKey: hub.idempotencyKey,
      document: {
        width: 80,
        sections: [
          { type: 'text', value: 'Table 12', bold: true },
          { type: 'row', left: 'Flat white', right: '3.50' },
          { type: 'cut' },
        ],
      },
      metadata: { order: '42' },
    },
  })
  if (!created.data)
    throw new Error(\`createJob answered \${created.response.status}: \${JSON.stringify(created.error)}\`)
  const job: Job = created.data.job
  const read = await client.GET('/v1/projects/{projectId}/jobs/{jobId}', {
    params: { path: { ...path, jobId: job.id } },
  })
  const listed = await client.GET('/v1/projects/{projectId}/jobs', { params: { path, query: { state: 'PENDING' } } })
  const cancelled = await client.POST('/v1/projects/{projectId}/jobs/{jobId}/cancel', {
    params: { path: { ...path, jobId: job.id } },
  })
  const after = await client.GET('/v1/projects/{projectId}/jobs/{jobId}', {
    params: { path: { ...path, jobId: job.id } },
  })
  const missing = await client.GET('/v1/projects/{projectId}/jobs/{jobId}', {
    params: { path: { ...path, jobId: 'job_none' } },
  })
  const state: Job['state'] | undefined = after.data?.job.state
  return {
    created: {
      status: created.response.status,
      duplicate: created.data.duplicate,
      state: job.state,
      metadata: job.metadata,
    },
    read: read.data?.job.id === job.id,
    listed: listed.data?.jobs.map((listedJob) => listedJob.id),
    cancelled: { status: cancelled.response.status, state: cancelled.data?.job.state },
    after: state,
    missing: { status: missing.response.status, code: missing.error?.error.code },
    jobId: job.id,
  }
}

// What the types refuse: they say the API, they are not \`any\`.
export function refused(client: Client<paths>) {
  const path = { projectId: 'prj_x' }
  void client.POST('/v1/projects/{projectId}/jobs', {
    params: { path },
    // @ts-expect-error a job needs an idempotency key
    body: { printerId: 'bar', document: { width: 80, sections: [{ type: 'cut' }] } },
  })
  void client.POST('/v1/projects/{projectId}/jobs', {
    params: { path },
    // @ts-expect-error paper is 58 or 80 mm wide
    body: { printerId: 'bar', idempotencyKey: 'k', document: { width: 72, sections: [{ type: 'cut' }] } },
  })
  void client.POST('/v1/projects/{projectId}/jobs', {
    params: { path },
    // @ts-expect-error no section of this type
    body: { printerId: 'bar', idempotencyKey: 'k', document: { width: 80, sections: [{ type: 'poem' }] } },
  })
  // @ts-expect-error no such state
  void client.GET('/v1/projects/{projectId}/jobs', { params: { path, query: { state: 'DONE' } } })
  // @ts-expect-error no such route
  void client.GET('/v1/projects/{projectId}/receipts', { params: { path } })
}
`

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'Preserve',
    moduleResolution: 'bundler',
    lib: ['ES2022', 'DOM'],
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    noUnusedLocals: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    noEmit: true,
    skipLibCheck: true,
  },
  files: ['printhub.ts', 'usage.ts'],
}

async function run(command: string[]): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(command, { cwd: workDir, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, output: stdout + stderr }
}

describe('a client generated from the document', () => {
  test('openapi-typescript makes types that type-check; with openapi-fetch they ' +
    'submit, read, list and cancel a job', async () => {
    // As an application would: openapi-typescript's command, from the hub's URL.
    const generated = await run([
      BUN,
      '--preload',
      join(ROOT, 'test', 'support', 'typescript-api.ts'),
      join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
      `${t.url}/openapi.json`,
      '--output',
      join(workDir, 'printhub.ts'),
    ])
    expect(generated, generated.output).toMatchObject({ code: 0 })
    writeFileSync(join(workDir, 'usage.ts'), USAGE)
    writeFileSync(join(workDir, 'tsconfig.json'), JSON.stringify(TSCONFIG))
    const checked = await run([TSC, '-p', join(workDir, 'tsconfig.json')])
    expect(checked.output).toBe('')
    expect(checked.code).toBe(0)

    const usage = await import(join(workDir, 'usage.ts'))
    const result = await usage.roundTrip({
      baseUrl: t.url,
      apiKey: t.apiKey,
      projectId: t.projectId,
      printerId: 'demo',
      idempotencyKey: 'order-42',
    })
    expect(result).toEqual({
      created: { status: 202, duplicate: false, state: 'PENDING', metadata: { order: '42' } },
      read: true,
      listed: [result.jobId],
      cancelled: { status: 200, state: 'CANCELLED' },
      after: 'CANCELLED',
      missing: { status: 404, code: 'not_found' },
      jobId: expect.stringMatching(/^job_/),
    })
  }, 30_000)
})
