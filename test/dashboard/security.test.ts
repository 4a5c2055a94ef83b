// The admin API and the dashboard's pages refuse everyone without a session or an admin token;
// changes need the session's CSRF token; a project API key is never enough; wrong passwords are
// rate limited; sessions expire and can be revoked; nothing secret is stored in the clear.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { adminApi } from '../../src/admin/admin-app.ts'
import type { AdminContext } from '../../src/admin/context.ts'
import { LOGIN_FAILURES } from '../../src/http/failure-rate-limit.ts'
import { ADMIN_SESSION_LIFETIME } from '../../src/store/store.ts'
import { storedAdminSecrets } from '../support/fixtures.ts'
import { startTestHub, type TestHub } from '../support/hub.ts'

const PASSWORD = 'correct horse battery'

let hub: TestHub
let clock: number

/** Signs in through the setup link: the session cookie and CSRF token. */
async function setUpAndSignIn(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const response = await hub.request('POST', '/admin/v1/setup', {
    key: null,
    body: { token: hub.hub.setupToken, password: PASSWORD },
  })
  expect(response.status).toBe(200)
  const setCookie = response.headers.get('set-cookie')!
  return {
    cookie: setCookie.split(';')[0]!,
    csrf: ((await response.json()) as { csrfToken: string }).csrfToken,
    setCookie,
  }
}

