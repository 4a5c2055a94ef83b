// Staff accounts against a real hub: the first owner from the setup link, accounts an owner adds
// with roles, each signing in with a name and password; every route of the admin API answers each
// role as its policy says (read off the application, so no route is forgotten); an account
// disabled is out at once, sessions and tokens; the hub keeps an owner; and the audit log records
// who did what, from where, newest first, paged, and as CSV a spreadsheet cannot run.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { adminApi } from '../../src/admin/admin-app.ts'
import type { AdminContext } from '../../src/admin/context.ts'
import { adminToken } from '../support/fixtures.ts'
import { startTestHub, submitJob, type TestHub } from '../support/hub.ts'

const PASSWORDS = { olga: 'owner password one', tom: 'technician password', sam: 'staff password two' } as const
type Session = { cookie: string; csrf: string }

let hub: TestHub
const sessions = {} as Record<keyof typeof PASSWORDS, Session>

const asSession = (session: Session, method: string, path: string, body?: unknown) =>
  hub.request(method, `/admin/v1${path}`, {
    key: null,
    body,
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
  })

async function signIn(name: string | undefined, password: string): Promise<Response> {
  return hub.request('POST', '/admin/v1/login', {
    key: null,
    body: name === undefined ? { password } : { name, password },
  })
}

async function sessionOf(response: Response): Promise<Session> {
  expect(response.status).toBe(200)
  return {
    cookie: response.headers.get('set-cookie')!.split(';')[0]!,
    csrf: ((await response.json()) as { csrfToken: string }).csrfToken,
  }
}

beforeAll(async () => {
  hub = await startTestHub()
  sessions.olga = await sessionOf(
    await hub.request('POST', '/admin/v1/setup', {
      key: null,
      body: { token: hub.hub.setupToken, name: 'olga', password: PASSWORDS.olga },
    }),
  )
})
afterAll(() => hub.stop())

/** Every route of the admin API but the public ones, as method, pattern and a path to ask. */
function adminRoutes(): { method: string; pattern: string; path: string }[] {
  const app = adminApi({ services: undefined } as unknown as AdminContext)
  return app.routes
    .filter(
      (r) =>
        r.path.startsWith('/admin/v1/') &&
        !['GET /admin/v1/login', 'POST /admin/v1/login', 'POST /admin/v1/setup'].includes(`${r.method} ${r.path}`),
    )
    .map((r) => ({
      method: r.method,
      pattern: r.path.slice('/admin/v1'.length),
      path: r.path.replace(/:(\w+)/g, 'x_$1'),
    }))
}

/**
 * What staff may use: their own session, password and tokens; printers and jobs to see; cancel and reprint; the admin
 * API's OpenAPI document.
 */
const STAFF_MAY = [
  /^GET \/(session|sessions|tokens|overview|events|printers|printers\/detect|printers\/polling|profiles)$/,
  /^GET \/openapi\.json$/,
  /^GET \/(printers\/:id\/(history|last-receipt\.png)|jobs|jobs\/:id|jobs\/:id\/preview\.png|projects|destinations)$/,
  /^POST \/(logout|sessions\/revoke-others|sessions\/:id\/revoke|tokens|tokens\/:id\/revoke)$/,
  /^POST \/(jobs\/:id\/cancel|jobs\/:id\/reprint)$/,
  /^PUT \/(password|session\/language)$/,
]
const allowed = (role: 'owner' | 'technician' | 'staff', route: string) =>
  role === 'owner' || (role === 'technician' ? !/^\w+ \/users/.test(route) : STAFF_MAY.some((rule) => rule.test(route)))

