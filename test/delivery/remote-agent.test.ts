// A hub process and a remote agent process (`printhub agent`) over a real WebSocket on loopback,
// paired with a code made by the CLI, printing to a file printer; both killed with -9 mid-flight.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Job } from '../../src/protocol/job.ts'
import { type AgentProcess, startAgentProcess } from '../support/agent-process.ts'
import { cliJson } from '../support/cli.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'
import { freePort } from '../support/ports.ts'

const HUB_ENV = { PRINTHUB_RETRY_INITIAL_MS: '100', PRINTHUB_RETRY_MAX_MS: '500', PRINTHUB_ACK_TIMEOUT_MS: '5000' }

let dir: string
let hubDir: string
let agentDir: string
let paper: string
let port: number
let hub: ServeProcess
let agent: AgentProcess
let projectId: string
let apiKey: string

const startAgent = (args: string[] = []) => startAgentProcess(agentDir, args)

const hubEnv = () => ({ PRINTHUB_DATA_DIR: hubDir })

async function submit(marker: string): Promise<Job> {
  const response = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(
      jobBody({
        printerId: 'kitchen',
        idempotencyKey: marker,
        document: { width: 80, sections: [{ type: 'text', value: `<${marker}>` }, { type: 'cut' }] },
      }),
    ),
  })
  expect(response.status).toBe(202)
  return (await response.json()).job
}

/** Every job's state, read by the CLI from the hub's database. */
async function states(ids: string[]): Promise<Job[]> {
  const jobs: Job[] = await cliJson(['jobs', 'list', '--project', projectId], hubEnv())
  return ids.map((id) => jobs.find((j) => j.id === id)!)
}

const FINISHED = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'])

async function untilFinished(ids: string[], timeoutMs = 30_000): Promise<Job[]> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const jobs = await states(ids)
    if (jobs.every((j) => FINISHED.has(j.state))) return jobs
    if (performance.now() > deadline)
      throw new Error(
        `not finished: ${jobs
          .filter((j) => !FINISHED.has(j.state))
          .map((j) => `${j.id} ${j.state}`)
          .join(', ')}`,
      )
    await Bun.sleep(50)
  }
}

/** How many times each marker is on the paper. */
function printedCount(marker: string): number {
  const text = existsSync(paper) ? readFileSync(paper, 'latin1') : ''
  return text.split(`<${marker}>`).length - 1
}

beforeAll(async () => {
  dir = tempDir()
  hubDir = join(dir, 'hub')
  agentDir = join(dir, 'agent')
  // A file printer writes only inside its agent's output folder.
  paper = join(agentDir, 'output', 'kitchen.bin')
  port = freePort()
  hub = await spawnServe(hubDir, { json: true, port, env: HUB_ENV })
  projectId = hub.listening!.firstStart.projectId
  apiKey = hub.listening!.firstStart.apiKey
})
afterAll(async () => {
  for (const child of [hub?.process, agent?.process]) {
    child?.kill('SIGKILL')
    await child?.exited
  }
  rmSync(dir, { recursive: true, force: true })
})

