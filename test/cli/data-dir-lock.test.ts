// One `printhub serve` or `printhub agent` per data directory, with real processes: a second one
// refuses and names the first (PID and role); kill -9 leaves no stale lock; the commands that
// touch the data briefly (jobs list, printers add) still work beside a running hub or agent.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { type AgentProcess, startAgentProcess } from '../support/agent-process.ts'
import { cli, cliJson } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'

let dir: string
const running: ReturnType<typeof Bun.spawn>[] = []

const serveArgs = (dataDir: string) => ['serve', '--host', '127.0.0.1', '--port', '0', '--data', dataDir]
const inUse = (command: string, dataDir: string, role: string, pid: number) =>
  `printhub ${command}: the data directory ${dataDir} is in use by printhub ` +
  `${role} (PID ${pid}); stop it first, or use another --data\n`

async function serve(dataDir: string): Promise<ServeProcess> {
  const started = await spawnServe(dataDir, { json: true })
  running.push(started.process)
  return started
}

async function agent(dataDir: string, args: string[] = []): Promise<AgentProcess> {
  const started = await startAgentProcess(dataDir, args)
  running.push(started.process)
  return started
}

async function kill9(child: ReturnType<typeof Bun.spawn>): Promise<void> {
  child.kill('SIGKILL')
  await child.exited
}

beforeAll(() => {
  dir = tempDir()
})
afterAll(async () => {
  await Promise.all(running.map(kill9))
  rmSync(dir, { recursive: true, force: true })
})

describe('one process per data directory', () => {
  test(
    'a second serve on the same data directory refuses, naming the first; the ' +
      'first keeps serving; kill -9 frees it at once',
    async () => {
      const dataDir = join(dir, 'hub')
      const first = await serve(dataDir)
      const second = await cli(serveArgs(dataDir))
      expect(second.code).toBe(1)
      expect(second.stderr).toBe(inUse('serve', dataDir, 'serve', first.process.pid))
      expect(second.stdout).toBe('')
      // Untouched: still serving, still taking the CLI's brief changes beside it.
      expect((await fetch(`${first.url}/health`)).status).toBe(200)
      const projectId = first.listening!.firstStart.projectId
      expect(
        await cliJson(['printers', 'add', '--project', projectId, '--id', 'bar', '--connection', 'virtual'], {
          PRINTHUB_DATA_DIR: dataDir,
        }),
      ).toMatchObject({ remoteId: 'bar' })
      expect(await cliJson(['jobs', 'list', '--project', projectId], { PRINTHUB_DATA_DIR: dataDir })).toEqual([])

      await kill9(first.process)
      const again = await serve(dataDir)
      expect(again.listening!.serverId).toBe(first.listening!.serverId)
      expect((await fetch(`${again.url}/health`)).status).toBe(200)
      // A clean stop lets the next one in too.
      expect(await again.stop()).toBe(0)
      const third = await serve(dataDir)
      expect(third.listening!.serverId).toBe(first.listening!.serverId)
      expect(await third.stop()).toBe(0)
    },
  )

  test(
    'a second agent on the same agent data directory refuses (pairing too, ' +
      'before the code is spent); kill -9 frees it at once',
    async () => {
      const hub = await serve(join(dir, 'for-agents'))
      const hubEnv = { PRINTHUB_DATA_DIR: join(dir, 'for-agents') }
      const agentDir = join(dir, 'agent')
      const { code } = await cliJson(['pairing-codes', 'create'], hubEnv)
      const first = await agent(agentDir, ['--server', hub.url, '--code', code])

      const second = await cli(['agent', '--data', agentDir])
      expect(second.code).toBe(1)
      expect(second.stderr).toBe(inUse('agent', agentDir, 'agent', first.process.pid))
      const spare = (await cliJson(['pairing-codes', 'create'], hubEnv)).code
      const pairing = await cli(['agent', '--data', agentDir, '--server', hub.url, '--code', spare])
      expect(pairing.code).toBe(1)
      expect(pairing.stderr).toBe(inUse('agent', agentDir, 'agent', first.process.pid))
      // A hub cannot take an agent's directory either.
      const hubThere = await cli(serveArgs(agentDir))
      expect(hubThere.code).toBe(1)
      expect(hubThere.stderr).toBe(inUse('serve', agentDir, 'agent', first.process.pid))
      // The agent's brief commands still work beside it.
      expect(
        (await cli(['printers', 'add', '--local', '--id', 'till', '--connection', 'virtual', '--data', agentDir])).code,
      ).toBe(0)
      // The refused pairing did not spend its code: another agent pairs with it.
      const other = await agent(join(dir, 'other-agent'), ['--server', hub.url, '--code', spare])
      expect(other.output()).toContain('Paired with')

      await kill9(first.process)
      const again = await agent(agentDir)
      expect(again.output()).toContain(`serving the printers in ${agentDir}`)
    },
  )
})
