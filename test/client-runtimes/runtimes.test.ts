// The built @printhub/client package on every runtime it promises (its package says Node 18+, Bun
// and Deno): the oldest Node.js it supports (fetched by `npm test`, scripts/node-binary.ts), this
// machine's Node, Deno (an npm dev dependency) and Bun each run one application against a real hub
// process: post a job, wait for it through the event stream, follow its events, list printers, meet
// a 404, and verify a signed webhook and refuse a forged one. `import` everywhere, `require` on Node.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { webhookSignature } from '../../src/protocol/webhook-signature.ts'
import { OLDEST_NODE, OLDEST_NODE_VERSION } from '../../scripts/node-binary.ts'
import { BUN, ROOT, type RunningHub, startHub } from '../client/support.ts'

const PACKAGE = join(ROOT, 'dist', 'client')
const DENO = join(ROOT, 'node_modules', '.bin', 'deno')
const SECRET = `whsec_${Buffer.from('a webhook secret of 32 bytes....').toString('base64')}`

let hub: RunningHub
let folder: string
let webhook: { headers: Record<string, string>; body: string; nowMs: number }

beforeAll(async () => {
  const build = Bun.spawnSync([BUN, 'scripts/build-client.ts'], { cwd: ROOT, stderr: 'pipe' })
  expect(build.exitCode, build.stderr.toString()).toBe(0)
  hub = await startHub({})
  folder = mkdtempSync(join(tmpdir(), 'printhub-runtimes-'))
  const timestamp = 1_764_000_000
  const body = JSON.stringify({ type: 'job.created', timestamp: new Date(timestamp * 1000).toISOString(), data: {} })
  webhook = {
    headers: {
      'webhook-id': 'msg_runtime',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': await webhookSignature(SECRET, 'msg_runtime', timestamp, body),
    },
    body,
    nowMs: timestamp * 1000,
  }
})
afterAll(async () => {
  await hub.stop()
  rmSync(folder, { recursive: true, force: true })
})

/** One application's work, written once, loaded with `import` or `require`. */
function application(runtime: string): string {
  const settings = { baseUrl: hub.url, apiKey: hub.apiKey, projectId: hub.projectId }
  return `async function main(lib) {
  const { PrintHubClient, ApiError, WebhookVerificationError, verifyWebhook } = lib
  const client = new PrintHubClient(${JSON.stringify(settings)})
  const out = { health: (await client.health()).ok }
  const { job } = await client.jobs.create({
    printerId: 'demo',
    idempotencyKey: ${JSON.stringify(`runtime-${runtime}`)},
    document: { width: 80, sections: [{ type: 'text', value: 'Grüße, ${runtime}' }, { type: 'cut' }] },
    metadata: { runtime: ${JSON.stringify(runtime)} },
  })
  out.created = job.state
  out.waited = (await client.jobs.wait(job.id, { until: ['COMPLETED'], timeoutMs: 15000 })).state
  out.got = (await client.jobs.get(job.id)).metadata
  out.events = []
  const stop = new AbortController()
  for await (const event of client.events({ after: 0, signal: stop.signal })) {
    if (event.type === 'job.state_changed' && event.job.id === job.id) out.events.push(event.state)
    if (event.type === 'job.state_changed' && event.job.id === job.id && event.state === 'COMPLETED') break
  }
  stop.abort()
  out.printers = (await client.printers.list()).map((printer) => printer.name).sort()
  out.notFound = await client.jobs.get('job_00000000000000000000000000000000').then(
    () => 'found',
    (error) => error instanceof ApiError && error.code,
  )
  const webhook = ${JSON.stringify(webhook)}
  out.verified = (await verifyWebhook(${JSON.stringify(SECRET)}, webhook.headers, webhook.body, webhook.nowMs)).type
  const forged = { ...webhook.headers, 'webhook-signature': 'v1,' + btoa('forged') }
  out.forged = await verifyWebhook(${JSON.stringify(SECRET)}, forged, webhook.body, webhook.nowMs).then(
    () => 'accepted',
    (error) => error instanceof WebhookVerificationError && error.reason,
  )
  console.log(JSON.stringify(out))
}
`
}

async function run(runtime: string, command: string[], file: string, source: string): Promise<unknown> {
  writeFileSync(join(folder, file), source)
  const child = Bun.spawn([...command, join(folder, file)], {
    cwd: folder,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: folder, DENO_NO_UPDATE_CHECK: '1' },
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  expect(code, `${runtime}: ${stderr}`).toBe(0)
  return JSON.parse(stdout.trim().split('\n').pop()!)
}

function expected(runtime: string) {
  return {
    health: true,
    created: 'PENDING',
    waited: 'COMPLETED',
    got: { runtime },
    // The demo printer prints as it takes the bytes: no PRINTING on the way.
    events: ['DISPATCHING', 'DELIVERED', 'COMPLETED'],
    printers: ['demo'],
    notFound: 'not_found',
    verified: 'job.created',
    forged: 'no_valid_signature',
  }
}

const esm = (runtime: string) =>
  `${application(runtime)}\nawait main(await ` +
  `import(${JSON.stringify(pathToFileURL(join(PACKAGE, 'index.js')).href)}))\n`
const cjs = (runtime: string) =>
  `${application(runtime)}\nmain(require(${JSON.stringify(join(PACKAGE, 'index.cjs'))})).catch((error) ` +
  `=> { console.error(error); process.exit(1) })\n`

describe('the built client package on each runtime it supports', () => {
  test(`Node.js ${OLDEST_NODE_VERSION}, the oldest supported, with import and with require`, async () => {
    expect(await run('node18', [OLDEST_NODE], 'node18.mjs', esm('node18'))).toEqual(expected('node18'))
    expect(await run('node18-cjs', [OLDEST_NODE], 'node18.cjs', cjs('node18-cjs'))).toEqual(expected('node18-cjs'))
  })

  test("this machine's Node.js, with import and with require", async () => {
    expect(await run('node', ['node'], 'node.mjs', esm('node'))).toEqual(expected('node'))
    expect(await run('node-cjs', ['node'], 'node.cjs', cjs('node-cjs'))).toEqual(expected('node-cjs'))
  })

  test('Deno', async () => {
    expect(
      await run('deno', [DENO, 'run', '--quiet', `--allow-net=${new URL(hub.url).host}`], 'deno.mjs', esm('deno')),
    ).toEqual(expected('deno'))
  })

  test('Bun', async () => {
    expect(await run('bun', [BUN], 'bun.mjs', esm('bun'))).toEqual(expected('bun'))
  })
})
