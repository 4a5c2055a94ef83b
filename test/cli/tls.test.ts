// HTTPS in the hub itself (serve --tls-cert FILE --tls-key FILE, or PRINTHUB_TLS_CERT and
// PRINTHUB_TLS_KEY), as real processes with a certificate made here: the hub answers over TLS only,
// with a certificate a client can verify; the dashboard's session cookie is Secure; a remote agent
// that trusts the certificate pairs, connects over wss and prints; doctor finds the hub on its port;
// and a half-given or unreadable setting stops start-up with a message instead of serving plain HTTP.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Job } from '../../src/protocol/job.ts'
import { type AgentProcess, startAgentProcess } from '../support/agent-process.ts'
import { cli, cliJson } from '../support/cli.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { freePort } from '../support/ports.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

let dir: string
let hub: ServeProcess
let agent: AgentProcess | undefined
let cert: string
let key: string
let port: number

beforeAll(async () => {
  dir = tempDir()
  cert = join(dir, 'hub.crt')
  key = join(dir, 'hub.key')
  const made = Bun.spawnSync(
    [
      'openssl',
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=printhub test',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stderr: 'pipe' },
  )
  if (made.exitCode !== 0) throw new Error(`openssl: ${made.stderr.toString()}`)
  port = freePort()
  hub = await spawnServe(join(dir, 'hub'), {
    json: true,
    port,
    env: { PRINTHUB_TLS_CERT: cert, PRINTHUB_TLS_KEY: key },
  })
})
afterAll(async () => {
  agent?.process.kill()
  await agent?.process.exited
  await hub.stop()
  rmSync(dir, { recursive: true, force: true })
})

const trusted = () => ({ tls: { ca: readFileSync(cert, 'utf8') } })

test('the hub answers over HTTPS with a certificate that verifies, and not over plain HTTP', async () => {
  expect(hub.url).toBe(`https://127.0.0.1:${port}`)
  expect(hub.listening!.dashboardUrl).toStartWith('https://')
  const health = await fetch(`${hub.url}/health`, trusted())
  expect(health.status).toBe(200)
  // Without trusting it, a client refuses the certificate: it is verified.
  expect(
    await fetch(`${hub.url}/health`).then(
      () => 'answered',
      () => 'refused',
    ),
  ).toBe('refused')
  expect(
    await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(3_000) }).then(
      () => 'answered',
      () => 'refused',
    ),
  ).toBe('refused')
})

test("the dashboard's session cookie is Secure", async () => {
  const setupUrl = hub.listening!.setupUrl as string
  const token = setupUrl.slice(setupUrl.indexOf('#') + 1)
  const response = await fetch(`${hub.url}/admin/v1/setup`, {
    ...trusted(),
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: hub.url },
    body: JSON.stringify({ token, password: 'correct horse battery' }),
  })
  expect(response.status).toBe(200)
  expect(response.headers.get('set-cookie')).toMatch(/; HttpOnly; SameSite=Strict; .*; Secure$/)
})

test('a remote agent that trusts the certificate pairs and prints over wss', async () => {
  const agentDir = join(dir, 'agent')
  const paper = join(agentDir, 'output', 'counter.bin')
  await cliJson([
    'printers',
    'add',
    '--local',
    '--id',
    'counter',
    '--connection',
    `file://${paper}`,
    '--data',
    agentDir,
  ])
  const { code } = await cliJson<{ code: string }>(['pairing-codes', 'create', '--data', join(dir, 'hub')])
  agent = await startAgentProcess(agentDir, ['--server', hub.url, '--code', code], { NODE_EXTRA_CA_CERTS: cert })
  const token = (
    await cliJson<{ secret: string }>(['admin', 'create-token', '--name', 'tests', '--data', join(dir, 'hub')])
  ).secret
  const admin = { ...trusted(), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }
  // Connected, and its printer reported.
  const paired = await waitFor(async () => {
    const { agents } = (await (await fetch(`${hub.url}/admin/v1/agents`, admin)).json()) as {
      agents: { id: string; online: boolean; printers: { id: string }[] }[]
    }
    return agents.find((a) => a.online && a.printers.some((p) => p.id === 'counter'))
  }, 10_000)
  const { projectId, apiKey } = hub.listening!.firstStart
  const assigned = await fetch(`${hub.url}/admin/v1/printers`, {
    ...admin,
    method: 'POST',
    body: JSON.stringify({ projectId, id: 'counter', agentId: paired.id, agentPrinterId: 'counter' }),
  })
  expect(assigned.status).toBe(201)
  const posted = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
    ...trusted(),
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(
      jobBody({
        printerId: 'counter',
        document: { width: 80, sections: [{ type: 'text', value: '<over tls>' }, { type: 'cut' }] },
      }),
    ),
  })
  expect(posted.status).toBe(202)
  const { job } = (await posted.json()) as { job: Job }
  await waitFor(() => existsSync(paper) && readFileSync(paper, 'latin1').includes('<over tls>'), 10_000)
  const done = await waitFor(async () => {
    const { jobs } = (await (
      await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
        ...trusted(),
        headers: { authorization: `Bearer ${apiKey}` },
      })
    ).json()) as { jobs: Job[] }
    return jobs.find((j) => j.id === job.id && j.state === 'COMPLETED')
  }, 10_000)
  expect(done.attemptCount).toBe(1)
}, 30_000)

test('doctor finds this hub on its port', async () => {
  const doctor = await cli([
    'doctor',
    '--data',
    join(dir, 'hub'),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--json',
  ])
  const finding = (
    JSON.parse(doctor.stdout) as { findings: { check: string; verdict: string; detail: string }[] }
  ).findings.find((f) => f.check.startsWith('port'))!
  expect(finding.verdict).toBe('ok')
})

test('half a setting, or a file that cannot be read, stops start-up instead of serving plain HTTP', async () => {
  const only = await cli(['serve', '--port', '0', '--data', join(dir, 'other'), '--tls-cert', cert])
  expect(only.code).not.toBe(0)
  expect(only.stderr).toContain('HTTPS needs both --tls-cert and --tls-key')
  const missing = await cli([
    'serve',
    '--port',
    '0',
    '--data',
    join(dir, 'other'),
    '--tls-cert',
    cert,
    '--tls-key',
    join(dir, 'nowhere.key'),
  ])
  expect(missing.code).not.toBe(0)
  expect(missing.stderr).toContain(`--tls-key ${join(dir, 'nowhere.key')} cannot be read (ENOENT)`)
  expect(existsSync(join(dir, 'other'))).toBe(false)
})