function asAdmin(
  method: string,
  path: string,
  session: { cookie: string; csrf?: string },
  { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
) {
  return hub.request(method, path, {
    key: null,
    body,
    headers: { cookie: session.cookie, ...(session.csrf ? { 'x-csrf-token': session.csrf } : {}), ...headers },
  })
}

async function signIn(password: string, headers: Record<string, string> = {}) {
  return hub.request('POST', '/admin/v1/login', { key: null, body: { password }, headers })
}

/** Every route of the admin API, read off the application itself so none can be forgotten. */
function adminRoutes(): { method: string; path: string }[] {
  const app = adminApi({ services: undefined } as unknown as AdminContext)
  return app.routes
    .filter((r) => r.path.startsWith('/admin/v1/'))
    .map((r) => ({ method: r.method, path: r.path.replace(/:(\w+)/g, 'x_$1') }))
}
const PUBLIC = new Set(['GET /admin/v1/login', 'POST /admin/v1/login', 'POST /admin/v1/setup'])

beforeEach(async () => {
  clock = Date.now()
  hub = await startTestHub({ now: () => clock })
})

afterEach(async () => {
  await hub.stop()
})

describe('admin access', () => {
  test('no admin API call works without a session, nor with a project API key', async () => {
    const routes = adminRoutes().filter((r) => !PUBLIC.has(`${r.method} ${r.path}`))
    expect(routes.length).toBeGreaterThan(25)
    for (const { method, path } of routes) {
      const anonymous = await hub.request(method, path, { key: null, body: method === 'GET' ? undefined : {} })
      expect({ method, path, status: anonymous.status }).toEqual({ method, path, status: 401 })
      const withProjectKey = await hub.request(method, path, { body: method === 'GET' ? undefined : {} })
      expect({ method, path, status: withProjectKey.status }).toEqual({ method, path, status: 401 })
      expect(((await withProjectKey.json()) as { error: { message: string } }).error.message).toContain(
        'A project API key cannot use the admin API',
      )
    }
  })

  test('no page works without a session: the dashboard sends the browser to sign in', async () => {
    for (const path of ['/', '/dashboard', '/dashboard/']) {
      const response = await fetch(hub.url + path, { redirect: 'manual' })
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toBe(path === '/' ? '/dashboard/' : '/dashboard/login')
    }
    const login = await fetch(`${hub.url}/dashboard/login`)
    expect(login.status).toBe(200)
    expect(login.headers.get('content-security-policy')).toContain("script-src 'self'")
    expect(login.headers.get('x-frame-options')).toBe('DENY')
    // A made-up session cookie is no session.
    const forged = await fetch(`${hub.url}/dashboard/`, {
      redirect: 'manual',
      headers: { cookie: 'printhub_session=forged' },
    })
    expect(forged.headers.get('location')).toBe('/dashboard/login')
  })

  test('the session cookie is HttpOnly, SameSite=Strict, and Secure behind TLS', async () => {
    const { setCookie, cookie } = await setUpAndSignIn()
    expect(setCookie).toMatch(
      /^printhub_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/,
    )
    const page = await fetch(`${hub.url}/dashboard/`, { headers: { cookie } })
    expect(page.status).toBe(200)
    const overTls = await signIn(PASSWORD, { 'x-forwarded-proto': 'https' })
    expect(overTls.headers.get('set-cookie')).toEndWith('; Secure')
  })

  test('a change needs the CSRF token of its session; reads do not; another site cannot post', async () => {
    const session = await setUpAndSignIn()
    expect((await asAdmin('GET', '/admin/v1/projects', { cookie: session.cookie })).status).toBe(200)
    const without = await asAdmin('POST', '/admin/v1/projects', { cookie: session.cookie }, { body: { name: 'Bar' } })
    expect(without.status).toBe(403)
    expect(((await without.json()) as { error: { message: string } }).error.message).toContain('CSRF')
    const other = await freshSession()
    expect(
      (
        await asAdmin(
          'POST',
          '/admin/v1/projects',
          { cookie: session.cookie, csrf: other.csrf },
          { body: { name: 'Bar' } },
        )
      ).status,
    ).toBe(403)
    expect(
      (
        await asAdmin('POST', '/admin/v1/projects', session, {
          body: { name: 'Bar' },
          headers: { origin: 'http://evil.example' },
        })
      ).status,
    ).toBe(403)
    // Nothing was made by the refused requests.
    const { projects } = (await (await asAdmin('GET', '/admin/v1/projects', session)).json()) as {
      projects: { name: string }[]
    }
    expect(projects.map((p) => p.name)).toEqual(['default'])
    expect((await asAdmin('POST', '/admin/v1/projects', session, { body: { name: 'Bar' } })).status).toBe(201)
  })

  test('wrong passwords are limited per address; the right one waits too', async () => {
    await setUpAndSignIn()
    for (let i = 0; i < LOGIN_FAILURES.limit; i++) {
      const wrong = await signIn('wrong password!')
      expect(wrong.status).toBe(401)
      expect(((await wrong.json()) as { error: { message: string } }).error.message).toBe('That password is not right.')
    }
    const limited = await signIn(PASSWORD)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    clock += LOGIN_FAILURES.windowMs + 1
    expect((await signIn(PASSWORD)).status).toBe(200)
  })

  test('sessions end after 12 hours unused, a week after sign-in at the latest, and on sign-out', async () => {
    const session = await setUpAndSignIn()
    clock += ADMIN_SESSION_LIFETIME.idleMs - 60_000
    expect((await asAdmin('GET', '/admin/v1/session', session)).status).toBe(200)
    clock += ADMIN_SESSION_LIFETIME.idleMs + 1
    expect((await asAdmin('GET', '/admin/v1/session', session)).status).toBe(401)

    const kept = await freshSession()
    for (let used = 0; used < ADMIN_SESSION_LIFETIME.maxMs; used += ADMIN_SESSION_LIFETIME.idleMs / 2) {
      clock += ADMIN_SESSION_LIFETIME.idleMs / 2
      await asAdmin('GET', '/admin/v1/session', kept)
    }
    expect((await asAdmin('GET', '/admin/v1/session', kept)).status).toBe(401)

    const leaving = await freshSession()
    expect((await asAdmin('POST', '/admin/v1/logout', leaving)).status).toBe(200)
    expect((await asAdmin('GET', '/admin/v1/session', leaving)).status).toBe(401)
  })

  test('sign out everywhere else: every other session ends, this one goes on; it needs the CSRF token', async () => {
    const here = await setUpAndSignIn()
    const others = [await freshSession(), await freshSession()]
    expect((await asAdmin('POST', '/admin/v1/sessions/revoke-others', { cookie: here.cookie })).status).toBe(403)
    const answer = await asAdmin('POST', '/admin/v1/sessions/revoke-others', here)
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ signedOut: 2 })
    for (const other of others) expect((await asAdmin('GET', '/admin/v1/session', other)).status).toBe(401)
    expect((await asAdmin('GET', '/admin/v1/session', here)).status).toBe(200)
  })

  test('a session can be revoked from another; a new password ends every other session', async () => {
    const first = await setUpAndSignIn()
    const second = await freshSession()
    const third = await freshSession()
    const { sessions } = (await (await asAdmin('GET', '/admin/v1/sessions', first)).json()) as {
      sessions: { id: string; current: boolean }[]
    }
    expect(sessions.filter((s) => s.current)).toHaveLength(1)
    const secondId = ((await (await asAdmin('GET', '/admin/v1/session', second)).json()) as { session: { id: string } })
      .session.id
    expect((await asAdmin('POST', `/admin/v1/sessions/${secondId}/revoke`, first)).status).toBe(200)
    expect((await asAdmin('GET', '/admin/v1/session', second)).status).toBe(401)

    const wrongCurrent = await asAdmin('PUT', '/admin/v1/password', first, {
      body: { currentPassword: 'nope nope nope', newPassword: 'a new password 1' },
    })
    expect(wrongCurrent.status).toBe(400)
    const tooShort = await asAdmin('PUT', '/admin/v1/password', first, {
      body: { currentPassword: PASSWORD, newPassword: 'short' },
    })
    expect(((await tooShort.json()) as { error: { message: string } }).error.message).toBe(
      'The password must have at least 10 characters.',
    )
    const changed = await asAdmin('PUT', '/admin/v1/password', first, {
      body: { currentPassword: PASSWORD, newPassword: 'a new password 1' },
    })
    expect(await changed.json()).toEqual({ changed: true, otherSessionsEnded: 1 })
    expect((await asAdmin('GET', '/admin/v1/session', first)).status).toBe(200)
    expect((await asAdmin('GET', '/admin/v1/session', third)).status).toBe(401)
    expect((await signIn(PASSWORD)).status).toBe(401)
    expect((await signIn('a new password 1')).status).toBe(200)
  })

  test('admin tokens work for scripts without a CSRF token, until revoked', async () => {
    const session = await setUpAndSignIn()
    const created = await asAdmin('POST', '/admin/v1/tokens', session, { body: { name: 'backup script' } })
    expect(created.status).toBe(201)
    const { secret, token } = (await created.json()) as { secret: string; token: { id: string; tokenPrefix: string } }
    expect(secret).toMatch(/^pha_/)
    const bearer = { authorization: `Bearer ${secret}` }
    expect(
      (await hub.request('POST', '/admin/v1/projects', { key: null, body: { name: 'Kiosk' }, headers: bearer })).status,
    ).toBe(201)
    const listed = (await (await asAdmin('GET', '/admin/v1/tokens', session)).json()) as {
      tokens: Record<string, unknown>[]
    }
    expect(JSON.stringify(listed)).not.toContain(secret)
    expect(listed.tokens[0]!.lastUsedAt).toBeString()
    expect((await asAdmin('POST', `/admin/v1/tokens/${token.id}/revoke`, session)).status).toBe(200)
    expect((await hub.request('GET', '/admin/v1/projects', { key: null, headers: bearer })).status).toBe(401)
  })

  test('the setup link works once; without it nobody can set the first password', async () => {
    expect(await (await hub.request('GET', '/admin/v1/login', { key: null })).json()).toEqual({ passwordSet: false })
    expect((await signIn('anything at all')).status).toBe(401)
    const guessed = await hub.request('POST', '/admin/v1/setup', {
      key: null,
      body: { token: 'guessed-token', password: PASSWORD },
    })
    expect(guessed.status).toBe(401)
    const short = await hub.request('POST', '/admin/v1/setup', {
      key: null,
      body: { token: hub.hub.setupToken, password: 'short' },
    })
    expect(short.status).toBe(400)
    await setUpAndSignIn()
    expect(
      (
        await hub.request('POST', '/admin/v1/setup', {
          key: null,
          body: { token: hub.hub.setupToken, password: 'taken over!!' },
        })
      ).status,
    ).toBe(401)
  })

  test('stored: the password as an argon2id hash; sessions and tokens only as hashes', async () => {
    const session = await setUpAndSignIn()
    const { secret } = (await (await asAdmin('POST', '/admin/v1/tokens', session, { body: { name: 't' } })).json()) as {
      secret: string
    }
    const store = hub.hub.store
    const [owner] = store.users.list()
    expect(store.users.passwordHash(owner!.id)).toStartWith('$argon2id$')
    const dump = JSON.stringify(storedAdminSecrets(store))
    expect(dump).not.toContain(PASSWORD)
    expect(dump).not.toContain(session.cookie.split('=')[1]!)
    expect(dump).not.toContain(secret)
  })

  test('bad input is named in plain words and changes nothing', async () => {
    const session = await setUpAndSignIn()
    const cases: [string, string, unknown, number, string][] = [
      ['POST', '/admin/v1/projects', { name: '' }, 400, 'name'],
      ['POST', '/admin/v1/printers', { projectId: hub.projectId, id: 'bad id!', connection: 'virtual' }, 400, 'id'],
      ['POST', '/admin/v1/printers', { projectId: hub.projectId, id: 'ok', connection: 'ftp://x' }, 400, 'connection'],
      [
        'POST',
        '/admin/v1/printers',
        { projectId: hub.projectId, id: 'ok', connection: 'virtual', width: 57 },
        400,
        'width',
      ],
      ['POST', `/admin/v1/projects/${hub.projectId}/keys`, { scopes: ['jobs:admin'] }, 400, 'scopes'],
      ['PUT', '/admin/v1/settings', { retryMaxMs: 50 }, 400, 'retryMaxMs'],
      ['PUT', '/admin/v1/settings', { colour: 'blue' }, 400, 'colour'],
      ['POST', '/admin/v1/jobs/job_nope/cancel', undefined, 404, ''],
      ['POST', '/admin/v1/pairing-codes', { ttlSeconds: 5 }, 400, 'ttlSeconds'],
    ]
    for (const [method, path, body, status, field] of cases) {
      const response = await asAdmin(method, path, session, { body })
      const answer = (await response.json()) as { error: { message: string; details?: { path: string }[] } }
      expect({ path, status: response.status }).toEqual({ path, status })
      expect(answer.error.message.length).toBeGreaterThan(5)
      if (field) expect(answer.error.details?.map((d) => d.path).join(' ') ?? '').toContain(field)
    }
    const printers = (await (await asAdmin('GET', '/admin/v1/printers', session)).json()) as { printers: unknown[] }
    expect(printers.printers).toHaveLength(1)
    const jobs = await asAdmin('GET', '/admin/v1/jobs?colour=blue&state=DONE', session)
    expect(jobs.status).toBe(400)
  })
})

async function freshSession() {
  const response = await signIn(PASSWORD)
  expect(response.status).toBe(200)
  return {
    cookie: response.headers.get('set-cookie')!.split(';')[0]!,
    csrf: ((await response.json()) as { csrfToken: string }).csrfToken,
  }
}