describe('accounts', () => {
  test(
    'the setup link made the first owner; an owner adds accounts with roles; ' +
      'bad input is named and nothing is made',
    async () => {
      const me = (await (await asSession(sessions.olga, 'GET', '/session')).json()) as {
        user: { name: string; role: string }
      }
      expect(me.user).toMatchObject({ name: 'olga', role: 'owner' })
      for (const [name, role] of [
        ['tom', 'technician'],
        ['sam', 'staff'],
      ] as const) {
        const added = await asSession(sessions.olga, 'POST', '/users', { name, role, password: PASSWORDS[name] })
        expect(added.status).toBe(201)
        expect(((await added.json()) as { user: unknown }).user).toMatchObject({ name, role, disabled: false })
      }
      const bad: [unknown, number, string | undefined][] = [
        [{ name: 'ann', role: 'staff', password: 'short' }, 400, 'password'],
        [{ name: 'ann!', role: 'staff', password: 'long enough pass' }, 400, 'name'],
        [{ name: 'ann', role: 'cook', password: 'long enough pass' }, 400, 'role'],
        [{ name: 'SAM', role: 'staff', password: 'long enough pass' }, 409, undefined],
      ]
      for (const [body, status, path] of bad) {
        const answer = await asSession(sessions.olga, 'POST', '/users', body)
        const error = ((await answer.json()) as { error: { details?: { path: string }[] } }).error
        expect({ body, status: answer.status, path: error.details?.[0]?.path }).toEqual({ body, status, path })
      }
      const { users } = (await (await asSession(sessions.olga, 'GET', '/users')).json()) as {
        users: { name: string }[]
      }
      expect(users.map((user) => user.name)).toEqual(['olga', 'sam', 'tom'])
      // Each signs in with a name and password; with several accounts, a password alone is not enough.
      sessions.tom = await sessionOf(await signIn('tom', PASSWORDS.tom))
      sessions.sam = await sessionOf(await signIn('Sam', PASSWORDS.sam))
      const alone = await signIn(undefined, PASSWORDS.sam)
      expect(alone.status).toBe(401)
      expect(((await alone.json()) as { error: { message: string } }).error.message).toBe(
        'Give your name as well as your password.',
      )
      expect((await signIn('sam', PASSWORDS.tom)).status).toBe(401)
      expect((await signIn('nobody', PASSWORDS.tom)).status).toBe(401)
    },
  )

  test(
    'every admin route answers each role as its policy says: staff never ' +
      'reach keys, settings, agents, accounts or the audit log',
    async () => {
      const tokens = {
        owner: adminToken(hub.hub.store, 'owner'),
        technician: adminToken(hub.hub.store, 'technician'),
        staff: adminToken(hub.hub.store, 'staff'),
      }
      const routes = adminRoutes()
      expect(routes.length).toBeGreaterThan(40)
      for (const role of ['staff', 'technician', 'owner'] as const) {
        for (const { method, pattern, path } of routes) {
          if (role !== 'staff' && pattern === '/backup') continue // makes a whole backup: asked once below
          const answer = await hub.request(method, path, { key: tokens[role], body: method === 'GET' ? undefined : {} })
          await answer.body?.cancel()
          const route = `${method} ${pattern}`
          expect({ role, route, forbidden: answer.status === 403 }).toEqual({
            role,
            route,
            forbidden: !allowed(role, route),
          })
        }
      }
      expect((await hub.request('GET', '/admin/v1/backup', { key: tokens.technician })).status).toBe(200)
      // The same through a staff member's dashboard session, and the page list they are shown.
      for (const path of [
        '/projects/x/keys',
        '/settings',
        '/agents',
        '/users',
        '/audit',
        '/audit.csv',
        '/backup',
        '/webhooks',
      ])
        expect((await asSession(sessions.sam, 'GET', path)).status).toBe(403)
      const printer = await asSession(sessions.sam, 'POST', '/printers', {
        projectId: hub.projectId,
        id: 'sneaky',
        connection: 'virtual',
      })
      expect(printer.status).toBe(403)
      expect(((await printer.json()) as { error: { message: string } }).error.message).toBe(
        'This needs the role technician or higher; sam is staff.',
      )
    },
  )

  test(
    'staff cancel a waiting ticket; a technician makes a key; both are in the ' +
      'audit log with who, what, on what and from where',
    async () => {
      const made = await hub.request('POST', '/admin/v1/printers', {
        key: adminToken(hub.hub.store, 'technician'),
        body: { projectId: hub.projectId, id: 'shelf', connection: 'tcp://127.0.0.1:9' },
      })
      expect(made.status).toBe(201)
      const waiting = await submitJob(hub, { printerId: 'shelf' })
      expect((await asSession(sessions.sam, 'POST', `/jobs/${waiting.id}/cancel`)).status).toBe(200)
      expect(
        (await asSession(sessions.tom, 'POST', `/projects/${hub.projectId}/keys`, { scopes: ['jobs:read'] })).status,
      ).toBe(201)
      const { entries } = (await (await asSession(sessions.tom, 'GET', '/audit')).json()) as {
        entries: { at: string; user: string | null; action: string; target: string | null; address: string | null }[]
      }
      expect(entries[0]).toEqual({
        at: expect.any(String),
        user: 'tom',
        action: 'keys.create',
        target: hub.projectId,
        address: '127.0.0.1',
      })
      expect(entries[1]).toEqual({
        at: expect.any(String),
        user: 'sam',
        action: 'jobs.cancel',
        target: waiting.id,
        address: '127.0.0.1',
      })
      const actions = entries.map((entry) => `${entry.user} ${entry.action}`)
      for (const said of [
        'olga users.create',
        'olga session.sign_in',
        'tom session.sign_in',
        'sam session.sign_in',
        'sam session.sign_in_failed',
        'null session.sign_in_failed',
        'nobody session.sign_in_failed',
      ])
        expect(actions).toContain(said)
      expect(actions.filter((action) => action.endsWith(' printers.add'))).toHaveLength(1)
      // Newest first; pages go on exactly after each other.
      const times = entries.map((entry) => Date.parse(entry.at))
      expect(times).toEqual([...times].sort((a, b) => b - a))
      const first = (await (await asSession(sessions.olga, 'GET', '/audit?limit=2')).json()) as {
        entries: unknown[]
        nextCursor: string
      }
      const second = (await (
        await asSession(sessions.olga, 'GET', `/audit?limit=2&cursor=${first.nextCursor}`)
      ).json()) as { entries: unknown[] }
      expect([...first.entries, ...second.entries]).toEqual(entries.slice(0, 4))
      expect((await asSession(sessions.olga, 'GET', '/audit?limit=0')).status).toBe(400)
      expect((await asSession(sessions.olga, 'GET', '/audit?cursor=x')).status).toBe(400)
    },
  )

  test('the CSV export has every entry, and a name typed as a formula stays text', async () => {
    expect((await signIn('=HYPERLINK("http://x")', 'whatever it is')).status).toBe(401)
    const csv = await asSession(sessions.olga, 'GET', '/audit.csv')
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const lines = (await csv.text()).trimEnd().split('\r\n')
    expect(lines[0]).toBe('at,user,action,target,address')
    expect(lines[1]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z,"'=HYPERLINK\(""http:\/\/x""\)",session\.sign_in_failed,,127\.0\.0\.1$/,
    )
    const { entries } = (await (await asSession(sessions.olga, 'GET', '/audit?limit=500')).json()) as {
      entries: unknown[]
    }
    expect(lines).toHaveLength(entries.length + 1)
  })

  test(
    'an account disabled is out at once (sessions and tokens); enabled, it ' + 'signs in again; the last owner stays',
    async () => {
      const sams = (await (await asSession(sessions.olga, 'GET', '/users')).json()) as {
        users: { id: string; name: string; role: string }[]
      }
      const sam = sams.users.find((user) => user.name === 'sam')!
      const olga = sams.users.find((user) => user.name === 'olga')!
      const token = (
        (await (await asSession(sessions.sam, 'POST', '/tokens', { name: 'till script' })).json()) as { secret: string }
      ).secret
      expect((await hub.request('GET', '/admin/v1/jobs', { key: token })).status).toBe(200)
      expect((await asSession(sessions.olga, 'PATCH', `/users/${sam.id}`, { disabled: true })).status).toBe(200)
      expect((await asSession(sessions.sam, 'GET', '/jobs')).status).toBe(401)
      expect((await hub.request('GET', '/admin/v1/jobs', { key: token })).status).toBe(401)
      expect((await signIn('sam', PASSWORDS.sam)).status).toBe(401)
      expect((await asSession(sessions.olga, 'PATCH', `/users/${sam.id}`, { disabled: false })).status).toBe(200)
      expect((await signIn('sam', PASSWORDS.sam)).status).toBe(200)
      // The old session stays ended; the token works again with the account.
      expect((await asSession(sessions.sam, 'GET', '/jobs')).status).toBe(401)
      expect((await hub.request('GET', '/admin/v1/jobs', { key: token })).status).toBe(200)
      // The owner whose token the role test used is disabled: olga is the last owner who can sign in.
      for (const other of sams.users.filter((user) => user.role === 'owner' && user.id !== olga.id)) {
        expect((await asSession(sessions.olga, 'PATCH', `/users/${other.id}`, { disabled: true })).status).toBe(200)
      }
      for (const change of [{ disabled: true }, { role: 'technician' }]) {
        const refused = await asSession(sessions.olga, 'PATCH', `/users/${olga.id}`, change)
        expect(refused.status).toBe(409)
      }
      expect((await asSession(sessions.olga, 'PATCH', '/users/usr_nope', { disabled: true })).status).toBe(404)
      const { entries } = (await (await asSession(sessions.olga, 'GET', '/audit?limit=10')).json()) as {
        entries: { user: string; action: string; target: string }[]
      }
      expect(
        entries
          .filter((entry) => entry.action.startsWith('users.') && entry.target === 'sam')
          .map((entry) => `${entry.user} ${entry.action}`),
      ).toEqual(['olga users.enable', 'olga users.disable'])
    },
  )

  test(
    "each account's language: one printhub has, or null for the browser's; " +
      'anything else is 400 and changes nothing',
    async () => {
      const language = (body: unknown) => asSession(sessions.tom, 'PUT', '/session/language', body)
      expect(
        ((await (await language({ language: 'de' })).json()) as { user: { language: string } }).user.language,
      ).toBe('de')
      for (const body of [{ language: 'xx' }, { language: 7 }, {}, { language: 'de', extra: 1 }]) {
        const answer = await language(body)
        expect(answer.status).toBe(400)
      }
      expect(
        ((await (await asSession(sessions.tom, 'GET', '/session')).json()) as { user: { language: string } }).user
          .language,
      ).toBe('de')
      expect(
        ((await (await language({ language: null })).json()) as { user: { language: string | null } }).user.language,
      ).toBeNull()
    },
  )
})
