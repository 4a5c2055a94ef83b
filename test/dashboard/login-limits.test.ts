// Guessing the admin password, against a real hub: guesses sent all at once are counted one by
// one (at most the limit are checked, the rest get 429), for signing in and for changing the
// password; lockouts grow when guessing goes on; many addresses together lock the account, which
// the CLI on the machine ends; the one-time setup link works once however many use it at once.
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { ACCOUNT_LOGIN_FAILURES, LOGIN_FAILURES } from '../../src/http/failure-rate-limit.ts'
import { THE_MACHINE } from '../../src/services/actor.ts'
import { HubServices } from '../../src/services/hub-services.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'

// Each test checks tens of passwords with argon2id, which is slow on purpose.

const PASSWORD = 'correct horse battery'
let hub: TestHub
let clock: number
let lines: string[]

beforeEach(async () => {
  clock = Date.now()
  lines = []
  hub = await startTestHub({ now: () => clock, events: (line) => lines.push(line) })
})
afterEach(() => hub.stop())

async function setUp(): Promise<{ cookie: string; csrf: string }> {
  const response = await hub.request('POST', '/admin/v1/setup', {
    key: null,
    body: { token: hub.hub.setupToken, password: PASSWORD },
  })
  expect(response.status).toBe(200)
  return {
    cookie: response.headers.get('set-cookie')!.split(';')[0]!,
    csrf: ((await response.json()) as { csrfToken: string }).csrfToken,
  }
}

const signIn = (password: string) => hub.request('POST', '/admin/v1/login', { key: null, body: { password } })

const statuses = (responses: Response[]) => {
  const counts: Record<number, number> = {}
  for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1
  return counts
}

/** A sign-in from another loopback address (127.0.0.N): the hub sees another remote address. */
function signInFrom(localAddress: string, password: string): Promise<number> {
  const body = JSON.stringify({ password })
  const url = new URL(hub.url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(url.port), localAddress })
    let received = ''
    socket.on('data', (data) => {
      received += data.toString()
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)
      if (status) {
        socket.destroy()
        resolve(Number(status[1]))
      }
    })
    socket.on('error', reject)
    socket.write(
      `POST /admin/v1/login HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: ` +
        `application/json\r\ncontent-length: ` +
        `${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    )
  })
}

test(`200 wrong passwords at once from one address: ${LOGIN_FAILURES.limit} ` +
  `are checked, the rest get 429 with Retry-After`, async () => {
  await setUp()
  const responses = await Promise.all(Array.from({ length: 200 }, () => signIn('wrong password!')))
  expect(statuses(responses)).toEqual({ 401: LOGIN_FAILURES.limit, 429: 200 - LOGIN_FAILURES.limit })
  const limited = responses.find((r) => r.status === 429)!
  expect(Number(limited.headers.get('retry-after'))).toBe(LOGIN_FAILURES.windowMs / 1000)
  expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
  // The right password waits too.
  expect((await signIn(PASSWORD)).status).toBe(429)
  // Said once in the hub's log, with the address and no password.
  const lockouts = lines.filter((line) => line.includes('locked out after wrong passwords'))
  expect(lockouts).toHaveLength(1)
  expect(lockouts[0]).toMatch(
    / warn +admin address=127\.0\.0\.1 minutes=5 failures=10 sign-in from an address locked out/,
  )
  expect(lines.join('\n')).not.toContain('wrong password!')
}, 60_000)

test('each lockout that follows soon after lasts twice as long; a quiet address starts over', async () => {
  await setUp()
  const lockout = async () => {
    const responses = await Promise.all(
      Array.from({ length: LOGIN_FAILURES.limit + 1 }, () => signIn('wrong password!')),
    )
    return Number(responses.at(-1)!.headers.get('retry-after'))
  }
  const window = LOGIN_FAILURES.windowMs / 1000
  expect(await lockout()).toBe(window)
  clock += LOGIN_FAILURES.windowMs + 1
  expect(await lockout()).toBe(2 * window)
  clock += 2 * LOGIN_FAILURES.windowMs + 1
  expect(await lockout()).toBe(4 * window)
  // Quiet for the lockout and a whole window after it: back to the first step, and the right password works.
  clock += 4 * LOGIN_FAILURES.windowMs + LOGIN_FAILURES.windowMs + 1
  expect((await signIn(PASSWORD)).status).toBe(200)
  expect(await lockout()).toBe(window)
}, 60_000)

test('a right password is not counted: signing in again and again never locks anyone out', async () => {
  await setUp()
  for (let i = 0; i < LOGIN_FAILURES.limit * 2; i++) expect((await signIn(PASSWORD)).status).toBe(200)
}, 60_000)

test('guesses from many addresses lock the account; setting a new password on ' +
  'the machine ends it at once', async () => {
  await setUp()
  const addresses = Array.from(
    { length: Math.ceil(ACCOUNT_LOGIN_FAILURES.limit / LOGIN_FAILURES.limit) + 1 },
    (_, i) => `127.0.0.${i + 2}`,
  )
  const seen: number[] = []
  for (const address of addresses)
    seen.push(
      ...(await Promise.all(
        Array.from({ length: LOGIN_FAILURES.limit - 1 }, () => signInFrom(address, 'wrong password!')),
      )),
    )
  // Every address stayed under its own limit, yet the account's was reached.
  expect(seen.filter((s) => s === 401)).toHaveLength(ACCOUNT_LOGIN_FAILURES.limit)
  expect(seen.filter((s) => s === 429).length).toBeGreaterThan(0)
  expect(await signInFrom('127.0.0.99', PASSWORD)).toBe(429)
  // The technician on the machine: printhub admin set-password (the same service call).
  await new HubServices(hub.hub.store).accounts.setPassword(THE_MACHINE, hub.hub.store.users.list()[0]!.id, {
    password: 'a brand new password',
  })
  expect(await signInFrom('127.0.0.99', 'a brand new password')).toBe(200)
  expect(await signInFrom(addresses[0]!, 'a brand new password')).toBe(200)
}, 60_000)

test('changing the password: 200 wrong current passwords at once, at most the limit are checked', async () => {
  const session = await setUp()
  const change = () =>
    hub.request('PUT', '/admin/v1/password', {
      key: null,
      body: { currentPassword: 'wrong password!', newPassword: 'another password' },
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    })
  const responses = await Promise.all(Array.from({ length: 200 }, change))
  expect(statuses(responses)).toEqual({ 400: LOGIN_FAILURES.limit, 429: 200 - LOGIN_FAILURES.limit })
  expect((await signIn(PASSWORD)).status).toBe(429)
}, 60_000)

test('the setup link sent ten times at once sets the password once', async () => {
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      hub.request('POST', '/admin/v1/setup', {
        key: null,
        body: { token: hub.hub.setupToken, password: `password number ${i}` },
      }),
    ),
  )
  expect(statuses(responses)).toEqual({ 200: 1, 401: 9 })
  const winner = responses.findIndex((r) => r.status === 200)
  expect((await signIn(`password number ${winner}`)).status).toBe(200)
}, 60_000)
