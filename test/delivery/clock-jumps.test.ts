// The wall clock of the hub's process set a year forward, then back to a day before the real time (libfaketime: the
// process alone, its monotonic clock untouched), while a job waits for a printer out of paper, another is retried on a
// printer that fails every job, with a setup link, a pairing code and a signed-in session open. Nothing that waits
// ends early or lasts for ever: each keeps the time it had left; the jump is logged once and written to the audit
// log; the job's createdAt stays as the hub knew it.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { PrinterEmulator } from '../../src/emulator/emulator.ts'
import { findProfile } from '../../src/profiles/catalog.ts'
import { cliJson } from '../support/cli.ts'
import { MovedClock } from '../support/faketime.ts'
import { pairAgent } from '../support/fake-agent.ts'
import { tempDir } from '../support/hub.ts'
import { type ServeProcess, spawnServe } from '../support/serve.ts'

const EXPIRES_IN_MS = 20_000
let dir: string
let hub: ServeProcess
let clock: MovedClock
let printer: PrinterEmulator
let projectId: string
let apiKey: string
let pairingCode: string

beforeAll(async () => {
  dir = tempDir()
  const env = { PRINTHUB_DATA_DIR: dir }
  ;({ projectId, apiKey } = await cliJson(['init', '--json'], env))
  printer = PrinterEmulator.listen({
    ...{ hostname: '127.0.0.1', port: 0, profile: findProfile('epson-tm-t20iii')!, width: 80 },
    state: { paper: 'out' },
  })
  await cliJson(
    ['printers', 'add', '--project', projectId, '--id', 'kitchen', '--connection', `tcp://127.0.0.1:${printer.port}`],
    env,
  )
  await cliJson(
    ['printers', 'add', '--project', projectId, '--id', 'flaky', '--connection', 'virtual://flaky?mode=fail'],
    env,
  )
  pairingCode = (await cliJson(['pairing-codes', 'create', '--ttl', '2m', '--json'], env)).code
  clock = new MovedClock(dir)
  hub = await spawnServe(dir, {
    env: { ...clock.env(), PRINTHUB_RETRY_INITIAL_MS: '1000', PRINTHUB_RETRY_MAX_MS: '2000' },
  })
})
afterAll(async () => {
  await hub?.stop()
  printer?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const jobUrl = (id = '') => `${hub.url}/v1/projects/${projectId}/jobs${id && `/${id}`}`
const auth = () => ({ authorization: `Bearer ${apiKey}` })

async function job(id: string): Promise<{ state: string; createdAt: string; expiresAt: string; attemptCount: number }> {
  return ((await (await fetch(jobUrl(id), { headers: auth() })).json()) as { job: any }).job
}

async function post(printerId: string, key: string, extra: Record<string, unknown>) {
  const answer = await fetch(jobUrl(), {
    method: 'POST',
    headers: { ...auth(), 'content-type': 'application/json' },
    body: JSON.stringify({
      ...{ printerId, idempotencyKey: key, ...extra },
      document: { width: 80, sections: [{ type: 'text', value: 'table 4' }, { type: 'cut' }] },
    }),
  })
  expect(answer.status).toBe(202)
  return ((await answer.json()) as { job: { id: string; createdAt: string; expiresAt: string } }).job
}

/** Retries go on at their pace: another attempt within a few seconds (or the last one made). */
async function retried(id: string): Promise<void> {
  const before = await job(id)
  const deadline = performance.now() + 8_000
  for (let now = before; now.attemptCount === before.attemptCount && now.state === 'PENDING'; now = await job(id)) {
    if (performance.now() > deadline) throw new Error(`no retry of ${id} in 8 s: ${JSON.stringify(now)}`)
    await Bun.sleep(200)
  }
}

/** Waits until the hub's log has said `text` (polled: the hub looks at the clock once a second). */
async function logged(text: string): Promise<void> {
  const deadline = performance.now() + 10_000
  while (!hub.output().includes(text)) {
    // What the hub said besides its jobs' lines, for a look.
    const said = () =>
      hub
        .output()
        .split('\n')
        .filter((line) => !line.includes(' job='))
        .join('\n')
    if (performance.now() > deadline) throw new Error(`the hub did not log "${text}":\n${said().slice(-3_000)}`)
    await Bun.sleep(100)
  }
}

test('a year forward, then a day behind: the waiting job expires on time, retries go on, the setup link, the pairing ' +
  'code and the session keep working, the jumps are logged once and audited, createdAt stays', async () => {
  const setupToken = /\/dashboard\/setup#(\S+)$/m.exec(hub.output())![1]!
  const submittedAt = performance.now()
  const { id, createdAt, expiresAt } = await post('kitchen', 'waits-for-paper', { expiresInMs: EXPIRES_IN_MS })
  const flaky = (await post('flaky', 'retried', { maxAttempts: 10, expiresInMs: 120_000 })).id
  await retried(flaky)

  clock.set('+365d')
  await logged('the system clock jumped forward by 365 days')
  expect(await job(id)).toMatchObject({ state: 'PENDING', createdAt })
  // Its deadline moved with the clock: still about 20 s from its submission, on the new clock.
  const moved = Date.parse((await job(id)).expiresAt) - Date.parse(expiresAt)
  expect(Math.abs(moved - 365 * 86_400_000)).toBeLessThan(10_000)
  const setup = await fetch(`${hub.url}/admin/v1/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: setupToken, password: 'a long password' }),
  })
  expect(setup.status).toBe(200)
  const cookie = setup.headers.get('set-cookie')!.split(';')[0]!
  await pairAgent(hub.url, pairingCode)
  await retried(flaky)

  clock.set('-1d')
  await logged('the system clock jumped back by 366 days')
  expect((await fetch(`${hub.url}/admin/v1/session`, { headers: { cookie } })).status).toBe(200)
  expect(await job(id)).toMatchObject({ state: 'PENDING', createdAt })
  await retried(flaky)

  // It expires when its 20 s are up, measured from its submission: not a day later, not a year early.
  let state = 'PENDING'
  while (state === 'PENDING' && performance.now() - submittedAt < EXPIRES_IN_MS + 15_000) {
    await Bun.sleep(250)
    state = (await job(id)).state
  }
  const endedAfter = performance.now() - submittedAt
  expect(state).toBe('EXPIRED')
  expect(endedAfter).toBeGreaterThan(EXPIRES_IN_MS - 1_000)
  expect((await job(id)).createdAt).toBe(createdAt)

  const audit = (await (await fetch(`${hub.url}/admin/v1/audit?limit=50`, { headers: { cookie } })).json()) as {
    entries: { action: string; target: string }[]
  }
  const jumps = audit.entries.filter((entry) => entry.action === 'hub.clock')
  expect(jumps).toHaveLength(2)
  expect(hub.output().match(/the system clock jumped/g)).toHaveLength(2)
}, 90_000)
