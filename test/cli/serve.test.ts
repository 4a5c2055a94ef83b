// `printhub serve` as a process: first start, live CLI changes, kill -9 and restart, shutdown.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { fetchNode, OLDEST_NODE, OLDEST_NODE_VERSION } from '../../scripts/node-binary.ts'
import { MIGRATIONS } from '../../src/store/migrations.ts'
import { cli, cliJson, PRINTHUB, ROOT } from '../support/cli.ts'
import { writtenByNewerPrinthub } from '../support/fixtures.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

let dataDir: string
let serve: ServeProcess
let projectId: string
let apiKey: string

beforeAll(async () => {
  dataDir = tempDir()
  serve = await spawnServe(dataDir)
})
afterAll(async () => {
  serve.process.kill('SIGKILL')
  await serve.process.exited
  rmSync(dataDir, { recursive: true, force: true })
})

const post = (body: unknown, key = apiKey) =>
  fetch(`${serve.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('printhub serve', () => {
  test(
    'the first start prints the project, a new API key and a line that ' +
      'submits a test job with Node.js 18 (no curl needed), or with curl',
    async () => {
      const output = serve.output()
      projectId = /created project (prj_[0-9a-f]+)/.exec(output)![1]!
      apiKey = /API key \(shown only now; keep it secret\): (phk_\S+)/.exec(output)![1]!
      expect(output).toContain('Submit a test job (with Node.js 18 or later):\n')
      const line = /^ {2}(node -e .*)$/m.exec(output)![1]!
      // Run as printed, by sh, with nothing on PATH but the oldest Node.js it names (as on a fresh
      // Debian 12, whose Node.js is 18 and which has no curl).
      expect(fetchNode(OLDEST_NODE_VERSION)).toBeNull()
      const path = tempDir()
      symlinkSync(OLDEST_NODE, join(path, 'node'))
      try {
        const run = Bun.spawn(['/bin/sh', '-c', line], { env: { PATH: path }, stdout: 'pipe', stderr: 'pipe' })
        const [stdout, stderr, code] = await Promise.all([
          new Response(run.stdout).text(),
          new Response(run.stderr).text(),
          run.exited,
        ])
        expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
        const [, status, body] = /^(\d+) (.*)\n$/s.exec(stdout)!
        expect(status).toBe('202')
        const { job } = JSON.parse(body!)
        expect(job).toMatchObject({ state: 'PENDING', idempotencyKey: 'hello-1' })
        // It goes through the demo printer.
        const show = async () =>
          (
            await (
              await fetch(`${serve.url}/v1/projects/${projectId}/jobs/${job.id}`, {
                headers: { authorization: `Bearer ${apiKey}` },
              })
            ).json()
          ).job
        expect(
          await waitFor(async () => ((await show()).state === 'COMPLETED' ? show() : undefined), 10_000),
        ).toMatchObject({ id: job.id, state: 'COMPLETED' })

        // The curl line says the same: sent exactly as printed, it is the same job (its idempotency key).
        expect(output).toContain('or with curl (on Debian: sudo apt-get install curl):\n')
        const curl = /^ {2}(curl .*)$/m.exec(output)![1]!
        const [, url, auth, type, data] = /^curl -X POST (\S+) -H '([^']+)' -H '([^']+)' -d '(.+)'$/.exec(curl)!
        expect(url).toBe(`${serve.url}/v1/projects/${projectId}/jobs`)
        expect(auth).toBe(`Authorization: Bearer ${apiKey}`)
        const response = await fetch(url!, {
          method: 'POST',
          headers: [auth, type].map((h) => h!.split(': ') as [string, string]),
          body: data,
        })
        expect(response.status).toBe(200)
        expect((await response.json()).job.id).toBe(job.id)
      } finally {
        rmSync(path, { recursive: true, force: true })
      }
    },
  )

  test(
    "the first start prints a one-time link that makes the dashboard's first " +
      'owner account; the dashboard is served from the program',
    async () => {
      const link = new RegExp(
        /Make the dashboard's first owner account \(the link works once, for 24 hours\): /.source +
          /(http:\/\/\S+\/dashboard\/setup#(\S+))$/.source,
        'm',
      ).exec(serve.output())
      expect(link).not.toBeNull()
      const token = link![2]!
      const page = await fetch(`${serve.url}/dashboard/setup`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<script type="module" src="/dashboard/assets/app.ts">')
      // The browser code is compiled into the program and sent as JavaScript.
      const script = await fetch(`${serve.url}/dashboard/assets/pages/agents.ts`, {
        headers: { 'accept-encoding': 'gzip' },
      })
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
      const code = await script.text()
      expect(code).toContain('t.agents.create')
      expect(code).not.toContain(': Page =')
      const setup = await fetch(`${serve.url}/admin/v1/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, password: 'a long password' }),
      })
      expect(setup.status).toBe(200)
      // Set: the admin CLI changes it, from standard input, and signs every browser out.
      const cookie = setup.headers.get('set-cookie')!.split(';')[0]!
      const child = Bun.spawn([...PRINTHUB, 'admin', 'set-password', '--data', dataDir], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '' },
        stdin: new TextEncoder().encode('another long password\n'),
        stdout: 'pipe',
        stderr: 'pipe',
      })
      expect(await child.exited).toBe(0)
      expect(await new Response(child.stdout).text()).toContain(
        'The password of admin (owner) is set; 1 signed-in browser was signed out.',
      )
      expect((await fetch(`${serve.url}/admin/v1/session`, { headers: { cookie } })).status).toBe(401)
      const login = await fetch(`${serve.url}/admin/v1/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: 'another long password' }),
      })
      expect(login.status).toBe(200)
      const short = Bun.spawn([...PRINTHUB, 'admin', 'set-password', '--data', dataDir], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '' },
        stdin: new TextEncoder().encode('short\n'),
        stdout: 'pipe',
        stderr: 'pipe',
      })
      expect(await short.exited).toBe(2)
      expect(await new Response(short.stderr).text()).toContain('The password must have at least 10 characters.')
      const token2 = await cliJson(['admin', 'create-token', '--name', 'backups'], { PRINTHUB_DATA_DIR: dataDir })
      expect(token2.secret).toMatch(/^pha_/)
      expect(
        (await fetch(`${serve.url}/admin/v1/overview`, { headers: { authorization: `Bearer ${token2.secret}` } }))
          .status,
      ).toBe(200)
    },
  )

  test('changes made with the CLI take effect without a restart', async () => {
    const key = await cliJson(['keys', 'create', '--project', projectId, '--scope', 'jobs:write'], {
      PRINTHUB_DATA_DIR: dataDir,
    })
    expect((await post(jobBody(), key.apiKey)).status).toBe(202)
    expect((await post(jobBody({ printerId: 'bar' }))).status).toBe(404)
    await cliJson(['printers', 'add', '--project', projectId, '--id', 'bar', '--connection', 'tcp://127.0.0.1:9100'], {
      PRINTHUB_DATA_DIR: dataDir,
    })
    expect((await post(jobBody({ printerId: 'bar' }))).status).toBe(202)
    await cliJson(['keys', 'revoke', key.id], { PRINTHUB_DATA_DIR: dataDir })
    expect((await post(jobBody(), key.apiKey)).status).toBe(401)
  })

  test('a job answered 202 survives kill -9 and a restart', async () => {
    const accepted = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(jobBody({ idempotencyKey: `durable-${i}` }))),
    )
    expect(accepted.map((r) => r.status)).toEqual(Array(20).fill(202))
    const ids = (await Promise.all(accepted.map((r) => r.json()))).map((b) => b.job.id)
    serve.process.kill('SIGKILL')
    expect(await serve.process.exited).not.toBe(0)

    serve = await spawnServe(dataDir, { json: true })
    expect(serve.listening!.firstStart).toBeNull()
    const list = await fetch(`${serve.url}/v1/projects/${projectId}/jobs`, {
      headers: { authorization: `Bearer ${apiKey}` },
    })
    const listed = (await list.json()).jobs.map((j: { id: string }) => j.id)
    for (const id of ids) expect(listed).toContain(id)
    // Each one ends after the restart, none lost: printed, or (the one the kill caught between
    // handing it to the printer and recording that it went) failed as uncertain, never printed twice.
    const show = async () => {
      const response = await fetch(`${serve.url}/v1/projects/${projectId}/jobs`, {
        headers: { authorization: `Bearer ${apiKey}` },
      })
      const jobs: { id: string; state: string; lastErrorCode: string | null }[] = (await response.json()).jobs
      return ids.map((id) => jobs.find((j) => j.id === id)!)
    }
    let jobs = await show()
    for (; !jobs.every((j) => j.state === 'COMPLETED' || j.state === 'FAILED'); jobs = await show()) await Bun.sleep(20)
    const uncertain = jobs.filter((j) => j.state === 'FAILED')
    expect(uncertain.length).toBeLessThanOrEqual(1)
    for (const job of uncertain) expect(job.lastErrorCode).toBe('job.recovery_uncertain')
    const printed = jobs.find((j) => j.state === 'COMPLETED')!
    const shown = await cliJson(['jobs', 'show', printed.id], { PRINTHUB_DATA_DIR: dataDir })
    expect(shown).toMatchObject({ id: printed.id, state: 'COMPLETED', attemptCount: 1 })
    // The same key after the restart is still a duplicate.
    const again = await post(jobBody({ idempotencyKey: 'durable-3' }))
    expect(again.status).toBe(200)
    expect((await again.json()).job.id).toBe(ids[3])
  })

  test('SIGTERM stops it cleanly', async () => {
    expect(await serve.stop()).toBe(0)
    const events = serve
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    // Stopped last; between stopping and stopped, the hub's own lines (agents disconnected).
    expect(events.filter((e) => e.event !== 'delivery').slice(-2)).toEqual([
      { event: 'stopping', signal: 'SIGTERM' },
      { event: 'stopped' },
    ])
    expect(events.at(-1)).toEqual({ event: 'stopped' })
    // With --json, request log lines are JSON events too.
    expect(events.find((e) => e.event === 'request')).toEqual({
      event: 'request',
      method: 'GET',
      path: `/v1/projects/${projectId}/jobs`,
      status: 200,
      ms: expect.any(Number),
      requestId: expect.stringMatching(/^req_/),
    })
    // A clean close leaves no write-ahead log behind.
    expect(await Bun.file(join(dataDir, 'printhub.db-wal')).exists()).toBe(false)
  })
})

describe('start-up', () => {
  test('serve --json reports the first start, and a second hub on the same port is refused', async () => {
    const dir = tempDir()
    const other = tempDir()
    const first = await spawnServe(dir, { json: true })
    try {
      expect(first.listening).toMatchObject({
        event: 'listening',
        version: '0.1.0',
        url: first.url,
        dataDir: dir,
        serverId: expect.stringMatching(/^srv_/),
      })
      expect(first.listening!.firstStart).toEqual({
        created: true,
        projectId: expect.any(String),
        apiKey: expect.stringMatching(/^phk_/),
        keyId: expect.any(String),
        keyPrefix: expect.any(String),
        printerId: 'demo',
        serverId: first.listening!.serverId,
      })
      const port = new URL(first.url).port
      const second = await cli(['serve', '--host', '127.0.0.1', '--port', port, '--data', other])
      expect(second.code).toBe(1)
      expect(second.stderr).toContain(`cannot listen on 127.0.0.1 port ${port}`)
      // Nothing was created that nobody saw: a later start on that data dir is still a first start.
      const retry = await spawnServe(other, { json: true })
      expect(retry.listening!.firstStart).toMatchObject({ created: true })
      expect(await retry.stop()).toBe(0)
    } finally {
      await first.stop()
      rmSync(dir, { recursive: true, force: true })
      rmSync(other, { recursive: true, force: true })
    }
  })
})

describe('schema versions', () => {
  test('a database written by a newer printhub is refused with a clear message', async () => {
    const dir = tempDir()
    try {
      await cliJson(['init'], { PRINTHUB_DATA_DIR: dir })
      writtenByNewerPrinthub(dir, 999)
      for (const args of [
        ['jobs', 'list', '--project', 'prj_x'],
        ['serve', '--port', '0'],
      ]) {
        const result = await cli([...args, '--data', dir])
        expect(result.code).toBe(1)
        expect(result.stderr).toContain(
          `printhub.db was written by a newer printhub (schema version 999; this ` +
            `printhub knows up to version ${MIGRATIONS.length})`,
        )
        expect(result.stderr).toContain(`printhub restore FILE --data ${dir} --force`)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
