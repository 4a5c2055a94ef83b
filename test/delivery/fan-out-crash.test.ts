// Fan-out through crashes: a hub process is killed with -9 at random moments while tickets posted
// to a destination of mode "all" are made and printed (the bar printer out of paper at first, so
// some wait), and started again, round after round. Every ticket the hub accepted has its child at
// every printer (made all or none); no ticket prints twice at any printer; each child that ended
// COMPLETED printed once, and one the hub could not know about (a crash while its bytes were
// being written) says so rather than printing again.
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
const ENV = { PRINTHUB_STATUS_POLL_MS: '200', PRINTHUB_RETRY_INITIAL_MS: '200', PRINTHUB_RETRY_MAX_MS: '400' }

let dir: string
let projectId: string
let apiKey: string
const names = ['kitchen', 'bar'] as const
const printed: Record<(typeof names)[number], EmulatedReceipt[]> = { kitchen: [], bar: [] }
const emulators = {} as Record<(typeof names)[number], PrinterEmulator>
const ids = {} as Record<(typeof names)[number], string>

beforeAll(async () => {
  dir = tempDir()
  const env = { PRINTHUB_DATA_DIR: dir }
  const init = await cliJson(['init', '--json'], env)
  projectId = init.projectId
  apiKey = init.apiKey
  for (const name of names) {
    emulators[name] = PrinterEmulator.listen({
      hostname: '127.0.0.1',
      port: 0,
      profile: findProfile('epson-tm-t20iii')!,
      width: 80,
      onReceipt: (receipt) => printed[name].push(receipt),
    })
    ids[name] = (
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
    ).id
  }
  await cliJson(
    [
      'destinations',
      'create',
      'everywhere',
      '--project',
      projectId,
      '--printer',
      'kitchen',
      '--printer',
      'bar',
      '--mode',
      'all',
      '--json',
    ],
    env,
  )
})
afterAll(() => {
  for (const emulator of Object.values(emulators)) emulator.stop()
  rmSync(dir, { recursive: true, force: true })
})

const request = (hub: ServeProcess, path: string, body?: unknown) =>
  fetch(`${hub.url}/v1/projects/${projectId}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

const text = (receipts: EmulatedReceipt[]) =>
  receipts.map((receipt) => new TextDecoder('latin1').decode(receipt.bytes)).join('\n')
const times = (name: (typeof names)[number], marker: string) => text(printed[name]).split(`<${marker}>`).length - 1

describe('fan-out through kill -9', () => {
  test(`${ROUNDS} rounds: tickets to every printer are made and printed while ` +
    `the hub is killed; none half made, none printed twice anywhere`, async () => {
    const accepted = new Map<string, string>()
    for (let round = 0; round < ROUNDS; round++) {
      emulators.bar.set({ paper: 'out' })
      let hub = await spawnServe(dir, { json: true, env: ENV })
      // Posted without waiting for each answer: the kill may land between a commit and its 202.
      const posts = Array.from({ length: TICKETS }, async (_, i) => {
        const marker = `r${round}t${i}`
        // A kill may cut the request off: that ticket is judged below as one whose answer was lost.
        const response = await request(hub, '/jobs', {
          printerId: 'everywhere',
          idempotencyKey: marker,
          maxAttempts: 10,
          document: { width: 80, sections: [{ type: 'text', value: `<${marker}>` }, { type: 'cut' }] },
        }).catch(() => undefined)
        const body =
          response?.status === 202
            ? ((await response.json().catch(() => undefined)) as { job: Job } | undefined)
            : undefined
        if (body) accepted.set(marker, body.job.id)
      })
      await Bun.sleep(Math.random() * 50)
      emulators.bar.set({ paper: 'ok' })
      await Bun.sleep(Math.random() * 800)
      hub.process.kill('SIGKILL')
      await hub.process.exited
      await Promise.allSettled(posts)
      hub = await spawnServe(dir, { json: true, env: ENV })
      // Every ticket the hub accepted finishes: each of its children printed or said why not.
      const deadline = performance.now() + 20_000
      const finished = async () => {
        for (const id of accepted.values()) {
          const { job } = await (await request(hub, `/jobs/${id}`)).json()
          if (!['COMPLETED', 'FAILED'].includes(job.state)) return false
        }
        return true
      }
      // And the printers filed every ticket they were sent (a job can be COMPLETED a moment before).
      while (performance.now() < deadline && !((await finished()) && names.every((name) => emulators[name].quiet)))
        await Bun.sleep(100)
      for (const [marker, id] of accepted) {
        const answer = await (await request(hub, `/jobs/${id}`)).json()
        expect({ marker, printers: answer.children.map((child: Job) => child.printerId) }).toEqual({
          marker,
          printers: [ids.kitchen, ids.bar],
        })
        for (const [i, child] of (answer.children as Job[]).entries()) {
          const at = times(names[i]!, marker)
          if (child.state === 'COMPLETED')
            expect({ marker, printer: names[i], at }).toEqual({ marker, printer: names[i], at: 1 })
          else
            expect({ marker, printer: names[i], state: child.state, code: child.lastErrorCode, twice: at > 1 }).toEqual(
              { marker, printer: names[i], state: 'FAILED', code: 'job.recovery_uncertain', twice: false },
            )
        }
      }
      await hub.stop()
    }
    expect(accepted.size).toBeGreaterThan(0)
    // A ticket whose answer the kill cut off (it may have been made) prints at most once at each printer.
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < TICKETS; i++) {
        const marker = `r${round}t${i}`
        if (!accepted.has(marker))
          expect({ marker, kitchen: times('kitchen', marker) <= 1, bar: times('bar', marker) <= 1 }).toEqual({
            marker,
            kitchen: true,
            bar: true,
          })
      }
    }
  }, 180_000)
})