describe('a remote agent', () => {
  test('pairs with a code from the CLI, reports its printers, and prints what the hub sends', async () => {
    const { code } = await cliJson(['pairing-codes', 'create'], hubEnv())
    await cliJson(
      [
        'printers',
        'add',
        '--local',
        '--id',
        'kitchen',
        '--connection',
        `file://${paper}`,
        '--name',
        'Kitchen',
        '--data',
        agentDir,
      ],
      {},
    )
    agent = await startAgent(['--server', hub.url, '--code', code, '--name', 'kitchen-pi'])
    expect(agent.output()).toMatch(/Paired with http:\/\/127\.0\.0\.1:\d+ as agent agt_/)

    const agents = await cliJson(['agents', 'list'], hubEnv())
    const remote = agents.find((a: { builtin: boolean }) => !a.builtin)
    expect(remote).toMatchObject({ name: 'kitchen-pi', revokedAt: null })
    const reported = await cliJson(['printers', 'list', '--agents'], hubEnv())
    expect(reported).toContainEqual(
      expect.objectContaining({ agentId: remote.id, printerId: 'kitchen', name: 'Kitchen', availability: 'unknown' }),
    )

    const assigned = await cliJson(
      ['printers', 'assign', '--project', projectId, '--agent', remote.id, '--printer', 'kitchen'],
      hubEnv(),
    )
    expect(assigned).toMatchObject({ remoteId: 'kitchen', agentId: remote.id, agentPrinterId: 'kitchen' })

    const job = await submit('first')
    const [done] = await untilFinished([job.id])
    expect(done).toMatchObject({ state: 'COMPLETED', attemptCount: 1 })
    expect(done!.receivedAt).not.toBeNull()
    expect(done!.submittedAt).not.toBeNull()
    expect(printedCount('first')).toBe(1)
    expect(readFileSync(paper, 'latin1').startsWith('\x1b@')).toBe(true)

    // printhub's document extensions reach a printhub agent (it said so in its hello), and print.
    const styled = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        jobBody({
          printerId: 'kitchen',
          idempotencyKey: 'styled',
          document: {
            width: 80,
            sections: [
              { type: 'text', value: '<styled>', size: { width: 2, height: 2 } },
              { type: 'drawer', pin: 2 },
            ],
          },
        }),
      ),
    })
    expect(styled.status).toBe(202)
    const [styledDone] = await untilFinished([((await styled.json()) as { job: Job }).job.id])
    expect(styledDone).toMatchObject({ state: 'COMPLETED', lastErrorCode: null })
    expect(readFileSync(paper, 'latin1')).toContain('\x1d!\x11<styled>\n\x1bp\x002\xfa\x1d!\x00')
  })

  test('killed with -9 at random moments under load: no job lost, none printed twice', async () => {
    const ids: string[] = []
    const markers = new Map<string, string>()
    for (let round = 0; round < 4; round++) {
      const batch = await Promise.all(Array.from({ length: 25 }, (_, i) => submit(`agent-kill-${round}-${i}`)))
      for (const job of batch) {
        ids.push(job.id)
        markers.set(job.id, job.idempotencyKey)
      }
      // The point of the test is a kill at an unpredictable moment of the work.
      await Bun.sleep(Math.floor(Math.random() * 60))
      agent.process.kill('SIGKILL')
      await agent.process.exited
      agent = await startAgent()
    }
    const jobs = await untilFinished(ids)
    for (const job of jobs) {
      const count = printedCount(markers.get(job.id)!)
      if (job.state === 'COMPLETED') expect({ job: job.id, count }).toEqual({ job: job.id, count: 1 })
      else {
        // Caught between the write and its record: it may have printed once, never twice.
        expect(job).toMatchObject({ state: 'FAILED', lastErrorCode: 'job.recovery_uncertain' })
        expect(count).toBeLessThanOrEqual(1)
      }
    }
    expect(jobs.filter((j) => j.state === 'COMPLETED').length).toBeGreaterThan(ids.length / 2)
  }, 60_000)

  test('the hub killed with -9 mid-flight and restarted: every job completes, each printed once', async () => {
    const batch = await Promise.all(Array.from({ length: 40 }, (_, i) => submit(`hub-kill-${i}`)))
    await Bun.sleep(Math.floor(Math.random() * 40))
    hub.process.kill('SIGKILL')
    await hub.process.exited
    hub = await spawnServe(hubDir, { json: true, port, env: HUB_ENV })
    const jobs = await untilFinished(batch.map((j) => j.id))
    for (const [i, job] of jobs.entries()) {
      expect(job.state).toBe('COMPLETED')
      expect({ i, count: printedCount(`hub-kill-${i}`) }).toEqual({ i, count: 1 })
    }
  }, 60_000)

  test('revoked: its connection ends, and the agent stops with a message saying to pair again', async () => {
    const remote = (await cliJson(['agents', 'list'], hubEnv())).find((a: { builtin: boolean }) => !a.builtin)
    await cliJson(['agents', 'revoke', remote.id], hubEnv())
    expect(await agent.process.exited).toBe(1)
    expect(await agent.errors).toContain('pair it again')
    const builtin = (await cliJson(['agents', 'list'], hubEnv())).find((a: { builtin: boolean }) => a.builtin)
    const refused = await cliJson(['agents', 'revoke', builtin.id], hubEnv()).catch((error: Error) => error)
    expect(String(refused)).toContain('cannot be revoked')
  })
})
