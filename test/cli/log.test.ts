// The log of `printhub serve` and `printhub agent` as processes, in both formats: a whole session
// with every kind of secret (API keys, a pairing code, the admin password and a wrong one, a
// dashboard session, an admin token, the agent's private key) goes through a real hub, with a
// remote agent and a printer that runs out of paper and gets it back. None of the secrets is in
// anything either process wrote; the lines an operator looks for are, each with its level.
import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { type AgentProcess, startAgentProcess } from '../support/agent-process.ts'
import { cli, cliJson, PRINTHUB, ROOT } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'
import { freePort } from '../support/ports.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

const PASSWORD = 'correct horse battery staple 42'
const WRONG_PASSWORD = 'incorrect donkey 99 staple'
const HUB_ENV = { PRINTHUB_STATUS_POLL_MS: '200', PRINTHUB_RETRY_INITIAL_MS: '100', PRINTHUB_RETRY_MAX_MS: '200' }

const dirs: string[] = []
const children: { kill(signal?: number | string): void; exited: Promise<number> }[] = []
afterAll(async () => {
  for (const child of children) {
    child.kill('SIGKILL')
    await child.exited
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** `printhub emulate`: a TCP receipt printer whose paper is as given. */
async function emulator(port: number, paper: 'ok' | 'out'): Promise<ReturnType<typeof Bun.spawn>> {
  const child = Bun.spawn([...PRINTHUB, 'emulate', '--listen', `tcp://127.0.0.1:${port}`, '--paper', paper, '--json'], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  children.push(child)
  const reader = child.stdout.getReader()
  const { value } = await reader.read()
  expect(new TextDecoder().decode(value)).toContain('"event":"listening"')
  reader.releaseLock()
  return child
}

async function stopped(child: { kill(signal?: number | string): void; exited: Promise<number> }): Promise<number> {
  child.kill('SIGTERM')
  return child.exited
}

interface Session {
  hubLog: string
  agentLog: string
  secrets: Record<string, string>
  projectId: string
  printerIds: { demo: string; kitchen: string }
  agentId: string
  jobIds: string[]
}

/** A whole session through a hub and a remote agent that log in `format`. */
async function session(format: 'text' | 'json'): Promise<Session> {
  const dir = tempDir()
  dirs.push(dir)
  const hubDir = join(dir, 'hub')
  const agentDir = join(dir, 'agent')
  const env = { PRINTHUB_DATA_DIR: hubDir }
  // Made before the hub starts: its own output then has no key and no setup link to show.
  const init = await cliJson(['init'], env)
  const password = Bun.spawn([...PRINTHUB, 'admin', 'set-password', '--data', hubDir], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '' },
    stdin: new TextEncoder().encode(`${PASSWORD}\n`),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  expect(await password.exited).toBe(0)
  const adminToken = (await cliJson(['admin', 'create-token', '--name', 'scripts'], env)).secret as string
  const port = freePort()
  let paper = await emulator(port, 'out')
  await cliJson(
    ['printers', 'add', '--project', init.projectId, '--id', 'kitchen', '--connection', `tcp://127.0.0.1:${port}`],
    env,
  )

  const hub: ServeProcess = await spawnServe(hubDir, { args: ['--log-format', format], env: HUB_ENV })
  children.push(hub.process)
  const admin = (path: string, init: RequestInit = {}) => fetch(`${hub.url}/admin/v1${path}`, init)

  // A wrong password, then the right one: a dashboard session.
  expect(
    (
      await admin('/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: WRONG_PASSWORD }),
      })
    ).status,
  ).toBe(401)
  const login = await admin('/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: PASSWORD }),
  })
  expect(login.status).toBe(200)
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  const csrf = ((await login.json()) as { csrfToken: string }).csrfToken
  const asSession = { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' }
  const created = await admin(`/projects/${init.projectId}/keys`, {
    method: 'POST',
    headers: asSession,
    body: JSON.stringify({ name: 'till', scopes: ['jobs:write', 'jobs:read'] }),
  })
  expect(created.status).toBe(201)
  const sessionKey = ((await created.json()) as { secret: string }).secret
  // The admin token, and a pairing code made with it.
  const paired = await admin('/pairing-codes', {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: '{}',
  })
  expect(paired.status).toBe(201)
  const code = ((await paired.json()) as { code: string }).code

  // A remote agent paired with the code; its printer is a file.
  await cliJson(
    [
      'printers',
      'add',
      '--local',
      '--id',
      'bar',
      '--connection',
      `file://${join(agentDir, 'output', 'bar.bin')}`,
      '--data',
      agentDir,
    ],
    {},
  )
  const agent: AgentProcess = await startAgentProcess(agentDir, [
    '--server',
    hub.url,
    '--code',
    code,
    '--name',
    'bar-pi',
    '--log-format',
    format,
  ])
  children.push(agent.process)
  const agentId = (await cliJson(['agents', 'list'], env)).find((a: { builtin: boolean }) => !a.builtin).id as string

  // Jobs with both keys: one printed on the demo printer, one waiting for the kitchen's paper.
  const submit = async (key: string, printerId: string, idempotencyKey: string) => {
    const response = await fetch(`${hub.url}/v1/projects/${init.projectId}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        printerId,
        idempotencyKey,
        document: { width: 80, sections: [{ type: 'text', value: `secret-free ${idempotencyKey}` }, { type: 'cut' }] },
      }),
    })
    expect(response.status).toBe(202)
    return ((await response.json()) as { job: { id: string } }).job.id
  }
  const demoJob = await submit(init.apiKey, 'demo', 'log-1')
  const kitchenJob = await submit(sessionKey, 'kitchen', 'log-2')
  const state = async (id: string) =>
    (
      (await (
        await fetch(`${hub.url}/v1/projects/${init.projectId}/jobs`, {
          headers: { authorization: `Bearer ${init.apiKey}` },
        })
      ).json()) as { jobs: { id: string; state: string }[] }
    ).jobs.find((job) => job.id === id)?.state
  await waitFor(async () => (await state(demoJob)) === 'COMPLETED', 10_000)

  // The kitchen printer is out of paper (a warning), then has paper again (back to online).
  await waitFor(() => hub.output().includes('paper_out'), 10_000)
  await stopped(paper)
  paper = await emulator(port, 'ok')
  await waitFor(async () => (await state(kitchenJob)) === 'COMPLETED', 15_000)

  // The agent goes away (a disconnection), then the hub stops.
  expect(await stopped(agent.process)).toBe(0)
  await waitFor(() => hub.output().includes('agent disconnected'), 10_000)
  expect(await hub.stop()).toBe(0)
  await stopped(paper)
  return {
    // Everything each process wrote, stdout and stderr.
    hubLog: hub.output() + (await hub.errors),
    agentLog: agent.output() + (await agent.errors),
    secrets: {
      'the first API key': init.apiKey,
      'the API key made in the dashboard': sessionKey,
      'the admin password': PASSWORD,
      'a wrong password': WRONG_PASSWORD,
      'the dashboard session': cookie.split('=')[1]!,
      'the CSRF token': csrf,
      'the admin token': adminToken,
      'the pairing code': code,
      "the agent's private key": readFileSync(join(agentDir, 'agent.key'), 'utf8').trim(),
    },
    projectId: init.projectId,
    printerIds: Object.fromEntries(
      (
        (await cliJson(['printers', 'list', '--project', init.projectId], env)) as { id: string; remoteId: string }[]
      ).map((p) => [p.remoteId, p.id]),
    ) as Session['printerIds'],
    agentId,
    jobIds: [demoJob, kitchenJob],
  }
}

function expectNoSecrets(run: Session): void {
  for (const [what, secret] of Object.entries(run.secrets)) {
    expect(secret.length).toBeGreaterThanOrEqual(6)
    expect({ what, inHubLog: run.hubLog.includes(secret), inAgentLog: run.agentLog.includes(secret) }).toEqual({
      what,
      inHubLog: false,
      inAgentLog: false,
    })
  }
}

describe('the log', () => {
  test('text: one line per entry with its level and component; job states, the ' +
    'fault and recovery, the agent; no secret', async () => {
    const run = await session('text')
    expectNoSecrets(run)
    const lines = run.hubLog.trim().split('\n')
    // Every line: a time, a level, a component (the hub printed no first-start banner).
    for (const line of lines)
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (debug|info |warn |error) [a-z]+ /)
    const [demo, kitchen] = run.jobIds
    const has = (pattern: RegExp) => expect(lines.filter((line) => pattern.test(line)).length).toBeGreaterThanOrEqual(1)
    has(
      new RegExp(
        `Z info  job job=${demo} project=${run.projectId} ` +
          `printer=${run.printerIds.demo} name=demo attempt=0 new -> PENDING$`,
      ),
    )
    has(
      new RegExp(
        `Z info  job job=${demo} project=${run.projectId} ` +
          `printer=${run.printerIds.demo} name=demo attempt=1 PENDING -> ` +
          `DISPATCHING$`,
      ),
    )
    has(new RegExp(`Z info  job job=${demo} .* -> COMPLETED$`))
    has(
      new RegExp(
        `Z info  job job=${kitchen} project=${run.projectId} ` +
          `printer=${run.printerIds.kitchen} name=kitchen attempt=1 \\w+ -> ` +
          `COMPLETED$`,
      ),
    )
    has(new RegExp(`Z warn  printer printer=${run.printerIds.kitchen} name=kitchen agent=agt_\\w+ \\w+ -> paper_out$`))
    has(new RegExp(`Z info  printer printer=${run.printerIds.kitchen} name=kitchen agent=agt_\\w+ \\w+ -> online$`))
    has(new RegExp(`Z info  gateway agent=${run.agentId} name=bar-pi address=127\\.0\\.0\\.1 agent connected$`))
    has(
      new RegExp(
        `Z (info |warn ) gateway agent=${run.agentId} name=bar-pi ` +
          `address=127\\.0\\.0\\.1 reason=("[^"]+"|\\S+) agent disconnected$`,
      ),
    )
    has(/Z info  api request=req_\w+ POST \/v1\/projects\/prj_\w+\/jobs 202 [\d.]+ms$/)
    // The remote agent's own log, as readable.
    const agentLines = run.agentLog.trim().split('\n')
    for (const line of agentLines) expect(line).toMatch(/^\S+Z (debug|info |warn |error) [a-z]+ /)
    expect(agentLines.some((line) => / info  agent agent=agt_\w+ connected to the hub$/.test(line))).toBe(true)
  }, 60_000)

  test('json: one object per line {time, level, component, msg, ...fields}; the same lines; no secret', async () => {
    const run = await session('json')
    expectNoSecrets(run)
    const entries = run.hubLog
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    for (const entry of entries) {
      expect(Object.keys(entry).slice(0, 4)).toEqual(['time', 'level', 'component', 'msg'])
      expect(['debug', 'info', 'warn', 'error']).toContain(entry.level as string)
    }
    const [demo, kitchen] = run.jobIds
    const has = (expected: Record<string, unknown>) => expect(entries).toContainEqual(expect.objectContaining(expected))
    has({
      level: 'info',
      component: 'job',
      job: demo,
      project: run.projectId,
      printer: run.printerIds.demo,
      name: 'demo',
      attempt: 0,
      msg: 'new -> PENDING',
    })
    has({ level: 'info', component: 'job', job: demo, msg: 'PENDING -> DISPATCHING', attempt: 1 })
    has({ level: 'info', component: 'job', job: kitchen, msg: expect.stringMatching(/-> COMPLETED$/) })
    has({
      level: 'warn',
      component: 'printer',
      printer: run.printerIds.kitchen,
      msg: expect.stringMatching(/-> paper_out$/),
    })
    has({
      level: 'info',
      component: 'printer',
      printer: run.printerIds.kitchen,
      msg: expect.stringMatching(/-> online$/),
    })
    has({
      level: 'info',
      component: 'gateway',
      agent: run.agentId,
      name: 'bar-pi',
      address: '127.0.0.1',
      msg: 'agent connected',
    })
    has({ component: 'gateway', agent: run.agentId, msg: 'agent disconnected', reason: expect.any(String) })
    has({
      level: 'info',
      component: 'api',
      event: 'request',
      method: 'POST',
      status: 202,
      requestId: expect.stringMatching(/^req_/),
    })
    has({ level: 'info', component: 'hub', event: 'stopped' })
    const agentEntries = run.agentLog
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(agentEntries).toContainEqual(
      expect.objectContaining({ level: 'info', component: 'agent', msg: 'connected to the hub' }),
    )
  }, 60_000)
})

