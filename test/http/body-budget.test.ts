// Request bodies still arriving hold memory: a caller with an API key that starts 300 slow 2 MiB
// job bodies at once, against a real hub process. The budget lets a bounded number be read (in
// all and per address), answers the rest 429 at once, and the hub's memory stays far below what a
// Pi can give it; a job from another address is taken meanwhile, and once the slow bodies are gone
// their budget is back.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { ApiError } from '../../src/http/errors.ts'
import { BODIES_IN_FLIGHT_BYTES, BODIES_IN_FLIGHT_BYTES_PER_CALLER, BodyBudget } from '../../src/http/body-budget.ts'
import { MAX_FRAME_BYTES } from '../../src/protocol/limits.ts'
import { initialize } from '../../src/services/init.ts'
import { Store } from '../../src/store/store.ts'
import { jobBody, tempDir } from '../support/hub.ts'
import { spawnServe, type ServeProcess } from '../support/serve.ts'
import { waitFor } from '../support/wait.ts'

const refusal = (fn: () => void): ApiError => {
  try {
    fn()
  } catch (error) {
    return error as ApiError
  }
  throw new Error('not refused')
}

test('a claim takes bytes while there is room, in all and per caller, and gives them back once', () => {
  const budget = new BodyBudget({ totalBytes: 100, perCallerBytes: 60 })
  const a = budget.claim('key:a')
  a.grow(30)
  a.grow(20)
  const perCaller = refusal(() => budget.claim('key:a').grow(11))
  expect(perCaller.status).toBe(429)
  expect(perCaller.code).toBe('rate_limited')
  expect(perCaller.headers).toMatchObject({ 'retry-after': '1', connection: 'close' })
  expect(perCaller.message).toContain('You are sending too many request bodies')
  const b = budget.claim('key:b')
  b.grow(50)
  expect(refusal(() => budget.claim('key:c').grow(1)).message).toContain('The hub is receiving too many request bodies')
  expect(budget.heldBytes).toBe(100)
  a.release()
  a.release()
  expect(budget.heldBytes).toBe(50)
  budget.claim('key:a').grow(50)
  expect(budget.heldBytes).toBe(100)
  // A refused growth takes nothing, so its release gives nothing back that others hold.
  const refused = budget.claim('key:c')
  expect(refusal(() => refused.grow(1)).status).toBe(429)
  refused.release()
  expect(budget.heldBytes).toBe(100)
  expect(refusal(() => budget.claim('key:d').grow(Number.NaN)).code).toBe('invalid_request')
  expect(refusal(() => budget.claim('key:d').grow(-1)).code).toBe('invalid_request')
  expect(() => a.grow(1)).toThrow()
})

let dir: string
let hub: ServeProcess
let port: number
let projectId: string
/** Five applications' keys that send slow bodies, and one that sends real jobs. */
let slowKeys: string[]
let apiKey: string

beforeAll(async () => {
  dir = tempDir()
  const store = Store.open({ dataDir: dir, create: true, maxOpenJobsPerProject: 10_000 })
  const init = await initialize(store, dir)
  if (!init.created) throw new Error('expected a first start')
  ;({ projectId, apiKey } = init)
  slowKeys = Array.from({ length: 5 }, (_, i) => store.apiKeys.create(projectId, ['jobs:write'], `slow ${i}`).secret)
  store.close()
  hub = await spawnServe(dir)
  port = Number(new URL(hub.url).port)
})
afterAll(async () => {
  await hub.stop()
  rmSync(dir, { recursive: true, force: true })
})

interface SlowBody {
  socket: Socket
  /** The status it was answered with, once answered (0: closed unanswered). */
  answered: number | undefined
}

