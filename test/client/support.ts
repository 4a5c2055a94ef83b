// Helpers for the client tests. They use only what Node and Bun both have (node:http,
// node:child_process), because the client suite runs under both.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import assert from 'node:assert/strict'
import { clientOver, type PrintHubClient } from '../../src/client/client.ts'
import { ApiError } from '../../src/client/errors.ts'
import { type PrintHubClientOptions, resolveClientConfig } from '../../src/client/config.ts'
import { Connection } from '../../src/client/connection.ts'
import type { Scheduler } from '../../src/client/retry.ts'

/** Both runners start in the repository. */
export const ROOT = process.cwd()
export const BUN = join(ROOT, 'node_modules', '.bin', 'bun')
/** The printhub the tests start: the sources, or the executable named by PRINTHUB_EXECUTABLE. */
const PRINTHUB = process.env.PRINTHUB_EXECUTABLE
  ? [resolve(ROOT, process.env.PRINTHUB_EXECUTABLE)]
  : [BUN, 'src/main.ts']

export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

export type Reply = (response: ServerResponse) => void

/** A reply with a status, a JSON body and optional headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
}

/** A reply that never comes (the socket stays open until the client gives up). */
export const silence: Reply = () => {}

/** A real HTTP server that answers with a programmed sequence of replies, and records what it got. */
export async function faultServer(
  replies: Reply[],
): Promise<{ url: string; requests: RecordedRequest[]; close(): Promise<void> }> {
  const requests: RecordedRequest[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      requests.push({ method: request.method!, url: request.url!, headers: request.headers, body })
      const reply =
        replies[requests.length - 1] ?? json(500, { error: { code: 'unscripted', message: 'no reply scripted' } })
      reply(response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  // A test that fails before closing its server must not keep the runner's process alive.
  server.unref()
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A fake clock: waits are recorded and end at once; the jitter draw is fixed. */
export function fakeScheduler(random = 0.5): Scheduler & { delays: number[] } {
  const delays: number[] = []
  return {
    delays,
    random: () => random,
    sleep(ms, signal) {
      delays.push(ms)
      return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve()
    },
  }
}

/** A client as applications make it, but over the given scheduler. */
export function clientWith(options: PrintHubClientOptions, scheduler: Scheduler): PrintHubClient {
  return clientOver(new Connection(resolveClientConfig(options), scheduler))
}

export interface RunningHub {
  url: string
  projectId: string
  apiKey: string
  dataDir: string
  stop(): Promise<void>
}

/** A real hub, as its own process: `printhub serve --json` on a fresh data directory. */
export async function startHub(env: Record<string, string> = {}): Promise<RunningHub> {
  const dataDir = mkdtempSync(join(tmpdir(), 'printhub-client-'))
  const child: ChildProcess = spawn(
    PRINTHUB[0]!,
    [...PRINTHUB.slice(1), 'serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir, '--json'],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const listening = await new Promise<{ url: string; firstStart: { projectId: string; apiKey: string } }>(
    (resolve, reject) => {
      let output = ''
      child.stdout!.on('data', (chunk) => {
        output += chunk
        const line = output.split('\n').find((l) => l.startsWith('{"event":"listening"'))
        if (line) resolve(JSON.parse(line))
      })
      child.once('exit', (code) => reject(new Error(`the hub exited (${code}) before listening: ${output}`)))
    },
  )
  return {
    url: listening.url,
    projectId: listening.firstStart.projectId,
    apiKey: listening.firstStart.apiKey,
    dataDir,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Runs the CLI from source and parses its --json output. */
export async function cliJson(args: string[], dataDir: string): Promise<any> {
  const child = spawn(PRINTHUB[0]!, [...PRINTHUB.slice(1), ...args, '--data', dataDir, '--json'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  const code = await new Promise((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`printhub ${args.join(' ')} exited ${code}`)
  return JSON.parse(output)
}

/** The ApiError `promise` rejects with, checked: its status, its code and the hub's request ID. */
export async function rejectsWith(promise: Promise<unknown>, status: number, code: string): Promise<ApiError> {
  const error = await promise.then(
    () => assert.fail('expected an ApiError'),
    (e: unknown) => e,
  )
  assert.ok(error instanceof ApiError, String(error))
  assert.equal(error.status, status)
  assert.equal(error.code, code)
  assert.match(error.requestId ?? '', /^req_/)
  return error
}
