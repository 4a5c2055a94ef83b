// printhub's agent with an OpenPrinter service that is not a printhub at its root: the hub behind a
// proxy that mounts it under /print and answers discovery only where a stock host does. The agent
// pairs, connects and prints through it, as real processes; a service with only printhub's
// discovery path is found too; and a URL that is no OpenPrinter service is refused in plain words.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { PairingError, pairAgent } from '../../src/agent/remote.ts'
import { KEY_FILE } from '../../src/agent/identity.ts'
import type { Job } from '../../src/protocol/job.ts'
import { type AgentProcess, startAgentProcess } from '../support/agent-process.ts'
import { cliJson } from '../support/cli.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { freePort } from '../support/ports.ts'
import { type PrefixProxy, prefixProxy } from '../support/prefix-proxy.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

let dir: string
let hub: ServeProcess
let proxy: PrefixProxy
let agent: AgentProcess | undefined
const hubEnv = () => ({ PRINTHUB_DATA_DIR: join(dir, 'hub') })
const code = async () => ((await cliJson(['pairing-codes', 'create'], hubEnv())) as { code: string }).code

beforeAll(async () => {
  dir = tempDir()
  hub = await spawnServe(join(dir, 'hub'), {
    json: true,
    port: freePort(),
    env: { PRINTHUB_RETRY_INITIAL_MS: '100', PRINTHUB_RETRY_MAX_MS: '500' },
  })
  proxy = prefixProxy(hub.url, '/print')
})
afterAll(async () => {
  proxy?.stop()
  for (const child of [hub?.process, agent?.process]) {
    child?.kill('SIGKILL')
    await child?.exited
  }
  rmSync(dir, { recursive: true, force: true })
})

describe('an OpenPrinter service mounted under a base path, with only the protocol’s discovery path', () => {
  test('the agent pairs, connects and prints through it', async () => {
    const agentDir = join(dir, 'agent')
    const paper = join(agentDir, 'output', 'bar.bin')
    await cliJson(
      ['printers', 'add', '--local', '--id', 'bar', '--connection', `file://${paper}`, '--data', agentDir],
      {},
    )
    agent = await startAgentProcess(agentDir, ['--server', proxy.url, '--code', await code()])
    expect(agent.output()).toContain(`Paired with ${proxy.url.replace(/\/$/, '')} as agent agt_`)
    // Discovery below the base path, at the protocol's own path first; then pairing and the gateway where the service
    // said.
    expect(proxy.requests.slice(0, 3)).toEqual([
      'GET /print/.well-known/openprinter',
      'POST /print/printservice/pair',
      'GET /print/.well-known/printservice/gateway',
    ])

    const { projectId, apiKey } = hub.listening!.firstStart
    const agents: { id: string; builtin: boolean }[] = await cliJson(['agents', 'list'], hubEnv())
    const remote = agents.find((a) => !a.builtin)!
    await waitFor(async () =>
      ((await cliJson(['printers', 'list', '--agents'], hubEnv())) as { agentId: string }[]).some(
        (p) => p.agentId === remote.id,
      ),
    )
    await cliJson(['printers', 'assign', '--project', projectId, '--agent', remote.id, '--printer', 'bar'], hubEnv())
    const response = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        jobBody({
          printerId: 'bar',
          idempotencyKey: 'through-the-proxy',
          document: { width: 80, sections: [{ type: 'text', value: '<through the proxy>' }] },
        }),
      ),
    })
    expect(response.status).toBe(202)
    const { job } = (await response.json()) as { job: Job }
    const done = await waitFor(async () => {
      const found = ((await cliJson(['jobs', 'list', '--project', projectId], hubEnv())) as Job[]).find(
        (j) => j.id === job.id,
      )
      return found?.state === 'COMPLETED' && found
    }, 15_000)
    expect(done).toMatchObject({ state: 'COMPLETED', attemptCount: 1 })
    expect(readFileSync(paper, 'latin1')).toContain('<through the proxy>')
  })
})

describe('discovery', () => {
  test("a service that answers only at printhub's path is found there, after the protocol's", async () => {
    const only = prefixProxy(hub.url, '/hub', '/.well-known/printservice')
    const agentDir = join(dir, 'agent-printservice')
    try {
      const pairing = await pairAgent({
        server: `${only.url}?ignored=1`,
        code: await code(),
        name: 'fallback',
        dataDir: agentDir,
        version: 'test',
      })
      expect(pairing).toMatchObject({ server: only.url.replace(/\/$/, '') })
      expect(pairing.gateway).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/hub\/\.well-known\/printservice\/gateway$/)
      expect(only.requests.slice(0, 3)).toEqual([
        'GET /hub/.well-known/openprinter',
        'GET /hub/.well-known/printservice',
        'POST /hub/printservice/pair',
      ])
    } finally {
      only.stop()
    }
  })

  test('a URL that is no OpenPrinter service is refused, naming what was asked, and nothing is kept', async () => {
    const agentDir = join(dir, 'agent-refused')
    const error = await pairAgent({
      server: `${hub.url}/elsewhere/`,
      code: 'ABCD-EFGH',
      name: 'nope',
      dataDir: agentDir,
      version: 'test',
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PairingError)
    expect((error as Error).message).toBe(
      `${hub.url}/elsewhere is not an OpenPrinter service: ` +
        `${hub.url}/elsewhere/.well-known/openprinter answered HTTP 404, not a ` +
        `discovery document; ${hub.url}/elsewhere/.well-known/printservice ` +
        `answered HTTP 404, not a discovery document`,
    )
    expect(existsSync(join(agentDir, KEY_FILE))).toBe(false)
  })

  test('bad server URLs are refused before anything is asked', async () => {
    for (const [server, message] of [
      ['ftp://hub.local/', '--server must be an http:// or https:// URL'],
      ['http://user:secret@hub.local/', '--server must not carry a user name, password or #fragment'],
      ['hub.local:8080', '--server must be an http:// or https:// URL'],
      ['not a url', '--server must be the service\'s URL, like http://192.168.1.10:8080 (got "not a url")'],
    ] as const) {
      const error = await pairAgent({
        server,
        code: 'ABCD-EFGH',
        name: 'nope',
        dataDir: join(dir, 'agent-bad'),
        version: 'test',
      }).catch((e: unknown) => e)
      expect([server, (error as Error).message]).toEqual([server, message])
    }
  })
})