/** A job request that declares `length` bytes of body, sends `sent` of them and holds. */
function slowBody(key: string, localAddress: string, length: number, sent: number): SlowBody {
  const socket = connect({ host: '127.0.0.1', port, localAddress })
  const slow: SlowBody = { socket, answered: undefined }
  socket.on('error', () => {})
  let head = ''
  socket.on('data', (data) => {
    head += data.toString('latin1')
    const match = /^HTTP\/1\.1 (\d+)/.exec(head)
    if (match) slow.answered ??= Number(match[1])
  })
  socket.on('close', () => (slow.answered ??= 0))
  socket.write(
    `POST /v1/projects/${projectId}/jobs HTTP/1.1\r\nhost: ` +
      `hub\r\nauthorization: Bearer ${key}\r\ncontent-type: ` +
      `application/json\r\ncontent-length: ${length}\r\n\r\n`,
  )
  socket.write(Buffer.alloc(sent, 0x20))
  return slow
}

const postJob = (body: unknown) =>
  fetch(`${hub.url}/v1/projects/${projectId}/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

test('300 slow 2 MiB job bodies from five keys and 50 addresses: a bounded ' +
  'number is read, the rest get 429 at once, memory stays bounded', async () => {
  const before = hub.rssMb()
  const perKey = 60
  const slow = slowKeys.flatMap((key, k) =>
    Array.from({ length: perKey }, (_, i) =>
      slowBody(key, `127.0.${1 + ((k * perKey + i) % 50)}.${1 + k}`, MAX_FRAME_BYTES, MAX_FRAME_BYTES - 1024),
    ),
  )
  const held = BODIES_IN_FLIGHT_BYTES / MAX_FRAME_BYTES
  expect(BODIES_IN_FLIGHT_BYTES_PER_CALLER / MAX_FRAME_BYTES).toBe(4)
  // Every body the budget has no room for is answered at once; the others wait for their last bytes.
  await waitFor(() => slow.filter((s) => s.answered !== undefined).length >= slow.length - held || undefined)
  expect(slow.filter((s) => s.answered === 429)).toHaveLength(slow.length - held)
  // No key holds more than its share, however many addresses it comes from.
  for (let k = 0; k < slowKeys.length; k++)
    expect(slow.slice(k * perKey, (k + 1) * perKey).filter((s) => s.answered === undefined).length).toBeLessThanOrEqual(
      4,
    )
  // All the held ones sent has left their sockets: the hub answers, and is far from what a Pi has.
  await waitFor(() => slow.every((s) => s.answered !== undefined || s.socket.writableLength === 0) || undefined, 10_000)
  expect((await fetch(`${hub.url}/health`)).status).toBe(200)
  const rss = hub.rssMb()
  console.log(`RSS ${before.toFixed(0)} MB before, ${rss.toFixed(0)} MB with ${held} bodies held`)
  expect(rss).toBeLessThan(150)
  expect(rss - before).toBeLessThan((BODIES_IN_FLIGHT_BYTES / 1_048_576) * 1.5 + 20)
  // While the whole budget is taken, another application is told to retry in a second, and loses nothing.
  const busy = await postJob(jobBody())
  expect(busy.status).toBe(429)
  expect(busy.headers.get('retry-after')).toBe('1')
  expect(((await busy.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
  // The held bodies end (their clients go away): the budget is back, and so is the job.
  for (const s of slow) s.socket.destroy()
  const retried = { ...jobBody(), idempotencyKey: `after-${crypto.randomUUID()}` }
  const accepted = await waitFor(async () => {
    const response = await postJob(retried)
    return response.status === 202 ? response : undefined
  })
  expect(accepted.status).toBe(202)
}, 60_000)

test('one key sending slow bodies takes at most its share: another application is served meanwhile', async () => {
  const slow = Array.from({ length: 40 }, (_, i) => slowBody(slowKeys[0]!, `127.0.${1 + i}.9`, MAX_FRAME_BYTES, 1024))
  await waitFor(() => slow.filter((s) => s.answered !== undefined).length >= 36 || undefined)
  expect(slow.filter((s) => s.answered === 429)).toHaveLength(36)
  const job = await postJob(jobBody())
  expect(job.status).toBe(202)
  for (const s of slow) s.socket.destroy()
}, 30_000)