test('bad log settings are refused before anything starts', async () => {
  const dir = tempDir()
  dirs.push(dir)
  const format = await cli(['serve', '--data', dir, '--port', '0', '--log-format', 'xml'])
  expect(format.code).toBe(2)
  expect(format.stderr).toContain('--log-format must be one of text, json (got "xml")')
  const level = await cli(['agent', '--data', dir], { PRINTHUB_LOG_LEVEL: 'loud' })
  expect(level.code).toBe(2)
  expect(level.stderr).toContain('PRINTHUB_LOG_LEVEL must be one of debug, info, warn, error (got "loud")')
  const both = await cli(['serve', '--data', dir, '--port', '0', '--json', '--log-format', 'text'])
  expect(both.code).toBe(2)
  expect(both.stderr).toContain('--json is --log-format json')
})

test('--log-level warn: only what needs someone, and the lines whoever started the hub waits for', async () => {
  const dir = tempDir()
  dirs.push(dir)
  const hub = await spawnServe(dir, { args: ['--log-level', 'warn'] })
  children.push(hub.process)
  expect((await fetch(`${hub.url}/health`)).status).toBe(200)
  expect(await hub.stop()).toBe(0)
  const lines = (hub.output() + (await hub.errors)).trim().split('\n')
  // The first start's lines for the person who started it, then the log.
  const log = lines.slice(lines.findIndex((line) => / info  hub printhub \S+ listening on /.test(line)))
  expect(log.length).toBeGreaterThanOrEqual(3)
  expect(log.at(-2)).toMatch(/Z info  hub SIGTERM: stopping$/)
  expect(log.at(-1)).toMatch(/Z info  hub stopped$/)
  for (const line of log.slice(1, -2)) expect(line).toMatch(/Z (warn |error) /)
  expect(lines.some((line) => line.includes('GET /health'))).toBe(false)
})
