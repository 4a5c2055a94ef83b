// Failover through crashes: a hub process is killed with -9 at random moments while tickets
// waiting at a printer out of paper are moved to the next printer of their destination, and
// started again, round after round. Every ticket prints exactly once, at the printer that can
// print; none is lost, none prints twice, the printer out of paper never gets one.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { type EmulatedReceipt, PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import type { Job } from '../../src/protocol/job.ts'
import { cliJson } from '../support/cli.ts'
import { tempDir } from '../support/hub.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'

const ROUNDS = 4
const TICKETS = 3
const ENV = {
  PRINTHUB_STATUS_POLL_MS: '200',
  PRINTHUB_FAILOVER_AFTER_MS: '500',
  PRINTHUB_RETRY_INITIAL_MS: '200',
  PRINTHUB_RETRY_MAX_MS: '400',
}

let dir: string
let projectId: string
let apiKey: string
const printed: Record<'kitchen' | 'bar', EmulatedReceipt[]> = { kitchen: [], bar: [] }
const emulators = {} as Record<'kitchen' | 'bar', PrinterEmulator>

beforeAll(async () => {
  dir = tempDir()
  const env = { PRINTHUB_DATA_DIR: dir }
  const init = await cliJson(['init', '--json'], env)
  projectId = init.projectId
  apiKey = init.apiKey
  for (const name of ['kitchen', 'bar'] as const) {
    emulators[name] = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('epson-tm-t20iii')!,
      width: 80,
      state: { paper: 'out' },
      onReceipt: (receipt) => printed[name].push(receipt),
    })
    await cliJson(
      [
        'printers',
        'add',
        '--project',
        projectId,
        '--id',
        name,
        '--connection',
        `tcp://127.0.0.1:${emulators[name].port}`,
        '--profile',
        'epson-tm-t20iii',
        '--json',
      ],
      env,
    )
  }
  await cliJson(
    ['destinations', 'create', 'pass', '--project', projectId, '--printer', 'kitchen', '--printer', 'bar', '--json'],
    env,
  )
})
afterAll(() => {
  for (const emulator of Object.values(emulators)) emulator.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function post(hub: ServeProcess, marker: string): Promise<Job> {
  const response = await fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      printerId: 'pass',
      idempotencyKey: marker,
      maxAttempts: 10,
      document: { width: 80, sections: [{ type: 'text', value: `<${marker}>` }, { type: 'cut' }] },
    }),
  })
  expect(response.status).toBe(202)
  return (await response.json()).job
}

const text = (receipts: EmulatedReceipt[]) =>
  receipts.map((receipt) => new TextDecoder('latin1').decode(receipt.bytes)).join('\n')
const times = (marker: string) => (text(printed.bar) + text(printed.kitchen)).split(`<${marker}>`).length - 1

describe('failover through kill -9', () => {
  test(`${ROUNDS} rounds: tickets waiting at a printer out of paper are moved ` +
    `while the hub is killed; each prints once, at the printer with paper`, async () => {
    const markers: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      emulators.bar.set({ paper: 'out' })
      let hub = await spawnServe(dir, { json: true, env: ENV })
      // Neither printer can print: the tickets wait at the first, the kitchen.
      await Bun.sleep(600)
      for (let i = 0; i < TICKETS; i++) {
        const marker = `r${round}t${i}`
        markers.push(marker)
        await post(hub, marker)
      }
      // The bar gets paper: after the threshold, the tickets move there. The hub dies somewhere around then.
      emulators.bar.set({ paper: 'ok' })
      await Bun.sleep(200 + Math.random() * 1_200)
      hub.process.kill('SIGKILL')
      await hub.process.exited
      hub = await spawnServe(dir, { json: true, env: ENV })
      const deadline = performance.now() + 20_000
      while (performance.now() < deadline && markers.some((marker) => times(marker) === 0)) await Bun.sleep(100)
      await hub.stop()
    }
    for (const marker of markers) expect({ marker, times: times(marker) }).toEqual({ marker, times: 1 })
    expect(printed.kitchen).toHaveLength(0)
  }, 120_000)
})
